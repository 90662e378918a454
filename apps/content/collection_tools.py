"""Per-collection tools (issue 23, optional): with ``CMS_MCP_COLLECTION_TOOLS`` on, ``tools/list`` also offers
``content_create_<collection>`` and ``content_update_<collection>`` for every collection, whose ``data`` argument is
the collection's own JSON Schema (``dataSchema`` of schema_get_collection), so a client that follows tool schemas
writes valid entries without a schema lookup first.

They are faces over ``content_create`` and ``content_update`` (same operation, input model, service and answer): the
collection is filled in and the arguments go through the same input model. They are made from the cached schema on
every ``tools/list`` (its ``ttlMs`` is 0), so a schema change reaches clients at their next listing.
"""

from __future__ import annotations

import re
from typing import Any

from django.conf import settings
from pydantic import ValidationError as PydanticValidationError

from apps.content import tools
from apps.content.inputs import ContentCreateIn, ContentUpdateIn
from apps.core import shapes
from apps.core.errors import ValidationError
from apps.mcp import registry
from apps.schema.presenters import data_schema
from apps.schema.selectors import collections_for_read

# Tool names allow letters, digits, _ - . (a collection slug's hyphens stay).
_NAME_SAFE = re.compile(r"[^A-Za-z0-9_.-]")


def _face(model: type[shapes.Input], handler, slug: str):
    def call(actor, arguments: dict[str, Any]):
        try:
            args = model.model_validate({**arguments, "collection": slug})
        except PydanticValidationError as exc:
            raise ValidationError(details=shapes.problems(model, exc, what="argument")) from None
        return handler(actor, args)

    return call


def _schema(base: registry.Tool, data: dict) -> dict:
    schema = {**base.schema, "properties": dict(base.schema["properties"])}
    del schema["properties"]["collection"]
    schema["properties"]["data"] = {
        **data,
        "description": base.schema["properties"]["data"].get("description", ""),
    }
    schema["required"] = [name for name in base.schema.get("required", []) if name != "collection"]
    return schema


def _tool(base: registry.Tool, model, handler, collection, data: dict, verb: str) -> registry.Tool:
    name = _NAME_SAFE.sub("_", f"{base.name}_{collection.slug}")
    return registry.Tool(
        name=name,
        title=f"{verb} {collection.label_singular or collection.label}",
        description=f"{base.description}\n\nThis tool writes to the collection '{collection.slug}' ({collection.label}); "
        "its data argument is the collection's schema.",
        handler=_face(model, handler, collection.slug),
        operation=base.operation,
        raw_schema=_schema(base, data),
        read_only=False,
        destructive=base.destructive,
        idempotent=base.idempotent,
        schema=_schema(base, data),
        output_schema=base.output_schema,
    )


def collection_tools() -> list[registry.Tool]:
    if not settings.CMS_MCP_COLLECTION_TOOLS:
        return []
    create, update = registry.get("content_create"), registry.get("content_update")
    made = []
    for collection in collections_for_read():
        data = data_schema(collection)
        data.pop("$schema")
        # An update sends only what changes, and null clears a field.
        changes = {
            **data,
            "required": [],
            "properties": {
                slug: {"anyOf": [schema, {"type": "null"}]} for slug, schema in data["properties"].items()
            },
        }
        made.append(_tool(create, ContentCreateIn, tools.content_create, collection, data, "Create"))
        made.append(_tool(update, ContentUpdateIn, tools.content_update, collection, changes, "Update"))
    return made


registry.register_provider(collection_tools)
