"""JSON-RPC 2.0 for the tool server: version negotiation, method dispatch, tool calls and error mapping.

Two eras of the Model Context Protocol are served by the same stateless endpoint:

- the handshake era (2025-03-26, 2025-06-18, 2025-11-25): ``initialize`` negotiates the newest version both sides
  know; later requests carry the ``MCP-Protocol-Version`` header (absent means 2025-03-26, as the transport spec
  says). No session id is issued: every request stands alone.
- the stateless 2026-07-28 revision: no handshake; ``server/discover`` tells what is served, and every request
  carries its version, client info and capabilities in ``params._meta`` plus the routing headers, checked by the
  SDK's own classifier (``mcp.shared.inbound``).

Requests are validated by the SDK's per-version wire types (``mcp.types.methods``); results of the methods whose
shape differs between versions are sieved through them too. Tool-call results are built directly (they are the hot
path) and carry the tool's JSON as text and, from 2025-06-18 on, as ``structuredContent``.

Errors follow SPEC §7: a missing scope or role is JSON-RPC -32600 ``Insufficient scope: requires …`` with the request
id; a tool's own failure (a ``CmsError``) is a result with ``isError: true`` whose text starts with ``[CODE]``;
anything unexpected is -32603 without internals (the traceback goes to the log).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from functools import cache
from typing import Any

import orjson
from django.conf import settings
from mcp.shared.inbound import ERROR_CODE_HTTP_STATUS, InboundLadderRejection, classify_inbound_request
from mcp.types import PROTOCOL_VERSION_META_KEY, SERVER_INFO_META_KEY
from mcp.types import methods as wire
from mcp.types.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    UNSUPPORTED_PROTOCOL_VERSION,
)
from pydantic import ValidationError as PydanticValidationError

from apps.accounts.models import Role
from apps.accounts.permissions import Actor
from apps.core import shapes
from apps.core.api.exceptions import to_cms_error
from apps.core.api.parsers import json_problem
from apps.core.errors import CmsError, Forbidden, ServiceUnavailable, Unauthorized, ValidationError
from apps.mcp import registry

logger = logging.getLogger("cms.mcp")

# Newest first: `initialize` answers the client's version when it is one of these, else the newest.
HANDSHAKE_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26")
MODERN_VERSIONS = ("2026-07-28",)
SUPPORTED_VERSIONS = (*MODERN_VERSIONS, *HANDSHAKE_VERSIONS)
# Transport spec 2025-06-18 §"Protocol Version Header": without the header, assume 2025-03-26.
DEFAULT_HEADER_VERSION = "2025-03-26"
# structuredContent and tool titles exist from 2025-06-18 on.
STRUCTURED_SINCE = frozenset({"2025-06-18", "2025-11-25", *MODERN_VERSIONS})

SERVER_NAME = "cms"
SERVER_TITLE = "CMS tool server"
SERVER_VERSION = "1.0.0"
INSTRUCTIONS = (
    "Tools for a headless CMS. Content lives in collections (schema_list_collections, schema_get_collection); "
    "entries are read with content_list/content_get and written with content_create/content_update, which accept "
    "Markdown for portableText fields. Writes that should not overwrite someone else's change pass the _rev that "
    "content_get returned. Failures come back as results whose text starts with an error code such as [NOT_FOUND]."
)


class RpcError(Exception):
    """A JSON-RPC error answer (as opposed to a tool result with isError)."""

    def __init__(self, code: int, message: str, data: Any = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


def server_info() -> dict[str, str]:
    return {"name": SERVER_NAME, "title": SERVER_TITLE, "version": SERVER_VERSION}


def _role_label(role: int) -> str:
    return f"{Role(role).label.lower()} ({role})" if role in Role.values else str(role)


def insufficient_scope(scope: str) -> RpcError:
    return RpcError(INVALID_REQUEST, f"Insufficient scope: requires {scope}", {"requiredScope": scope})


def insufficient_role(role: int) -> RpcError:
    return RpcError(
        INVALID_REQUEST,
        f"Insufficient scope: requires the role {_role_label(role)} or higher",
        {"requiredRole": role},
    )


# --- messages --------------------------------------------------------------------------------------------------------


class Message:
    """One decoded request: its id, method, params and the protocol version it speaks."""

    __slots__ = ("id", "method", "modern", "params", "version")

    def __init__(self, body: Mapping[str, Any], version: str, modern: bool):
        self.id = body["id"]
        self.method = body["method"]
        self.params = body.get("params")
        self.version = version
        self.modern = modern


def is_modern(body: Mapping[str, Any], header_version: str | None) -> bool:
    """A 2026-era request: it names a modern version in its header or carries the reserved envelope key."""
    if header_version in MODERN_VERSIONS:
        return True
    params = body.get("params")
    meta = params.get("_meta") if isinstance(params, Mapping) else None
    return isinstance(meta, Mapping) and PROTOCOL_VERSION_META_KEY in meta


def classify(body: Mapping[str, Any], headers: Mapping[str, str]) -> Message:
    """Decide the protocol version of a request, or raise RpcError (the transport's version and header rules)."""
    header_version = headers.get("mcp-protocol-version")
    if is_modern(body, header_version):
        verdict = classify_inbound_request(body, headers=headers, supported_modern_versions=MODERN_VERSIONS)
        if isinstance(verdict, InboundLadderRejection):
            raise RpcError(verdict.code, verdict.message, verdict.data)
        return Message(body, verdict.protocol_version, modern=True)
    if body.get("method") == "initialize":
        # The handshake is where the version is chosen; a header on it means nothing yet.
        return Message(body, HANDSHAKE_VERSIONS[0], modern=False)
    version = header_version or DEFAULT_HEADER_VERSION
    if version not in HANDSHAKE_VERSIONS:
        raise RpcError(
            UNSUPPORTED_PROTOCOL_VERSION,
            "Unsupported protocol version",
            {"supported": list(SUPPORTED_VERSIONS), "requested": version},
        )
    return Message(body, version, modern=False)


def http_status(code: int, modern: bool) -> int:
    """The HTTP status of a JSON-RPC error: the SDK's table for the stateless revision (400, 404 …); 200 on the
    handshake era, whose transport carries errors in successful answers, except for bodies that could not be
    understood at all."""
    if modern:
        return ERROR_CODE_HTTP_STATUS.get(code, 200)
    return 400 if code in (-32700, UNSUPPORTED_PROTOCOL_VERSION) else 200


def error_body(request_id: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


# --- dispatch --------------------------------------------------------------------------------------------------------


def _finish(message: Message, result: dict[str, Any]) -> dict[str, Any]:
    """2026-era results name their type and the server that answered (spec 2026-07-28 `resultType`, `_meta`)."""
    if message.modern:
        result.setdefault("resultType", "complete")
        meta = dict(result.get("_meta") or {})
        meta.setdefault(SERVER_INFO_META_KEY, {"name": SERVER_NAME, "version": SERVER_VERSION})
        result["_meta"] = meta
    return result


def _validated_params(message: Message) -> Any:
    try:
        return wire.parse_client_request(message.method, message.version, message.params)
    except KeyError:
        raise RpcError(METHOD_NOT_FOUND, f"Method not found: {message.method}") from None
    except PydanticValidationError as exc:
        # Our wording (apps/core/shapes.py), as for tool arguments: pydantic's own is written for Python programmers.
        problems = "; ".join(
            f"{'.'.join(str(part) for part in error['loc']) or 'params'}: {shapes.message(error)}"
            for error in exc.errors()[:5]
        )
        raise RpcError(INVALID_PARAMS, f"Invalid params for {message.method}: {problems}") from None


def _initialize(message: Message) -> dict[str, Any]:
    params = message.params if isinstance(message.params, Mapping) else {}
    requested = params.get("protocolVersion")
    version = requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[0]
    result = {
        "protocolVersion": version,
        "capabilities": {"tools": {"listChanged": False}},
        "serverInfo": server_info(),
        "instructions": INSTRUCTIONS,
    }
    return wire.serialize_server_result("initialize", version, result)


def _discover(message: Message) -> dict[str, Any]:
    result = {
        "supportedVersions": list(SUPPORTED_VERSIONS),
        "capabilities": {"tools": {"listChanged": False}},
        "instructions": INSTRUCTIONS,
        # The same for every caller and changed only by a new release.
        "ttlMs": 3_600_000,
        "cacheScope": "public",
        "resultType": "complete",
    }
    return wire.serialize_server_result("server/discover", message.version, result)


@cache
def _builtin_listing(version: str) -> tuple[dict[str, Any], ...]:
    tools = [tool.describe() for tool in registry.builtin_tools()]
    return tuple(_sieve_tools(version, tools))


def _sieve_tools(version: str, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    extra: dict[str, Any] = (
        {"ttlMs": 0, "cacheScope": "private", "resultType": "complete"} if version in MODERN_VERSIONS else {}
    )
    sieved = wire.serialize_server_result("tools/list", version, {"tools": tools, **extra})["tools"]
    if version not in STRUCTURED_SINCE:
        # 2025-03-26 tools have no title of their own (their annotations carry it), and no outputSchema: its results
        # carry no structuredContent to describe.
        sieved = [
            {key: value for key, value in item.items() if key not in ("title", "outputSchema")}
            for item in sieved
        ]
    return sieved


def _callable_by(actor: Actor, tool: registry.Tool) -> bool:
    return actor.has_scope(tool.scope) and actor.has_role(tool.min_role)


def _list_tools(actor: Actor, message: Message) -> dict[str, Any]:
    tools = list(_builtin_listing(message.version))
    provided = [tool.describe() for tool in registry.provided_tools()]
    if provided:
        tools.extend(_sieve_tools(message.version, provided))
    plugin_tools = [tool.describe() for tool in registry.plugin_tools()]
    if plugin_tools:
        tools.extend(_sieve_tools(message.version, plugin_tools))
    if settings.CMS_MCP_LIST_CALLABLE_TOOLS_ONLY:
        # The same checks as call_tool makes first: a listed tool is never refused for scope or role.
        callable_names = {tool.name for tool in registry.all_tools() if _callable_by(actor, tool)}
        tools = [tool for tool in tools if tool["name"] in callable_names]
    result: dict[str, Any] = {"tools": tools}
    if message.modern:
        # Plugin tools come and go with their plugin, per-collection tools with the schema: clients should not cache
        # the list.
        result.update(ttlMs=0, cacheScope="private")
    return result


def dispatch(actor: Actor, message: Message) -> dict[str, Any]:
    """The result of one request, or RpcError."""
    method = message.method
    if method == "tools/call":
        params = message.params if isinstance(message.params, Mapping) else None
        name = params.get("name") if params else None
        arguments = params.get("arguments") if params else None
        if not isinstance(name, str) or not (arguments is None or isinstance(arguments, Mapping)):
            _validated_params(message)  # raises the SDK's own description of what is wrong
            raise RpcError(INVALID_PARAMS, "tools/call needs a string 'name' and an object 'arguments'.")
        return _finish(message, call_tool(actor, name, dict(arguments or {}), message.version))
    _validated_params(message)
    if method == "initialize":
        return _initialize(message)
    if method == "server/discover":
        return _finish(message, _discover(message))
    if method == "ping":
        return {}
    if method == "tools/list":
        return _finish(message, _list_tools(actor, message))
    raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method}")


# --- tools/call ------------------------------------------------------------------------------------------------------


def _argument_problems(tool: registry.Tool, exc: PydanticValidationError) -> dict[str, str]:
    # The same wording as REST's answers for the same model (apps/core/shapes.py).
    return shapes.problems(tool.input_model, exc, what="argument")


def _plugin_arguments(tool: registry.Tool, arguments: dict[str, Any]) -> dict[str, Any]:
    """Plugin tools bring a JSON Schema: required and unknown top-level arguments are checked here, values by the
    plugin itself."""
    schema = tool.raw_schema or {}
    properties = schema.get("properties") or {}
    problems = {
        name: "This field is required." for name in schema.get("required", []) if name not in arguments
    }
    if schema.get("additionalProperties") is False:
        allowed = ", ".join(sorted(properties)) or "none"
        problems.update(
            {name: f"Unknown argument; allowed: {allowed}." for name in arguments if name not in properties}
        )
    if problems:
        raise ValidationError(details=problems)
    return arguments


# Real arguments nest a few levels (Portable Text inside a field inside data); far deeper nesting only exhausts the
# interpreter's recursion in validation and copying, which would otherwise surface as an internal error.
def tool_error(exc: CmsError) -> dict[str, Any]:
    text = f"[{exc.code}] {exc.message}"
    details = exc.details if isinstance(exc.details, Mapping) else {}
    # A bad value inside the arguments is named by its JSON pointer (/data/title), as the message names the first.
    pointers = getattr(exc, "pointers", {})
    if len(details) > 1 or (details and exc.code != "VALIDATION_ERROR"):
        text += "\n" + "\n".join(f"- {pointers.get(key, key)}: {value}" for key, value in details.items())
    return {
        "content": [{"type": "text", "text": text}],
        "structuredContent": {"error": exc.as_dict()},
        "isError": True,
    }


def _forbidden(exc: Forbidden) -> RpcError:
    details = exc.details if isinstance(exc.details, Mapping) else {}
    if "requiredScope" in details:
        return insufficient_scope(details["requiredScope"])
    if "requiredRole" in details:
        error = insufficient_role(details["requiredRole"])
        error.message = f"Insufficient scope: {exc.message}"
        return error
    return RpcError(INVALID_REQUEST, f"Insufficient scope: {exc.message}")


def call_tool(actor: Actor, name: str, arguments: dict[str, Any], version: str) -> dict[str, Any]:
    tool = registry.get(name)
    if tool is None:
        raise RpcError(INVALID_PARAMS, f"Unknown tool: {name}. tools/list names the available tools.")
    if not actor.has_scope(tool.scope):
        raise insufficient_scope(tool.scope)
    if not actor.has_role(tool.min_role):
        raise insufficient_role(tool.min_role)
    try:
        # The same checks as REST's parser: no NUL text (PostgreSQL cannot store it), no absurd nesting.
        if (problem := json_problem(arguments, root="arguments")) is not None:
            raise ValidationError(details={problem[0]: problem[1]})
        if tool.input_model is not None:
            try:
                args = tool.input_model.model_validate(arguments)
            except PydanticValidationError as exc:
                raise ValidationError(details=_argument_problems(tool, exc)) from None
        else:
            args = _plugin_arguments(tool, arguments)
        value = tool.handler(actor, args)
    except Forbidden as exc:
        raise _forbidden(exc) from None
    except Unauthorized:
        raise RpcError(INVALID_REQUEST, "Insufficient scope: authentication required") from None
    except CmsError as exc:
        if exc.status >= 500:
            logger.error("tool %s failed: %s", name, exc.message, exc_info=True)
        return tool_error(exc)
    except RpcError:
        raise
    except Exception as exc:
        if isinstance(to_cms_error(exc), ServiceUnavailable):
            raise  # the endpoint answers 503 with Retry-After
        logger.exception("tool %s raised", name)
        raise RpcError(INTERNAL_ERROR, "Internal error") from None
    text = orjson.dumps(value).decode()
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": False}
    if version in STRUCTURED_SINCE and isinstance(value, dict):
        # The same JSON, spliced unparsed. structuredContent must be an object: built-in tools always answer one; a
        # plugin tool answering something else gets the text only.
        result["structuredContent"] = orjson.Fragment(text)
    return result
