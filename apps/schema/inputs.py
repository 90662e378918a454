"""What each schema operation takes (SPEC §2.4-2.6, §4.5, §4.11): one model per operation, read by REST and MCP alike.

REST takes a collection's and a field's identity from the path; the tools take it as an argument, so a tool's model is
the identity plus the REST body or query. Slugs, field types, ``supports`` and a field's ``validation`` and
``options`` are checked by the services and the field types, whose messages name what is allowed (the types and keys
of each field type live there, once): the models only document those rules, as ``pattern``, ``enum`` and
descriptions built from the same definitions.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import WithJsonSchema

from apps.core.shapes import Field, Input, Str, Text, choice, partial
from apps.schema.field_types import FIELD_TYPES
from apps.schema.models import DEFAULT_SUPPORTS, SLUG_MAX_LENGTH, SLUG_PATTERN, SUPPORTS


def _keys_by_type(attribute: str) -> str:
    """``string: maxLength, minLength, pattern; integer, number: max, min; …`` from the field types themselves."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for name, field_type in FIELD_TYPES.items():
        keys = tuple(sorted(getattr(field_type, attribute)))
        if keys:
            groups.setdefault(keys, []).append(name)
    return "; ".join(f"{', '.join(names)}: {', '.join(keys)}" for keys, names in groups.items())


# An object whose keys depend on the field's type: the field type checks them and names the keys it takes.
Definition = Annotated[Any, WithJsonSchema({"type": "object"})]
ClearableDefinition = Annotated[Any, WithJsonSchema({"type": ["object", "null"]})]
# A value of the field's type, which the field type checks: any JSON value (null: none).
DefaultValue = Annotated[
    Any, WithJsonSchema({"type": ["string", "number", "integer", "boolean", "object", "array", "null"]})
]

VALIDATION_HELP = (
    f"Rules for values, by type ({_keys_by_type('validation_keys')}). min and max: numbers, or ISO 8601 "
    "date-times for datetime; pattern: a regular expression; options: the allowed values (required for select and "
    "multiSelect). Keys that do not apply to the type are refused."
)
OPTIONS_HELP = (
    f"Editor and reference settings, by type ({_keys_by_type('option_keys')}). collection: the target collection's "
    "slug (required for reference); allowMultiple: an array of ids instead of one; rows: editor rows; showPreview: "
    "show a preview in the admin."
)


class NoArguments(Input):
    pass


class CollectionSlugIn(Input):
    slug: Str = Field(max_length=SLUG_MAX_LENGTH, description="The collection's slug.")


class CollectionCreateIn(Input):
    slug: Str = Field(
        max_length=SLUG_MAX_LENGTH,
        description="Lowercase letters, digits and _, starting with a letter; at most 63; e.g. blog_posts.",
        json_schema_extra={"pattern": SLUG_PATTERN},
    )
    # Text, not Str: the service's message for a blank label says what the label is.
    label: Text = Field(max_length=200, description="Plural display name, e.g. 'Blog posts'.")
    labelSingular: Text = Field(None, max_length=200)
    description: Text = Field(None)
    icon: Text = Field(None, max_length=100, description="An icon name for the admin UI.")
    supports: list[Str] = Field(
        list(DEFAULT_SUPPORTS),
        description="Features: drafts, revisions, preview, scheduling, search (search makes it searchable).",
        json_schema_extra={"items": {"type": "string", "enum": list(SUPPORTS)}},
    )
    urlPattern: Text | None = Field(
        None,
        max_length=300,
        description="Where entries live on the front end, a path with {slug}, {locale} and {id}, e.g. /blog/{slug}: "
        "entries then carry `url`. Empty or null: none.",
    )
    previewUrl: Text | None = Field(
        None,
        max_length=2000,
        description="The front end's route that shows a draft, with {token} and optionally {url}, {id}, {slug}, "
        "{locale}, e.g. https://site.example/api/preview?token={token}&path={url}. Empty or null: none.",
    )
    public: bool = Field(
        False,
        description="Published entries (and search, menus, terms, sections, widgets and settings) readable without "
        "a token, with public caching headers; drafts stay private (docs/delivery.md).",
    )


