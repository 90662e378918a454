"""What every entry write shares: field values checked against the collection, slugs, the locale, and the locked,
version-checked row write with its ``entry_changed`` event.

The entry row is locked for the write (SELECT … FOR UPDATE on PostgreSQL; on SQLite every write transaction already
holds the database's write lock), and the UPDATE is conditional on the version read, so two writers holding the same
``_rev`` cannot both win.
"""

from __future__ import annotations

import copy
from typing import Any

from django.conf import settings

from apps.accounts.permissions import Actor
from apps.content.models import Entry, Status
from apps.core import events, slugs
from apps.core.db import JsonKey, PreparedQuery, json_scalar_param
from apps.core.errors import Conflict, DuplicateSlug, NotFound, ValidationError, json_pointer
from apps.core.slugs import slugify
from apps.core.timefmt import iso, now
from apps.media import selectors as media_selectors
from apps.schema import selectors as schema_selectors
from apps.schema.field_types import FIELD_TYPES, FieldValueError, ValueContext
from apps.schema.models import Collection, Field

REVISIONS_KEPT = 50
WRITABLE_STATUSES = (Status.DRAFT, Status.PUBLISHED)


# --- data validation ------------------------------------------------------------------------------------------------


def _missing_references(collection_slug: str, ids: list[str]) -> list[str]:
    found = set(
        Entry.objects.filter(
            collection__slug=collection_slug, pk__in=ids, deleted_at__isnull=True
        ).values_list("pk", flat=True)
    )
    return [item for item in ids if item not in found]


VALUE_CONTEXT = ValueContext(
    missing_references=_missing_references, missing_media=media_selectors.missing_media
)


def media_ids_in(fields: list[Field], rows: list[Any]) -> list[str]:
    """The media ids that the image and file values of ``rows`` (data dicts) name, as those fields take them."""
    media_fields = [field.slug for field in fields if field.type in ("image", "file")]
    ids: list[str] = []
    for data in rows:
        if not isinstance(data, dict):
            continue
        for slug in media_fields:
            value = data.get(slug)
            value = value.get("id") if isinstance(value, dict) else value
            if isinstance(value, str) and value:
                ids.append(value)
    return ids


def batch_context(fields: list[Field], rows: list[Any]) -> ValueContext:
    """VALUE_CONTEXT for many rows at once: the media they name are looked up in one query, not one per value."""
    ids = media_ids_in(fields, rows)
    if not ids:
        return VALUE_CONTEXT
    known, missing = set(ids), set(media_selectors.missing_media(ids))

    def missing_media(wanted: list[str]) -> list[str]:
        # Values not seen beforehand (a translation's copied values) are asked for as usual.
        unseen = media_selectors.missing_media(item for item in wanted if item not in known)
        return [item for item in wanted if item in missing or item in unseen]

    return ValueContext(missing_references=_missing_references, missing_media=missing_media)


def _is_empty(value: Any) -> bool:
    return value is None or value == "" or value == []


def validate_data(
    *,
    collection: Collection,
    fields: list[Field],
    data: Any,
    current: dict | None = None,
    creating: bool,
    context: ValueContext = VALUE_CONTEXT,
) -> dict:
    """The working copy after applying ``data`` (field slug → value; None clears a field) to ``current``.

    Unknown keys are refused with the collection's fields listed; each value goes through its field type; on create
    defaults fill absent fields and required fields must have a value; on update a required field cannot be cleared.
    """
    if not isinstance(data, dict):
        raise ValidationError(details={"data": "Expected an object mapping field slugs to values."})
    by_slug = {field.slug: field for field in fields}
    problems: dict[str, str] = {}
    # Each problem's JSON pointer into the request (RFC 6901): /data/<field>[/<path inside the value>].
    pointers: dict[str, str] = {}
    known = ", ".join(by_slug) or "none (add fields to the collection first)"
    for key in data:
        if key not in by_slug:
            problems[key] = f"Unknown field '{key}' in collection '{collection.slug}'; known fields: {known}."
            pointers[key] = json_pointer("data", key)
    clean = dict(current or {})
    for slug, value in data.items():
        field = by_slug.get(slug)
        if field is None:
            continue
        if value is None:
            clean.pop(slug, None)
            continue
        try:
            clean[slug] = FIELD_TYPES[field.type].normalize(
                value, validation=field.validation or {}, options=field.options or {}, context=context
            )
        except FieldValueError as exc:
            problems[slug] = exc.message
            pointers[slug] = json_pointer("data", slug, *exc.path)
    if creating:
        for field in fields:
            if field.slug not in clean and field.default_value is not None:
                clean[field.slug] = copy.deepcopy(field.default_value)
    for field in fields:
        if field.required and (creating or field.slug in data) and _is_empty(clean.get(field.slug)):
            problems.setdefault(field.slug, "Required: give this field a value.")
            pointers.setdefault(field.slug, json_pointer("data", field.slug))
    if problems:
        raise ValidationError(details=problems, pointers=pointers)
    return clean


