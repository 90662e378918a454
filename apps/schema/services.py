"""Writes to the schema: collections and their fields, changed at run time.

Each change is one transaction. What other apps keep for a field (content data, generated indexes, the search index)
follows through events sent inside that transaction (apps/core/events.py), so a refusal there (a type change that
some stored value cannot take, a unique flag over duplicate values) undoes the whole change.
"""

from __future__ import annotations

import re
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Max

from apps.accounts.permissions import Actor, authorize
from apps.core import events
from apps.core.errors import DuplicateSlug, ReservedSlug, ValidationError
from apps.core.ids import new_id
from apps.schema import addresses, selectors
from apps.schema.field_types import FIELD_TYPES, FieldValueError, ValueContext
from apps.schema.models import (
    RESERVED_FIELD_SLUGS,
    SLUG_MAX_LENGTH,
    SLUG_PATTERN,
    SUPPORTS,
    Collection,
    Field,
    SchemaVersion,
)

SLUG_RE = re.compile(SLUG_PATTERN)
SLUG_HINT = "Use lowercase letters, digits and underscores, starting with a letter (^[a-z][a-z0-9_]*$)."
SEARCHABLE_TYPES = frozenset({"string", "text", "slug", "select", "multiSelect", "portableText"})
COLLECTION_ATTRIBUTES = (
    "label",
    "label_singular",
    "description",
    "icon",
    "supports",
    "url_pattern",
    "preview_url",
    "public",
)
FIELD_ATTRIBUTES = (
    "label",
    "type",
    "required",
    "unique",
    "default_value",
    "validation",
    "widget",
    "options",
    "sort_order",
    "searchable",
    "translatable",
)


def _schema_changed() -> None:
    """Invalidate every process's cached schema (apps/schema/selectors.py), within the writer's transaction."""
    if not SchemaVersion.objects.filter(pk=1).update(token=new_id()):
        SchemaVersion.objects.create(pk=1, token=new_id())
    selectors.forget_cached_schema()


def schema_changed() -> None:
    """For other apps whose data is cached with the schema (``selectors.schema_cached``): call inside the write."""
    _schema_changed()


def slug_problem(slug: Any) -> str | None:
    """What is wrong with a collection or field slug, or None (also for callers that check a slug ahead of time)."""
    if not isinstance(slug, str) or not SLUG_RE.match(slug):
        return SLUG_HINT
    if len(slug) > SLUG_MAX_LENGTH:
        return f"At most {SLUG_MAX_LENGTH} characters."
    return None


def _check_supports(supports: Any) -> dict[str, str]:
    if not isinstance(supports, list) or not all(isinstance(item, str) for item in supports):
        return {"supports": f"Expected a list drawn from: {', '.join(SUPPORTS)}."}
    unknown = [item for item in supports if item not in SUPPORTS]
    if unknown:
        return {"supports": f"Unknown value(s) {', '.join(unknown)}; allowed: {', '.join(SUPPORTS)}."}
    return {}


def _check_addresses(values: dict[str, Any]) -> dict[str, str]:
    """The delivery templates (apps/schema/addresses.py), named by their wire names; None clears one."""
    problems = {}
    for name, wire, check in (
        ("url_pattern", "urlPattern", addresses.url_pattern_problem),
        ("preview_url", "previewUrl", addresses.preview_url_problem),
    ):
        value = values.get(name)
        if value is not None and (problem := check(value.strip())):
            problems[wire] = problem
    return problems


@transaction.atomic
def collection_create(
    *,
    actor: Actor,
    slug: str,
    label: str,
    label_singular: str = "",
    description: str = "",
    icon: str = "",
    supports: list[str] | None = None,
    url_pattern: str | None = None,
    preview_url: str | None = None,
    public: bool = False,
) -> Collection:
    authorize(actor, "schema.write")
    _schema_changed()
    problems: dict[str, str] = {}
    if problem := slug_problem(slug):
        problems["slug"] = problem
    if not label or not label.strip():
        problems["label"] = "Required: the plural display name, e.g. 'Blog posts'."
    if supports is not None:
        problems.update(_check_supports(supports))
    problems.update(_check_addresses({"url_pattern": url_pattern, "preview_url": preview_url}))
    if problems:
        raise ValidationError(details=problems)
    if Collection.objects.filter(slug=slug).exists():
        raise DuplicateSlug(
            f"A collection with the slug '{slug}' already exists.", details={"slug": "Already taken."}
        )
    try:
        with transaction.atomic():
            collection = Collection.objects.create(
                slug=slug,
                label=label.strip(),
                label_singular=(label_singular or "").strip(),
                description=description or "",
                icon=icon or "",
                supports=list(dict.fromkeys(supports)) if supports is not None else ["drafts", "revisions"],
                url_pattern=(url_pattern or "").strip(),
                preview_url=(preview_url or "").strip(),
                public=bool(public),
            )
    except IntegrityError:
        # Another request created it between our check and our insert.
        raise DuplicateSlug(
            f"A collection with the slug '{slug}' already exists.", details={"slug": "Already taken."}
        ) from None
    events.collection_changed.send(sender=Collection, collection=collection, action="create", actor=actor)
    return collection