class CollectionUpdateIn(partial(CollectionCreateIn)):
    """PATCH and PUT both change only the keys sent."""

    slug: Str = Field(
        None, max_length=SLUG_MAX_LENGTH, description="Cannot change; accepted only when equal."
    )


class CollectionChangeIn(CollectionUpdateIn):
    """The tool's update: the collection's slug names it; the other keys are the REST PATCH body."""

    slug: Str = Field(max_length=SLUG_MAX_LENGTH, description="The collection's slug (it cannot change).")


class CollectionGetQuery(Input):
    includeFields: bool = Field(False, description="Include the field definitions, in order.")


class CollectionDeleteQuery(Input):
    force: bool = Field(
        False, description="Delete even when the collection has entries (they are deleted too)."
    )


# pydantic orders inherited fields from the last base to the first: the identity comes first.
class CollectionDeleteIn(CollectionDeleteQuery, CollectionSlugIn):
    pass


class FieldDefinitionIn(Input):
    slug: Str = Field(
        max_length=SLUG_MAX_LENGTH,
        description="The key of the field's value in entry data: lowercase letters, digits and _, starting with a "
        "letter; not a reserved name (id, slug, status …).",
        json_schema_extra={"pattern": SLUG_PATTERN},
    )
    # Text, not Str: the service's message for a blank label says what the label is.
    label: Text = Field(max_length=200)
    type: Str = Field(
        description="The field's type; it decides which validation and options keys apply.",
        json_schema_extra={"enum": list(FIELD_TYPES)},
    )
    required: bool = False
    unique: bool = Field(False, description="No two entries may have the same value (single-value types).")
    defaultValue: DefaultValue = Field(None, description="The value new entries get when none is given.")
    validation: Definition = Field(None, description=VALIDATION_HELP)
    widget: Text = Field(
        None, max_length=100, description="The admin editor to use, when not the type's own."
    )
    options: Definition = Field(None, description=OPTIONS_HELP)
    sortOrder: int = Field(None, description="Position among the fields; last when omitted.")
    searchable: bool = Field(False, description="Include the field in the full-text index (text types only).")
    translatable: bool = Field(True, description="False: translations share this field's value.")


class FieldUpdateIn(partial(FieldDefinitionIn)):
    """PATCH and PUT both change only the keys sent; ``validation``, ``options`` and ``widget`` may be null (none)."""

    slug: Str = Field(
        None, max_length=SLUG_MAX_LENGTH, description="Cannot change; accepted only when equal."
    )
    validation: ClearableDefinition = Field(None, description=VALIDATION_HELP)
    widget: Text | None = Field(None, max_length=100)
    options: ClearableDefinition = Field(None, description=OPTIONS_HELP)


class CollectionRefIn(Input):
    collection: Str = Field(max_length=SLUG_MAX_LENGTH, description="The collection's slug.")


class FieldCreateIn(FieldDefinitionIn, CollectionRefIn):
    pass


class FieldRefIn(CollectionRefIn):
    fieldSlug: Str = Field(max_length=SLUG_MAX_LENGTH, description="The field's slug.")


class FieldDeleteIn(FieldRefIn):
    pass


# pydantic orders inherited fields from the last base to the first: the identity comes first.
class FieldChangeIn(FieldUpdateIn, FieldRefIn):
    """The tool's update: collection and fieldSlug name the field; the other keys are the REST PATCH body."""


class FieldReorderIn(Input):
    fieldSlugs: list[Str] = Field(
        min_length=1,
        description="Slugs of the fields to put first, in order; the others follow as they were.",
    )


class SchemaExportQuery(Input):
    format: choice("json", "typescript") = Field(  # type: ignore[valid-type]
        "json",
        description="typescript: TypeScript interfaces, one per collection (as Accept: text/typescript).",
    )


WIRE_TO_MODEL = {
    "labelSingular": "label_singular",
    "defaultValue": "default_value",
    "sortOrder": "sort_order",
    "urlPattern": "url_pattern",
    "previewUrl": "preview_url",
}


def to_model_names(values: dict) -> dict:
    """Wire names to the services' names."""
    return {WIRE_TO_MODEL.get(key, key): value for key, value in values.items()}
