"""Collections and fields as every face shows them (SPEC §2.4-2.6, §4.5): each shape once, with the function that
builds it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any, Literal, NotRequired

from pydantic import Field as Doc

from apps.core.shapes import Timestamp, TypedDict
from apps.core.timefmt import iso
from apps.schema.field_types import FIELD_TYPES
from apps.schema.models import SUPPORTS, Collection, Field

FieldTypeName = Literal[tuple(FIELD_TYPES)]  # type: ignore[valid-type]
Feature = Literal[SUPPORTS]  # type: ignore[valid-type]


class FieldOut(TypedDict):
    id: str
    slug: Annotated[str, Doc(description="The key of the field's value in entry data.")]
    label: str
    type: FieldTypeName
    required: bool
    unique: bool
    defaultValue: Annotated[
        Any, Doc(description="The value new entries get when none is given; null for none.")
    ]
    validation: Annotated[dict[str, Any], Doc(description="Rules for values ({} for none).")]
    widget: Annotated[str, Doc(description="The admin editor; empty for the type's own.")]
    options: Annotated[dict[str, Any], Doc(description="Editor and reference settings ({} for none).")]
    sortOrder: int
    searchable: bool
    translatable: bool
    createdAt: Timestamp
    updatedAt: Timestamp


class CollectionOut(TypedDict):
    id: str
    slug: str
    label: str
    labelSingular: str
    description: str
    icon: str
    supports: list[Feature]
    urlPattern: Annotated[
        str | None, Doc(description="Where entries live on the front end, e.g. /blog/{slug}; null for none.")
    ]
    previewUrl: Annotated[
        str | None, Doc(description="The front end's draft preview route with {token}; null for none.")
    ]
    public: Annotated[
        bool,
        Doc(
            description="Published entries are readable without a token, with public caching (docs/delivery.md)."
        ),
    ]
    createdAt: Timestamp
    updatedAt: Timestamp
    fields: NotRequired[
        Annotated[
            list[FieldOut],
            Doc(
                description="The field definitions in order: with includeFields=true, in the answers to writes and "
                "in the export."
            ),
        ]
    ]


class CollectionWithSchemaOut(CollectionOut):
    dataSchema: Annotated[
        dict[str, Any],
        Doc(
            description="The JSON Schema (2020-12) of an entry's data as content_create takes it: each field's type, "
            "required fields, select options as enums, length and number bounds; portableText fields take Markdown "
            "text or Portable Text blocks. content_update takes the same fields, none of them required."
        ),
    ]


class CollectionListOut(TypedDict):
    items: list[CollectionOut]
    nextCursor: Annotated[None, Doc(description="Always null: every collection comes at once.")]


class FieldListOut(TypedDict):
    items: Annotated[list[FieldOut], Doc(description="The collection's fields in order.")]


class SchemaOut(TypedDict):
    collections: Annotated[list[CollectionOut], Doc(description="Every collection with its fields.")]


def present_field(field: Field) -> FieldOut:
    return {
        "id": field.pk,
        "slug": field.slug,
        "label": field.label,
        "type": field.type,
        "required": field.required,
        "unique": field.unique,
        "defaultValue": field.default_value,
        "validation": field.validation or {},
        "widget": field.widget,
        "options": field.options or {},
        "sortOrder": field.sort_order,
        "searchable": field.searchable,
        "translatable": field.translatable,
        "createdAt": iso(field.created_at),
        "updatedAt": iso(field.updated_at),
    }


def present_fields(fields: Iterable[Field]) -> FieldListOut:
    return {"items": [present_field(field) for field in fields]}


def present_collection(collection: Collection, *, with_fields: bool = False) -> CollectionOut:
    data: CollectionOut = {
        "id": collection.pk,
        "slug": collection.slug,
        "label": collection.label,
        "labelSingular": collection.label_singular,
        "description": collection.description,
        "icon": collection.icon,
        "supports": list(collection.supports),
        "urlPattern": collection.url_pattern or None,
        "previewUrl": collection.preview_url or None,
        "public": collection.public,
        "createdAt": iso(collection.created_at),
        "updatedAt": iso(collection.updated_at),
    }
    if with_fields:
        data["fields"] = [present_field(field) for field in collection.fields.all()]
    return data


MARKDOWN_TEXT = {"type": "string", "description": "Markdown, converted to Portable Text."}


def data_schema(collection: Collection) -> dict[str, Any]:
    """The JSON Schema of an entry's data, from each field's type (the same types that validate the values)."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    for field in collection.fields.all():
        schema = FIELD_TYPES[field.type].json_schema(
            validation=field.validation or {}, options=field.options or {}
        )
        if field.type == "portableText":
            schema = {"anyOf": [MARKDOWN_TEXT, schema]}
        properties[field.slug] = {"title": field.label, **schema}
        if field.required:
            required.append(field.slug)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def present_collection_with_schema(collection: Collection) -> CollectionWithSchemaOut:
    return {**present_collection(collection, with_fields=True), "dataSchema": data_schema(collection)}


def present_collections(collections: Iterable[Collection]) -> CollectionListOut:
    return {"items": [present_collection(collection) for collection in collections], "nextCursor": None}


def present_schema(collections: Iterable[Collection]) -> SchemaOut:
    return {"collections": [present_collection(collection, with_fields=True) for collection in collections]}