@transaction.atomic
def collection_update(*, actor: Actor, collection: Collection, changes: dict[str, Any]) -> Collection:
    """Change a collection's presentation and features. The slug is its identity and cannot change."""
    authorize(actor, "schema.write")
    _schema_changed()
    if "slug" in changes and changes["slug"] != collection.slug:
        raise ValidationError(
            details={"slug": "A collection's slug cannot be changed; create a new collection."}
        )
    problems: dict[str, str] = {}
    if "label" in changes and (not changes["label"] or not str(changes["label"]).strip()):
        problems["label"] = "Must not be empty."
    if "supports" in changes:
        problems.update(_check_supports(changes["supports"]))
    problems.update(_check_addresses(changes))
    if "public" in changes and not isinstance(changes["public"], bool):
        problems["public"] = "Expected true or false."
    if problems:
        raise ValidationError(details=problems)
    collection = Collection.objects.select_for_update().get(pk=collection.pk)
    searched_before = collection.supports_feature("search")
    pattern_before = collection.url_pattern
    for name in COLLECTION_ATTRIBUTES:
        if name in changes:
            value = changes[name]
            if name == "supports":
                value = list(dict.fromkeys(value))
            elif isinstance(value, str):
                value = (
                    value.strip()
                    if name in ("label", "label_singular", "url_pattern", "preview_url")
                    else value
                )
            setattr(collection, name, value if value is not None else "")
    collection.save()
    if collection.supports_feature("search") != searched_before:
        events.collection_search_changed.send(sender=Collection, collection=collection, actor=actor)
    if collection.url_pattern != pattern_before:
        events.collection_url_changed.send(
            sender=Collection, collection=collection, previous_pattern=pattern_before, actor=actor
        )
    events.collection_changed.send(sender=Collection, collection=collection, action="update", actor=actor)
    return collection


@transaction.atomic
def collection_delete(*, actor: Actor, collection: Collection, force: bool = False) -> None:
    """Delete a collection, its fields and (with ``force``, or when it has none) all of its entries."""
    authorize(actor, "schema.write")
    _schema_changed()
    events.collection_deleting.send(sender=Collection, collection=collection, force=force, actor=actor)
    collection.delete()


def _field_problems(collection: Collection, definition: dict[str, Any], *, creating: bool) -> dict[str, str]:
    problems: dict[str, str] = {}
    if creating:
        slug = definition.get("slug")
        if problem := slug_problem(slug):
            problems["slug"] = problem
    if "label" in definition and (not definition["label"] or not str(definition["label"]).strip()):
        problems["label"] = "Required: the name shown to editors."
    type_name = definition.get("type")
    field_type = FIELD_TYPES.get(type_name)
    if field_type is None:
        problems["type"] = f"Unknown field type {type_name!r}; allowed: {', '.join(FIELD_TYPES)}."
        return problems
    validation = definition.get("validation") or {}
    options = definition.get("options") or {}
    if not isinstance(validation, dict):
        problems["validation"] = 'Expected an object, e.g. {"maxLength": 120}.'
        validation = {}
    if not isinstance(options, dict):
        problems["options"] = 'Expected an object, e.g. {"rows": 5}.'
        options = {}
    problems.update(field_type.check_definition(validation, options))
    reference_target = options.get("collection") if type_name == "reference" else None
    if (
        reference_target
        and "options.collection" not in problems
        and not Collection.objects.filter(slug=reference_target).exists()
    ):
        problems["options.collection"] = f"No collection with the slug '{options['collection']}'."
    if definition.get("unique") and not field_type.can_be_unique:
        problems["unique"] = (
            f"{type_name} fields cannot be unique; unique works on single values such as strings."
        )
    if definition.get("searchable") and type_name not in SEARCHABLE_TYPES:
        problems["searchable"] = f"Only text fields can be searchable: {', '.join(sorted(SEARCHABLE_TYPES))}."
    default = definition.get("default_value")
    if default is not None and not problems:
        try:
            definition["default_value"] = field_type.normalize(
                default, validation=validation, options=options, context=ValueContext(check_references=False)
            )
        except FieldValueError as exc:
            problems["defaultValue"] = exc.message
    return problems


def _snapshot(field: Field) -> dict[str, Any]:
    return {name: getattr(field, name) for name in ("slug", *FIELD_ATTRIBUTES)}


