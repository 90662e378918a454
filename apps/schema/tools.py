"""MCP tools for collections and fields (SPEC §4.11), over the schema services and REST's presenters."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from apps.accounts.models import Role
from apps.mcp.registry import ToolInput, tool
from apps.schema import selectors, services
from apps.schema.api.serializers import present_collection, present_field, to_model_names
from apps.schema.field_types import FIELD_TYPES
from apps.schema.models import DEFAULT_SUPPORTS, SUPPORTS

SLUG = r"^[a-z][a-z0-9_]*$"
Supports = Literal[SUPPORTS]  # type: ignore[valid-type]
FieldType = Literal[tuple(FIELD_TYPES)]  # type: ignore[valid-type]


class Empty(ToolInput):
    pass


@tool(
    "schema_list_collections",
    title="List collections",
    scope="schema:read",
    min_role=Role.EDITOR,
    input=Empty,
    read_only=True,
)
def schema_list_collections(actor, args: Empty) -> dict:
    """List every collection (content type): slug, label, supports and timestamps.

    Returns {items, nextCursor} (all collections at once; nextCursor is always null). schema_get_collection gives a
    collection's fields, which content_create and content_update expect in data.
    """
    return {
        "items": [present_collection(collection) for collection in selectors.collection_list()],
        "nextCursor": None,
    }


class CollectionSlugIn(ToolInput):
    slug: str = Field(min_length=1, max_length=100, description="The collection's slug.")


@tool(
    "schema_get_collection",
    title="Get a collection with its fields",
    scope="schema:read",
    min_role=Role.EDITOR,
    input=CollectionSlugIn,
    read_only=True,
)
def schema_get_collection(actor, args: CollectionSlugIn) -> dict:
    """Get a collection with all its field definitions (slug, label, type, required, validation, options …).

    Use it before writing entries: data keys are the field slugs, and values must fit each field's type.
    """
    return present_collection(selectors.collection_get(slug=args.slug), with_fields=True)


class CollectionCreateIn(ToolInput):
    slug: str = Field(
        pattern=SLUG, max_length=100, description="Lowercase letters, digits and _; e.g. blog_posts."
    )
    label: str = Field(min_length=1, max_length=200, description="Plural display name, e.g. 'Blog posts'.")
    labelSingular: str = Field(None, max_length=200)
    description: str = None
    icon: str = Field(None, max_length=100, description="An icon name for the admin UI.")
    supports: list[Supports] = Field(
        default=list(DEFAULT_SUPPORTS),
        description="Features: drafts, revisions, preview, scheduling, search (search makes it searchable).",
    )


@tool(
    "schema_create_collection",
    title="Create a collection",
    scope="schema:write",
    min_role=Role.ADMIN,
    input=CollectionCreateIn,
)
def schema_create_collection(actor, args: CollectionCreateIn) -> dict:
    """Create a collection (a content type) and its storage. Add fields with schema_create_field.

    Returns the collection with its (empty) field list. A taken slug is [DUPLICATE_SLUG].
    """
    collection = services.collection_create(actor=actor, **to_model_names(args.model_dump(exclude_none=True)))
    return present_collection(collection, with_fields=True)


class CollectionDeleteIn(CollectionSlugIn):
    force: bool = Field(
        False, description="Delete even when the collection has entries (they are deleted too)."
    )


@tool(
    "schema_delete_collection",
    title="Delete a collection",
    scope="schema:write",
    min_role=Role.ADMIN,
    input=CollectionDeleteIn,
    destructive=True,
)
def schema_delete_collection(actor, args: CollectionDeleteIn) -> dict:
    """Delete a collection, its fields and all of its content. Refused ([SCHEMA_ERROR]) while it has entries
    unless force is true. Irreversible. Returns {success: true}."""
    collection = selectors.collection_get(slug=args.slug, with_fields=False)
    services.collection_delete(actor=actor, collection=collection, force=args.force)
    return {"success": True}


class Validation(ToolInput):
    min: int | float | str = Field(None, description="Smallest number, or earliest datetime (ISO 8601).")
    max: int | float | str = Field(None, description="Largest number, or latest datetime (ISO 8601).")
    minLength: int = Field(None, ge=0)
    maxLength: int = Field(None, ge=0)
    pattern: str = Field(None, description="A regular expression string values must match.")
    options: list[str] = Field(None, description="The allowed values of select and multiSelect fields.")


class Options(ToolInput):
    collection: str = Field(None, description="reference fields: the target collection's slug.")
    rows: int = Field(None, ge=1, description="text fields: editor rows.")
    allowMultiple: bool = Field(None, description="reference fields: an array of ids instead of one.")
    showPreview: bool = Field(None, description="image fields: show a preview in the admin.")


class FieldCreateIn(ToolInput):
    collection: str = Field(min_length=1, max_length=100, description="The collection's slug.")
    slug: str = Field(pattern=SLUG, max_length=100, description="The key of the field's value in entry data.")
    label: str = Field(min_length=1, max_length=200)
    type: FieldType
    required: bool = False
    unique: bool = False
    defaultValue: Any = Field(None, description="The value new entries get when none is given.")
    validation: Validation = None
    options: Options = None
    searchable: bool = Field(False, description="Include the field in the full-text index.")
    translatable: bool = Field(True, description="False: translations share this field's value.")


@tool(
    "schema_create_field",
    title="Add a field",
    scope="schema:write",
    min_role=Role.ADMIN,
    input=FieldCreateIn,
)
def schema_create_field(actor, args: FieldCreateIn) -> dict:
    """Add a field to a collection. select and multiSelect fields need validation.options (the allowed values);
    reference fields need options.collection. Reserved slugs (id, slug, status, …) are [RESERVED_SLUG].

    Returns the field definition.
    """
    collection = selectors.collection_get(slug=args.collection)
    definition = args.model_dump(exclude_unset=True, exclude={"collection"})
    for nested in ("validation", "options"):
        if definition.get(nested) is not None:
            definition[nested] = {
                key: value for key, value in definition[nested].items() if value is not None
            }
    field = services.field_create(actor=actor, collection=collection, definition=to_model_names(definition))
    return present_field(field)


class FieldDeleteIn(ToolInput):
    collection: str = Field(min_length=1, max_length=100, description="The collection's slug.")
    fieldSlug: str = Field(min_length=1, max_length=100)


@tool(
    "schema_delete_field",
    title="Remove a field",
    scope="schema:write",
    min_role=Role.ADMIN,
    input=FieldDeleteIn,
    destructive=True,
)
def schema_delete_field(actor, args: FieldDeleteIn) -> dict:
    """Remove a field from a collection and drop its values from every entry. Irreversible. Returns {success: true}."""
    field = selectors.field_get(
        collection=selectors.collection_get(slug=args.collection), slug=args.fieldSlug
    )
    services.field_delete(actor=actor, field=field)
    return {"success": True}