def check_unique_values(entry: Entry, fields: list[Field], before: dict | None) -> None:
    """Refuse values of unique fields that another live entry of the collection and locale already has."""
    for field in fields:
        if not field.unique or field.slug not in entry.data:
            continue
        value = entry.data[field.slug]
        if before is not None and before.get(field.slug) == value:
            continue
        others = (
            Entry.objects.filter(
                collection_id=entry.collection_id, locale=entry.locale, deleted_at__isnull=True
            )
            .exclude(pk=entry.pk)
            .annotate(value=JsonKey("data", field.slug))
            .filter(value=json_scalar_param(value))
            .values_list("pk", flat=True)[:1]
        )
        holder = next(iter(others), None)
        if holder:
            raise Conflict(
                f"'{field.slug}' must be unique in '{entry.collection.slug}'; entry {holder} already has {value!r}.",
                details={field.slug: f"Already used by entry {holder}."},
            )


def check_published_at(published_at: Any) -> None:
    """A publication date given by hand (backdating) is not in the future: a later one is a schedule."""
    if published_at is not None and published_at > now():
        raise ValidationError(
            details={
                "publishedAt": f"{iso(published_at)} is in the future; schedule the entry instead (…/schedule)."
            }
        )


# --- slugs ---------------------------------------------------------------------------------------------------------


def slug_taken(collection_id: str, locale: str, slug: str, exclude: str | None) -> str | None:
    holder = Entry.objects.filter(
        collection_id=collection_id, locale=locale, slug=slug, deleted_at__isnull=True
    )
    if exclude:
        holder = holder.exclude(pk=exclude)
    return holder.values_list("pk", flat=True).first()


def free_slug(collection_id: str, locale: str, base: str, exclude: str | None = None) -> str:
    """``base`` if free among the live entries of the collection and locale, else the next ``base-N``."""
    live = Entry.objects.filter(collection_id=collection_id, locale=locale, deleted_at__isnull=True)
    return slugs.free_slug(live.exclude(pk=exclude) if exclude else live, base)


SLUG_NEEDS_TEXT = "Needs at least one letter or digit."


def normal_slug(explicit: Any) -> str:
    """The slug a caller asked for, normalised; empty when it has no letter or digit (refuse it with
    ``SLUG_NEEDS_TEXT``)."""
    return slugify(explicit) if isinstance(explicit, str) else ""


def derived_slug_base(data: dict, entry_id: str) -> str:
    """What an entry's slug is made from when none is given: its title or name, else its id."""
    for key in ("title", "name"):
        if isinstance(data.get(key), str) and data[key].strip():
            return slugify(data[key]) or entry_id.lower()
    return entry_id.lower()


def duplicate_slug(
    collection: Collection, locale: str, slug: str, holder: str, *, key: str = "slug"
) -> DuplicateSlug:
    return DuplicateSlug(
        f"The slug '{slug}' is already used by entry {holder} in '{collection.slug}' ({locale}); "
        "choose another or omit slug to get a free one.",
        details={key: f"Taken by {holder}."},
    )


def choose_slug(
    *, collection: Collection, locale: str, explicit: str | None, data: dict, entry_id: str
) -> str:
    if explicit is not None:
        slug = normal_slug(explicit)
        if not slug:
            raise ValidationError(details={"slug": SLUG_NEEDS_TEXT})
        holder = slug_taken(collection.pk, locale, slug, exclude=entry_id)
        if holder:
            raise duplicate_slug(collection, locale, slug, holder)
        return slug
    return free_slug(collection.pk, locale, derived_slug_base(data, entry_id), exclude=entry_id)


# --- helpers --------------------------------------------------------------------------------------------------------


def fields_of(collection: Collection) -> list[Field]:
    """The field definitions as of now: the schema cache, revalidated inside the caller's transaction."""
    return list(schema_selectors.collection_for_read(collection_id=collection.pk, fresh=True).fields.all())


def locale_problem(locale: str) -> str | None:
    """Why ``locale`` is refused, or None for one of the configured locales."""
    if locale in settings.CMS_LOCALES:
        return None
    return f"Unknown locale '{locale}'; configured: {', '.join(settings.CMS_LOCALES)}."


# Every write starts here; compiling this queryset each time was a quarter of a PATCH (apps/core/db.PreparedQuery).
# It is only run inside a transaction, where FOR UPDATE is allowed.
_ENTRY_LOCKED = PreparedQuery(lambda pk: Entry.objects.select_for_update().filter(pk=pk)[:1], "pk")


def lock(entry: Entry | str, collection: Collection | None = None) -> Entry:
    """The entry, re-read and locked for this transaction; ``collection``, when given, must be the entry's."""
    entry_id = entry if isinstance(entry, str) else entry.pk
    locked = _ENTRY_LOCKED.first(pk=entry_id)
    if locked is None or (collection is not None and locked.collection_id != collection.pk):
        raise NotFound(f"No entry {entry_id}" + (f" in '{collection.slug}'." if collection else "."))
    locked.collection = schema_selectors.collection_for_read(collection_id=locked.collection_id, fresh=True)
    return locked


def save(entry: Entry, previous_version: int, **changes: Any) -> Entry:
    """Write ``changes`` and bump the version, only if nobody wrote since ``previous_version`` was read."""
    changes["version"] = previous_version + 1
    changes["updated_at"] = now()
    written = Entry.objects.filter(pk=entry.pk, version=previous_version).update(**changes)
    if written != 1:
        raise Conflict("The entry changed while this request was writing it; fetch it again and retry.")
    for name, value in changes.items():
        setattr(entry, name, value)
    return entry


def changed(entry: Entry, action: str, actor: Actor, **extra: Any) -> None:
    """``extra``: what some actions add (``previous_slug``, see apps/core/events.py)."""
    events.entry_changed.send(sender=Entry, entry=entry, action=action, actor=actor, **extra)