@transaction.atomic
def field_create(*, actor: Actor, collection: Collection, definition: dict[str, Any]) -> Field:
    """Add a field. ``definition`` uses the model's names: slug, label, type, required, unique, default_value, …"""
    authorize(actor, "schema.write")
    _schema_changed()
    definition = dict(definition)
    problems = _field_problems(collection, definition, creating=True)
    slug = definition.get("slug")
    if "slug" not in problems and slug in RESERVED_FIELD_SLUGS:
        raise ReservedSlug(
            f"'{slug}' is reserved for the entry's own data; reserved: {', '.join(sorted(RESERVED_FIELD_SLUGS))}.",
            details={"slug": "Reserved."},
        )
    if problems:
        raise ValidationError(details=problems)
    Collection.objects.select_for_update().filter(pk=collection.pk).first()
    if collection.fields.filter(slug=slug).exists():
        raise DuplicateSlug(
            f"The collection '{collection.slug}' already has a field '{slug}'.",
            details={"slug": "Already taken."},
        )
    if definition.get("sort_order") is None:
        highest = collection.fields.aggregate(highest=Max("sort_order"))["highest"]
        definition["sort_order"] = 0 if highest is None else highest + 1
    field = Field.objects.create(
        collection=collection,
        slug=slug,
        label=definition["label"].strip(),
        type=definition["type"],
        required=bool(definition.get("required", False)),
        unique=bool(definition.get("unique", False)),
        default_value=definition.get("default_value"),
        validation=definition.get("validation") or {},
        widget=definition.get("widget") or "",
        options=definition.get("options") or {},
        sort_order=definition["sort_order"],
        searchable=bool(definition.get("searchable", False)),
        translatable=bool(definition.get("translatable", True)),
    )
    events.field_saved.send(sender=Field, collection=collection, field=field, previous=None, actor=actor)
    if field.searchable:
        events.collection_search_changed.send(sender=Collection, collection=collection, actor=actor)
    return field


@transaction.atomic
def field_update(*, actor: Actor, field: Field, changes: dict[str, Any]) -> Field:
    """Change a field's definition. Its slug is fixed; a new type must fit every stored value (they are converted)."""
    authorize(actor, "schema.write")
    _schema_changed()
    if "slug" in changes and changes["slug"] != field.slug:
        raise ValidationError(
            details={"slug": "A field's slug cannot be changed; add a new field and remove this one instead."}
        )
    field = Field.objects.select_for_update().select_related("collection").get(pk=field.pk)
    previous = _snapshot(field)
    definition = {**previous, **{key: value for key, value in changes.items() if key != "slug"}}
    if "validation" in changes and changes["validation"] is None:
        definition["validation"] = {}
    if "options" in changes and changes["options"] is None:
        definition["options"] = {}
    problems = _field_problems(field.collection, definition, creating=False)
    if problems:
        raise ValidationError(details=problems)
    for name in FIELD_ATTRIBUTES:
        value = definition[name]
        if name in ("widget",) and value is None:
            value = ""
        if name == "label":
            value = value.strip()
        setattr(field, name, value)
    field.save()
    if field.type != previous["type"]:
        events.field_type_changing.send(
            sender=Field,
            collection=field.collection,
            field=field,
            previous_type=previous["type"],
            actor=actor,
        )
    events.field_saved.send(
        sender=Field, collection=field.collection, field=field, previous=previous, actor=actor
    )
    if field.searchable != previous["searchable"]:
        events.collection_search_changed.send(sender=Collection, collection=field.collection, actor=actor)
    return field


@transaction.atomic
def field_delete(*, actor: Actor, field: Field) -> None:
    """Remove a field and its data from every entry (SPEC §4.11 "drops its data")."""
    authorize(actor, "schema.write")
    _schema_changed()
    collection = field.collection
    events.field_removing.send(sender=Field, collection=collection, field=field, actor=actor)
    was_searchable = field.searchable
    field.delete()
    if was_searchable:
        events.collection_search_changed.send(sender=Collection, collection=collection, actor=actor)


@transaction.atomic
def fields_reorder(*, actor: Actor, collection: Collection, field_slugs: list[str]) -> list[Field]:
    """Put the named fields first, in that order; fields not named keep their relative order after them."""
    authorize(actor, "schema.write")
    _schema_changed()
    fields = list(collection.fields.select_for_update().order_by("sort_order", "created_at"))
    by_slug = {field.slug: field for field in fields}
    unknown = [slug for slug in field_slugs if slug not in by_slug]
    repeated = sorted({slug for slug in field_slugs if field_slugs.count(slug) > 1})
    if unknown or repeated:
        problems = {}
        if unknown:
            problems["fieldSlugs"] = (
                f"No field(s) {', '.join(unknown)} in '{collection.slug}'; fields: {', '.join(by_slug) or 'none'}."
            )
        else:
            problems["fieldSlugs"] = f"Listed more than once: {', '.join(repeated)}."
        raise ValidationError(details=problems)
    ordered = [by_slug[slug] for slug in field_slugs] + [
        field for field in fields if field.slug not in field_slugs
    ]
    for position, field in enumerate(ordered):
        if field.sort_order != position:
            field.sort_order = position
            field.save(update_fields=["sort_order", "updated_at"])
    # The order of searchable fields decides which one titles entries without a title field, and the order of their
    # text in the index.
    searchable_before = [field.slug for field in fields if field.searchable]
    searchable_after = [field.slug for field in ordered if field.searchable]
    if searchable_before != searchable_after and collection.supports_feature("search"):
        events.collection_search_changed.send(sender=Collection, collection=collection, actor=actor)
    return ordered
