"""MCP tools for collections and fields (SPEC §4.11): the schema selectors and services, the schema shapes."""

from __future__ import annotations

from apps.core.presenters import SUCCESS, SuccessFlagOut
from apps.mcp.registry import tool
from apps.schema import selectors, services
from apps.schema.inputs import (
    CollectionChangeIn,
    CollectionCreateIn,
    CollectionDeleteIn,
    CollectionSlugIn,
    FieldChangeIn,
    FieldCreateIn,
    FieldDeleteIn,
    NoArguments,
    to_model_names,
)
from apps.schema.presenters import (
    CollectionListOut,
    CollectionOut,
    CollectionWithSchemaOut,
    FieldOut,
    present_collection,
    present_collection_with_schema,
    present_collections,
    present_field,
)


@tool(
    "schema_list_collections",
    title="List collections",
    operation="schema.read",
    input=NoArguments,
    read_only=True,
    output=CollectionListOut,
)
def schema_list_collections(actor, args: NoArguments) -> CollectionListOut:
    """List every collection (content type): slug, label, supports and timestamps.

    Returns {items, nextCursor} (all collections at once; nextCursor is always null). schema_get_collection gives a
    collection's fields, which content_create and content_update expect in data.
    """
    return present_collections(selectors.collection_list(actor=actor))


@tool(
    "schema_get_collection",
    title="Get a collection with its fields",
    operation="schema.read",
    input=CollectionSlugIn,
    read_only=True,
    output=CollectionWithSchemaOut,
)
def schema_get_collection(actor, args: CollectionSlugIn) -> CollectionWithSchemaOut:
    """Get a collection with all its field definitions (slug, label, type, required, validation, options …) and
    dataSchema, the JSON Schema of an entry's data.

    Use it before writing entries: data keys are the field slugs, and values must fit dataSchema. A refused value is
    named by its JSON pointer (/data/<field>/…) in the error's message and pointers.
    """
    return present_collection_with_schema(selectors.collection_read(actor=actor, slug=args.slug))


@tool(
    "schema_create_collection",
    title="Create a collection",
    operation="schema.write",
    input=CollectionCreateIn,
    output=CollectionOut,
)
def schema_create_collection(actor, args: CollectionCreateIn) -> CollectionOut:
    """Create a collection (a content type) and its storage. Add fields with schema_create_field.

    Returns the collection with its (empty) field list. A taken slug is [DUPLICATE_SLUG].
    """
    collection = services.collection_create(actor=actor, **to_model_names(args.values()))
    return present_collection(collection, with_fields=True)


@tool(
    "schema_update_collection",
    title="Update a collection",
    operation="schema.write",
    input=CollectionChangeIn,
    output=CollectionOut,
)
def schema_update_collection(actor, args: CollectionChangeIn) -> CollectionOut:
    """Change a collection's labels, description, icon, supports, urlPattern, previewUrl or public flag (only the
    keys sent; null clears urlPattern and previewUrl). An unknown placeholder in a template is [VALIDATION_ERROR]
    naming it. ``public``: its published entries become readable without a token, with public caching (drafts stay
    private).

    Returns the collection with its fields. The slug cannot change.
    """
    changes = to_model_names(args.values())
    collection = selectors.collection_get(slug=changes.pop("slug"), with_fields=False)
    services.collection_update(actor=actor, collection=collection, changes=changes)
    return present_collection(selectors.collection_get(slug=collection.slug), with_fields=True)


@tool(
    "schema_delete_collection",
    title="Delete a collection",
    operation="schema.write",
    input=CollectionDeleteIn,
    destructive=True,
    output=SuccessFlagOut,
)
def schema_delete_collection(actor, args: CollectionDeleteIn) -> SuccessFlagOut:
    """Delete a collection, its fields and all of its content. Refused ([SCHEMA_ERROR]) while it has entries
    unless force is true. Irreversible. Returns {success: true}."""
    collection = selectors.collection_get(slug=args.slug, with_fields=False)
    services.collection_delete(actor=actor, collection=collection, force=args.force)
    return SUCCESS


@tool(
    "schema_create_field",
    title="Add a field",
    operation="schema.write",
    input=FieldCreateIn,
    output=FieldOut,
)
def schema_create_field(actor, args: FieldCreateIn) -> FieldOut:
    """Add a field to a collection. select and multiSelect fields need validation.options (the allowed values);
    reference fields need options.collection. Reserved slugs (id, slug, status, …) are [RESERVED_SLUG].

    Returns the field definition.
    """
    definition = args.values()
    collection = selectors.collection_get(slug=definition.pop("collection"))
    field = services.field_create(actor=actor, collection=collection, definition=to_model_names(definition))
    return present_field(field)


@tool(
    "schema_update_field",
    title="Update a field",
    operation="schema.write",
    input=FieldChangeIn,
    destructive=True,
    output=FieldOut,
)
def schema_update_field(actor, args: FieldChangeIn) -> FieldOut:
    """Change a field's label, required, unique, defaultValue, validation, options, widget, sortOrder, searchable or
    translatable (only the keys sent; null clears validation, options and widget). The slug cannot change.

    A new type converts every stored value (drafts, published versions and the trash); if some value cannot become
    the new type nothing changes and [SCHEMA_ERROR] names the entries. unique with shared values is [SCHEMA_ERROR].
    Returns the field definition.
    """
    changes = args.values()
    collection = selectors.collection_get(slug=changes.pop("collection"))
    field = selectors.field_get(collection=collection, slug=changes.pop("fieldSlug"))
    return present_field(services.field_update(actor=actor, field=field, changes=to_model_names(changes)))


@tool(
    "schema_delete_field",
    title="Remove a field",
    operation="schema.write",
    input=FieldDeleteIn,
    destructive=True,
    output=SuccessFlagOut,
)
def schema_delete_field(actor, args: FieldDeleteIn) -> SuccessFlagOut:
    """Remove a field from a collection and drop its values from every entry. Irreversible. Returns {success: true}."""
    field = selectors.field_get(
        collection=selectors.collection_get(slug=args.collection), slug=args.fieldSlug
    )
    services.field_delete(actor=actor, field=field)
    return SUCCESS
