"""The tool registry: what the MCP endpoint offers, each tool with its operation, input model and annotations.

A tool is a plain function ``handler(actor, args) -> JSON-able`` declared with ``@tool(...)`` in its domain's
``tools.py``; its docstring is the description a model reads. It names its permission operation, whose rule in the
table (apps/accounts/permissions.py) gives the scope and role a caller needs, as for the REST endpoint of the same
operation. Arguments are parsed by the operation's input model (apps/<domain>/inputs.py), which forbids unknown keys, so the published ``inputSchema`` says ``additionalProperties: false`` and an argument the tool does not
know is refused instead of being dropped (CONVENTIONS 5). Plugin tools come from ``apps.plugins.registry`` while their
plugin is enabled and are named ``<pluginId>__<name>``.

Like the plugin registry, this module imports no domain app beyond the accounts layer (roles) that every face uses
(docs/architecture.md §7): the domains register into it.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.apps import apps as django_apps
from pydantic import BaseModel

from apps.accounts.models import Role
from apps.accounts.permissions import rule_for
from apps.core.shapes import Input, Paged, clean_schema, schema_of

# Plugin tool names are namespaced with their plugin id: `callout__insert`.
PLUGIN_SEPARATOR = "__"


@dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    handler: Callable[[Any, Any], Any]
    # The permission operation (apps/accounts/permissions.py) whose rule gives the scope and role a caller needs.
    operation: str | None = None
    # Plugin tools bring no operation: they state scope and role themselves (apps/plugins/base.py).
    declared_scope: str | None = None
    declared_role: int = Role.SUBSCRIBER
    input_model: type[BaseModel] | None = None
    # Plugin tools bring a JSON Schema instead of a model.
    raw_schema: dict | None = None
    read_only: bool = False
    destructive: bool = False
    idempotent: bool | None = None
    plugin: str | None = None
    schema: dict = field(default_factory=dict, compare=False)
    # The JSON Schema of a successful answer, from the operation's output shape (the presenter's TypedDict).
    output_schema: dict | None = field(default=None, compare=False)
    # The example call of docs/mcp.md's tool reference (apps/mcp/reference.py), checked against the input model.
    example: dict | None = field(default=None, compare=False)

    @property
    def scope(self) -> str | None:
        # Read from the table at call time: domains register their rules in AppConfig.ready, in any order.
        return rule_for(self.operation).scope if self.operation else self.declared_scope

    @property
    def min_role(self) -> int:
        return rule_for(self.operation).min_role if self.operation else self.declared_role

    def annotations(self) -> dict[str, Any]:
        annotations: dict[str, Any] = {"title": self.title, "readOnlyHint": self.read_only}
        if not self.read_only:
            annotations["destructiveHint"] = self.destructive
            if self.idempotent is not None:
                annotations["idempotentHint"] = self.idempotent
        # Every tool acts on this CMS only, never on the open world.
        annotations["openWorldHint"] = False
        return annotations

    def describe(self) -> dict[str, Any]:
        """The tool as ``tools/list`` shows it (version-independent; the endpoint sieves it per protocol version)."""
        described = {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": self.schema,
            "annotations": self.annotations(),
        }
        if self.output_schema is not None:
            described["outputSchema"] = self.output_schema
        return described


_tools: dict[str, Tool] = {}

# The domain modules that hold tools; `discover()` imports those that exist.
TOOL_MODULE = "tools"


def _inline(node: Any, definitions: dict, stack: tuple[str, ...], kept: set[str]) -> Any:
    """Nested models written in place of ``$ref``s (some clients do not follow references in tool schemas), except
    recursive ones (menu items with children), which stay references into ``$defs``."""
    if isinstance(node, dict):
        reference = node.get("$ref")
        if isinstance(reference, str) and reference.startswith("#/$defs/"):
            name = reference.removeprefix("#/$defs/")
            if name in stack:
                kept.add(name)
                return node
            target = _inline(definitions[name], definitions, (*stack, name), kept)
            return {**target, **{key: value for key, value in node.items() if key != "$ref"}}
        return {key: _inline(value, definitions, stack, kept) for key, value in node.items()}
    if isinstance(node, list):
        return [_inline(item, definitions, stack, kept) for item in node]
    return node


def _inlined(schema: dict) -> dict:
    definitions = schema.pop("$defs", {})
    kept: set[str] = set()
    schema = _inline(schema, definitions, (), kept)
    if kept:
        schema["$defs"] = {
            name: _inline(definitions[name], definitions, (name,), kept) for name in sorted(kept)
        }
    return schema


def input_schema(model: type[BaseModel]) -> dict:
    schema = _inlined(clean_schema(model.model_json_schema(by_alias=True)))
    schema.setdefault("properties", {})
    schema["additionalProperties"] = False
    return schema


def output_schema(shape: Any) -> dict:
    """A tool's ``outputSchema``: the output shape's JSON Schema (an object, as the protocol requires). A page of a
    list (``paged(Shape)``) is the same page REST documents; a union of objects (``kind`` says which) is an object
    that is one of them."""
    if isinstance(shape, Paged):
        shape = shape.as_typeddict()
    schema = _inlined(schema_of(shape))
    alternatives = schema.get("anyOf") or schema.get("oneOf")
    if "type" not in schema and alternatives and all(item.get("type") == "object" for item in alternatives):
        schema = {"type": "object", **schema}
    if schema.get("type") != "object":
        raise ValueError(f"an outputSchema must describe an object, not {schema.get('type')!r}")
    return schema


def tool(
    name: str,
    *,
    title: str,
    input: type[Input],
    operation: str,
    read_only: bool = False,
    destructive: bool = False,
    idempotent: bool | None = None,
    output: Any = None,
    example: dict | None = None,
) -> Callable:
    """Register the decorated ``handler(actor, args)``; its docstring is the tool's description. ``output`` is the
    output shape (a TypedDict) of what it answers, published as ``outputSchema``. ``example`` is the example call of
    the tool reference in docs/mcp.md (without it, one is built from the input schema); it must be valid input."""

    def register(handler: Callable) -> Callable:
        description = inspect.cleandoc(handler.__doc__ or "")
        if not description:
            raise ValueError(f"tool {name} needs a docstring: it is the description a model reads")
        if name in _tools:
            raise ValueError(f"tool {name} is registered twice")
        if example is not None:
            input.model_validate(
                example
            )  # an example that no longer parses fails at start-up, not in the docs
        _tools[name] = Tool(
            name=name,
            title=title,
            description=description,
            handler=handler,
            operation=operation,
            input_model=input,
            read_only=read_only,
            destructive=destructive,
            idempotent=idempotent,
            schema=input_schema(input),
            output_schema=output_schema(output) if output is not None else None,
            example=example,
        )
        return handler

    return register


def discover() -> None:
    """Import ``tools.py`` of every installed app that has one (AppConfig.ready)."""
    for config in django_apps.get_app_configs():
        if not config.name.startswith("apps."):
            continue
        try:
            importlib.import_module(f"{config.name}.{TOOL_MODULE}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{config.name}.{TOOL_MODULE}":
                raise


def _plugin_tool(plugin_id: str, contribution) -> Tool:
    schema = dict(contribution.input_schema or {"type": "object"})
    schema.setdefault("type", "object")
    return Tool(
        name=f"{plugin_id}{PLUGIN_SEPARATOR}{contribution.name}",
        title=getattr(contribution, "title", None) or contribution.name.replace("_", " ").capitalize(),
        description=contribution.description,
        handler=contribution.handler,
        declared_scope=contribution.scope,
        declared_role=contribution.min_role,
        raw_schema=schema,
        read_only=contribution.read_only,
        destructive=contribution.destructive,
        plugin=plugin_id,
        schema=schema,
    )


# Functions that make tools from stored state (per-collection tools, apps/content/collection_tools.py), asked on every
# tools/list and for names no static tool has; each answers [] when its setting is off.
_providers: list[Callable[[], list[Tool]]] = []


def register_provider(provider: Callable[[], list[Tool]]) -> None:
    if provider not in _providers:
        _providers.append(provider)


def provided_tools() -> list[Tool]:
    return [tool for provider in _providers for tool in provider() if tool.name not in _tools]


def plugin_tools() -> list[Tool]:
    from apps.plugins.registry import active_mcp_tools

    return [_plugin_tool(plugin_id, contribution) for plugin_id, contribution in active_mcp_tools()]


def all_tools() -> list[Tool]:
    """Built-in tools by domain, the tools made from stored state, then the tools of enabled plugins."""
    return [*builtin_tools(), *provided_tools(), *plugin_tools()]


def get(name: str) -> Tool | None:
    found = _tools.get(name)
    if found is not None:
        return found
    if PLUGIN_SEPARATOR not in name:
        return next((candidate for candidate in provided_tools() if candidate.name == name), None)
    return next((candidate for candidate in plugin_tools() if candidate.name == name), None)


# tools/list groups tools by domain, the most used first (a model reads the list top down).
DOMAIN_ORDER = (
    "content",
    "revision",
    "schema",
    "media",
    "search",
    "taxonomy",
    "menu",
    "section",
    "byline",
    "settings",
)


def _domain_rank(tool: Tool) -> int:
    prefix = tool.name.split("_", 1)[0]
    return DOMAIN_ORDER.index(prefix) if prefix in DOMAIN_ORDER else len(DOMAIN_ORDER)


def builtin_tools() -> list[Tool]:
    return sorted(_tools.values(), key=_domain_rank)
