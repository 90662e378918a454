"""Schema shapes on the wire (camelCase), their presenters, and the OpenAPI documentation of both."""

from __future__ import annotations

from rest_framework import serializers

from apps.core.timefmt import iso
from apps.schema.field_types import FIELD_TYPES
from apps.schema.models import SUPPORTS, Collection, Field

# --- input -----------------------------------------------------------------------------------------------------------


class CollectionCreateIn(serializers.Serializer):
    slug = serializers.CharField(max_length=100, help_text="^[a-z][a-z0-9_]*$")
    label = serializers.CharField(max_length=200, allow_blank=True, help_text="Plural display name.")
    labelSingular = serializers.CharField(max_length=200, required=False, allow_blank=True)
    description = serializers.CharField(required=False, allow_blank=True)
    icon = serializers.CharField(max_length=100, required=False, allow_blank=True)
    supports = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text=f"Any of {', '.join(SUPPORTS)}; default drafts, revisions.",
    )


class CollectionUpdateIn(serializers.Serializer):
    """PATCH and PUT both change only the keys sent."""

    slug = serializers.CharField(required=False, help_text="Cannot change; accepted only when equal.")
    label = serializers.CharField(max_length=200, required=False, allow_blank=True)
    labelSingular = serializers.CharField(max_length=200, required=False, allow_blank=True)
    description = serializers.CharField(required=False, allow_blank=True)
    icon = serializers.CharField(max_length=100, required=False, allow_blank=True)
    supports = serializers.ListField(child=serializers.CharField(), required=False)


class CollectionGetQuery(serializers.Serializer):
    includeFields = serializers.BooleanField(required=False, default=False)


class CollectionDeleteQuery(serializers.Serializer):
    force = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Delete even when the collection has entries (they are deleted too).",
    )


class FieldCreateIn(serializers.Serializer):
    slug = serializers.CharField(max_length=100, help_text="^[a-z][a-z0-9_]*$, not a reserved name.")
    label = serializers.CharField(max_length=200, allow_blank=True)
    type = serializers.CharField(help_text=f"One of {', '.join(FIELD_TYPES)}.")
    required = serializers.BooleanField(required=False, default=False)
    unique = serializers.BooleanField(required=False, default=False)
    defaultValue = serializers.JSONField(required=False, allow_null=True)
    validation = serializers.JSONField(
        required=False, help_text="min, max, minLength, maxLength, pattern, options."
    )
    widget = serializers.CharField(max_length=100, required=False, allow_blank=True)
    options = serializers.JSONField(required=False, help_text="collection, rows, allowMultiple, showPreview.")
    sortOrder = serializers.IntegerField(required=False)
    searchable = serializers.BooleanField(required=False, default=False)
    translatable = serializers.BooleanField(required=False, default=True)


class FieldUpdateIn(serializers.Serializer):
    """PATCH and PUT both change only the keys sent; the slug cannot change."""

    slug = serializers.CharField(required=False, help_text="Cannot change; accepted only when equal.")
    label = serializers.CharField(max_length=200, required=False, allow_blank=True)
    type = serializers.CharField(required=False)
    required = serializers.BooleanField(required=False)
    unique = serializers.BooleanField(required=False)
    defaultValue = serializers.JSONField(required=False, allow_null=True)
    validation = serializers.JSONField(required=False, allow_null=True)
    widget = serializers.CharField(max_length=100, required=False, allow_blank=True, allow_null=True)
    options = serializers.JSONField(required=False, allow_null=True)
    sortOrder = serializers.IntegerField(required=False)
    searchable = serializers.BooleanField(required=False)
    translatable = serializers.BooleanField(required=False)


class FieldReorderIn(serializers.Serializer):
    fieldSlugs = serializers.ListField(child=serializers.CharField(), allow_empty=False)


class SchemaExportQuery(serializers.Serializer):
    format = serializers.ChoiceField(choices=["json", "typescript"], required=False, default="json")


WIRE_TO_MODEL = {
    "labelSingular": "label_singular",
    "defaultValue": "default_value",
    "sortOrder": "sort_order",
}


def to_model_names(body: dict) -> dict:
    return {WIRE_TO_MODEL.get(key, key): value for key, value in body.items()}


# --- output ----------------------------------------------------------------------------------------------------------


class FieldOut(serializers.Serializer):
    id = serializers.CharField()
    slug = serializers.CharField()
    label = serializers.CharField()
    type = serializers.CharField()
    required = serializers.BooleanField()
    unique = serializers.BooleanField()
    defaultValue = serializers.JSONField(allow_null=True)
    validation = serializers.JSONField()
    widget = serializers.CharField(allow_blank=True)
    options = serializers.JSONField()
    sortOrder = serializers.IntegerField()
    searchable = serializers.BooleanField()
    translatable = serializers.BooleanField()
    createdAt = serializers.DateTimeField()
    updatedAt = serializers.DateTimeField()


class CollectionOut(serializers.Serializer):
    id = serializers.CharField()
    slug = serializers.CharField()
    label = serializers.CharField()
    labelSingular = serializers.CharField(allow_blank=True)
    description = serializers.CharField(allow_blank=True)
    icon = serializers.CharField(allow_blank=True)
    supports = serializers.ListField(child=serializers.CharField())
    createdAt = serializers.DateTimeField()
    updatedAt = serializers.DateTimeField()
    fields = FieldOut(many=True, required=False, help_text="With includeFields=true.")


class CollectionListOut(serializers.Serializer):
    items = CollectionOut(many=True)


class FieldListOut(serializers.Serializer):
    items = FieldOut(many=True)


class SchemaOut(serializers.Serializer):
    collections = CollectionOut(many=True, help_text="Every collection with its fields.")


def present_field(field: Field) -> dict:
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


def present_collection(collection: Collection, *, with_fields: bool = False) -> dict:
    data = {
        "id": collection.pk,
        "slug": collection.slug,
        "label": collection.label,
        "labelSingular": collection.label_singular,
        "description": collection.description,
        "icon": collection.icon,
        "supports": list(collection.supports),
        "createdAt": iso(collection.created_at),
        "updatedAt": iso(collection.updated_at),
    }
    if with_fields:
        data["fields"] = [present_field(field) for field in collection.fields.all()]
    return data
