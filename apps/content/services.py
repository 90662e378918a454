"""Writes to entries: create, update, the lifecycle of SPEC §3, revisions, bylines, translations, scheduling.

Every function checks permission (scope and role via ``authorize``, own-versus-anyone once it holds the entry) and the
state (``states.check``), then writes in one transaction: the row, its revision, and the ``entry_changed`` event that
keeps derived data (search) in step. The entry row is locked for the write (SELECT … FOR UPDATE on PostgreSQL; on
SQLite every write transaction already holds the database's write lock), and the UPDATE is conditional on the version
read, so two writers holding the same ``_rev`` cannot both win.
"""

from __future__ import annotations

import copy
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Subquery

from apps.accounts.models import User
from apps.accounts.permissions import Actor, authorize
from apps.content import states
from apps.content.models import Byline, Entry, EntryByline, Revision, Status
from apps.core import events, slugs
from apps.core.db import JsonKey, PreparedQuery, bulk_insert, json_scalar_param
from apps.core.errors import Conflict, DuplicateSlug, NotFound, ValidationError
from apps.core.ids import new_id
from apps.core.slugs import slugify
from apps.core.timefmt import iso, now
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


VALUE_CONTEXT = ValueContext(missing_references=_missing_references)


def _is_empty(value: Any) -> bool:
    return value is None or value == "" or value == []


def validate_data(
    *, collection: Collection, fields: list[Field], data: Any, current: dict | None = None, creating: bool
) -> dict:
    """The working copy after applying ``data`` (field slug → value; None clears a field) to ``current``.

    Unknown keys are refused with the collection's fields listed; each value goes through its field type; on create
    defaults fill absent fields and required fields must have a value; on update a required field cannot be cleared.
    """
    if not isinstance(data, dict):
        raise ValidationError(details={"data": "Expected an object mapping field slugs to values."})
    by_slug = {field.slug: field for field in fields}
    problems: dict[str, str] = {}
    known = ", ".join(by_slug) or "none (add fields to the collection first)"
    for key in data:
        if key not in by_slug:
            problems[key] = f"Unknown field '{key}' in collection '{collection.slug}'; known fields: {known}."
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
                value, validation=field.validation or {}, options=field.options or {}, context=VALUE_CONTEXT
            )
        except FieldValueError as exc:
            problems[slug] = exc.message
    if creating:
        for field in fields:
            if field.slug not in clean and field.default_value is not None:
                clean[field.slug] = copy.deepcopy(field.default_value)
    for field in fields:
        if field.required and (creating or field.slug in data) and _is_empty(clean.get(field.slug)):
            problems.setdefault(field.slug, "Required: give this field a value.")
    if problems:
        raise ValidationError(details=problems)
    return clean


def _check_unique_values(entry: Entry, fields: list[Field], before: dict | None) -> None:
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


# --- slugs ---------------------------------------------------------------------------------------------------------


def _slug_taken(collection_id: str, locale: str, slug: str, exclude: str | None) -> str | None:
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


def _slug_source(data: dict) -> str:
    for key in ("title", "name"):
        if isinstance(data.get(key), str) and data[key].strip():
            return data[key]
    return ""


def _choose_slug(
    *, collection: Collection, locale: str, explicit: str | None, data: dict, entry_id: str
) -> str:
    if explicit is not None:
        slug = slugify(explicit) if isinstance(explicit, str) else ""
        if not slug:
            raise ValidationError(details={"slug": "Needs at least one letter or digit."})
        holder = _slug_taken(collection.pk, locale, slug, exclude=entry_id)
        if holder:
            raise DuplicateSlug(
                f"The slug '{slug}' is already used by entry {holder} in '{collection.slug}' ({locale}); "
                "choose another or omit slug to get a free one.",
                details={"slug": f"Taken by {holder}."},
            )
        return slug
    base = slugify(_slug_source(data)) or entry_id.lower()
    return free_slug(collection.pk, locale, base, exclude=entry_id)


# --- helpers --------------------------------------------------------------------------------------------------------


def _fields(collection: Collection) -> list[Field]:
    """The field definitions as of now: the schema cache, revalidated inside the caller's transaction."""
    return list(schema_selectors.collection_for_read(collection_id=collection.pk, fresh=True).fields.all())


def _check_locale(locale: str | None) -> str:
    if locale is None:
        return settings.CMS_DEFAULT_LOCALE
    if locale not in settings.CMS_LOCALES:
        raise ValidationError(
            details={"locale": f"Unknown locale '{locale}'; configured: {', '.join(settings.CMS_LOCALES)}."}
        )
    return locale


# Every write starts here; compiling this queryset each time was a quarter of a PATCH (apps/core/db.PreparedQuery).
# It is only run inside a transaction, where FOR UPDATE is allowed.
_ENTRY_LOCKED = PreparedQuery(lambda pk: Entry.objects.select_for_update().filter(pk=pk)[:1], "pk")


def _lock(entry: Entry | str, collection: Collection | None = None) -> Entry:
    """The entry, re-read and locked for this transaction; ``collection``, when given, must be the entry's."""
    entry_id = entry if isinstance(entry, str) else entry.pk
    locked = _ENTRY_LOCKED.first(pk=entry_id)
    if locked is None or (collection is not None and locked.collection_id != collection.pk):
        raise NotFound(f"No entry {entry_id}" + (f" in '{collection.slug}'." if collection else "."))
    locked.collection = schema_selectors.collection_for_read(collection_id=locked.collection_id, fresh=True)
    return locked


def _save(entry: Entry, previous_version: int, **changes: Any) -> Entry:
    """Write ``changes`` and bump the version, only if nobody wrote since ``previous_version`` was read."""
    changes["version"] = previous_version + 1
    changes["updated_at"] = now()
    written = Entry.objects.filter(pk=entry.pk, version=previous_version).update(**changes)
    if written != 1:
        raise Conflict("The entry changed while this request was writing it; fetch it again and retry.")
    for name, value in changes.items():
        setattr(entry, name, value)
    return entry


def _append_revision(entry: Entry, action: str, actor: Actor) -> None:
    if not entry.collection.supports_feature("revisions"):
        return
    Revision.objects.create(
        collection_id=entry.collection_id,
        entry=entry,
        data=copy.deepcopy(entry.data),
        action=action,
        status=entry.status,
        author=actor.user,
        created_at=now(),
    )
    # Every revision is written with a version bump (creation is version 1), so an entry holds at most `version`
    # revisions and nothing can need pruning before its version passes the limit; the pruning DELETE was a tenth of
    # a create.
    if isinstance(entry.version, int) and entry.version <= REVISIONS_KEPT:
        return
    newest = (
        Revision.objects.filter(entry_id=entry.pk)
        .order_by("-created_at", "-id")
        .values("pk")[:REVISIONS_KEPT]
    )
    Revision.objects.filter(entry_id=entry.pk).exclude(pk__in=Subquery(newest)).delete()


def _changed(entry: Entry, action: str, actor: Actor) -> None:
    events.entry_changed.send(sender=Entry, entry=entry, action=action, actor=actor)


def _set_credits(entry: Entry, bylines: list[dict] | None) -> None:
    """Replace the entry's credits; the first becomes its primary byline (SPEC §4.10 rule 6)."""
    if bylines is None:
        return
    ids = [item.get("bylineId") for item in bylines]
    # Keys are dotted paths (docs/decisions.md), as the request parser reports the same list's shape errors.
    problems = {}
    for index, item in enumerate(bylines):
        if not isinstance(item.get("bylineId"), str):
            problems[f"bylines.{index}.bylineId"] = "Required: the id of a byline."
    if len(set(ids)) != len(ids):
        problems["bylines"] = "A byline may be credited once per entry."
    found = {
        byline.pk: byline for byline in Byline.objects.filter(pk__in=[i for i in ids if isinstance(i, str)])
    }
    for index, byline_id in enumerate(ids):
        if isinstance(byline_id, str) and byline_id not in found:
            problems[f"bylines.{index}.bylineId"] = f"No byline {byline_id}."
    if problems:
        raise ValidationError(details=problems)
    EntryByline.objects.filter(entry=entry).delete()
    EntryByline.objects.bulk_create(
        EntryByline(
            entry=entry,
            byline=found[item["bylineId"]],
            sort_order=position,
            role_label=item.get("roleLabel") or "",
        )
        for position, item in enumerate(bylines)
    )
    primary = found[ids[0]] if ids else None
    if entry.primary_byline_id != (primary.pk if primary else None):
        Entry.objects.filter(pk=entry.pk).update(primary_byline=primary)
        entry.primary_byline = primary


def _sync_translations(entry: Entry, fields: list[Field], actor: Actor) -> None:
    """Copy the values of non-translatable fields to the other entries of the translation group."""
    shared = [field.slug for field in fields if not field.translatable]
    if not shared:
        return
    siblings = (
        Entry.objects.select_for_update()
        .filter(translation_group=entry.translation_group)
        .exclude(pk=entry.pk)
    )
    for sibling in siblings:
        data = dict(sibling.data)
        for slug in shared:
            if slug in entry.data:
                data[slug] = copy.deepcopy(entry.data[slug])
            else:
                data.pop(slug, None)
        if data != sibling.data:
            sibling = _save(sibling, sibling.version, data=data)
            sibling.collection = entry.collection
            _changed(sibling, "translation_sync", actor)


# --- create and update ----------------------------------------------------------------------------------------------


@transaction.atomic
def entry_create(
    *,
    actor: Actor,
    collection: Collection,
    data: dict,
    slug: str | None = None,
    status: str = Status.DRAFT,
    locale: str | None = None,
    translation_of: str | None = None,
    bylines: list[dict] | None = None,
    author: User | None = None,
    published_at: datetime | None = None,
    meta: dict | None = None,
    created_at: datetime | None = None,
) -> Entry:
    """Create an entry, a draft unless ``status`` is ``published``. ``author`` defaults to the acting user.
    ``created_at`` keeps the original date of imported content (now by default)."""
    authorize(actor, "content.create")
    if status not in WRITABLE_STATUSES:
        raise ValidationError(
            details={"status": "Either draft or published; to publish later, create a draft and schedule it."}
        )
    if status == Status.PUBLISHED:
        authorize(actor, "content.publish")
    fields = _fields(collection)
    locale = _check_locale(locale)
    entry_id = new_id()
    group = entry_id
    if translation_of is not None:
        source = Entry.objects.filter(
            pk=translation_of, collection=collection, deleted_at__isnull=True
        ).first()
        if source is None:
            raise ValidationError(
                details={"translationOf": f"No entry {translation_of} in '{collection.slug}'."}
            )
        group = source.translation_group
        existing = Entry.objects.filter(
            translation_group=group, locale=locale, deleted_at__isnull=True
        ).first()
        if existing is not None:
            raise Conflict(
                f"The translation group already has a '{locale}' entry ({existing.pk}).",
                details={"locale": f"Taken by {existing.pk}."},
            )
        shared = {
            field.slug: copy.deepcopy(source.data[field.slug]) for field in fields if not field.translatable
        }
        data = {
            **{key: value for key, value in shared.items() if value is not None and key in source.data},
            **data,
        }
    clean = validate_data(collection=collection, fields=fields, data=data, creating=True)
    moment = now()
    entry = Entry(
        id=entry_id,
        collection=collection,
        locale=locale,
        translation_group=group,
        status=status,
        data=clean,
        live_data=copy.deepcopy(clean) if status == Status.PUBLISHED else None,
        author=author if author is not None else actor.user,
        meta=meta or {},
        created_at=created_at or moment,
        updated_at=moment,
        published_at=(published_at or moment) if status == Status.PUBLISHED else None,
    )
    entry.slug = _choose_slug(
        collection=collection, locale=locale, explicit=slug, data=clean, entry_id=entry_id
    )
    _check_unique_values(entry, fields, None)
    try:
        with transaction.atomic():
            entry.save(force_insert=True)
    except IntegrityError:
        # A concurrent writer took the slug or a unique value between our checks and the insert. Its row is
        # committed now (the insert waited for it), so checking the unique values again names it.
        _check_unique_values(entry, fields, None)
        if slug is not None:
            raise DuplicateSlug(f"The slug '{entry.slug}' was just taken; choose another.") from None
        entry.slug = free_slug(collection.pk, locale, entry.slug)
        try:
            with transaction.atomic():
                entry.save(force_insert=True)
        except IntegrityError:
            raise Conflict("A unique value or the slug was just taken by another entry; retry.") from None
    _set_credits(entry, bylines)
    if translation_of is not None:
        _sync_translations(entry, fields, actor)
    _append_revision(entry, "publish" if status == Status.PUBLISHED else "create", actor)
    _changed(entry, "create", actor)
    return entry


@transaction.atomic
def entry_create_many(*, actor: Actor, collection: Collection, rows: list[dict[str, Any]]) -> list[Entry]:
    """Create many entries of one collection at once (imports): the checks of ``entry_create`` for every row,
    written together (``bulk_insert``: one statement each for the entries, their credits and their revisions); one
    ``entries_created`` event for all.

    A row has ``data``, ``slug`` (required, must be free), ``status`` (draft or published), and optionally
    ``locale``, ``author``, ``published_at``, ``created_at``, ``meta`` and ``bylines``. Collections with unique fields
    take the one-by-one path (their values are checked against each other there). All or nothing."""
    authorize(actor, "content.create")
    if not rows:
        return []
    fields = _fields(collection)
    if any(field.unique for field in fields):
        return [entry_create(actor=actor, collection=collection, **row) for row in rows]
    problems: dict[str, str] = {}
    moment = now()
    entries: list[Entry] = []
    wanted: set[tuple[str, str]] = set()
    byline_ids: set[str] = set()
    for index, row in enumerate(rows):
        status = row.get("status", Status.DRAFT)
        if status not in WRITABLE_STATUSES:
            problems[f"rows.{index}.status"] = "Either draft or published."
            continue
        if status == Status.PUBLISHED:
            authorize(actor, "content.publish")
        locale = _check_locale(row.get("locale"))
        slug = slugify(row.get("slug") or "")
        if not slug:
            problems[f"rows.{index}.slug"] = "Needs at least one letter or digit."
            continue
        if (locale, slug) in wanted:
            problems[f"rows.{index}.slug"] = f"'{slug}' is given twice."
        wanted.add((locale, slug))
        clean = validate_data(collection=collection, fields=fields, data=row.get("data") or {}, creating=True)
        entry_id = new_id()
        credits = row.get("bylines") or []
        byline_ids.update(item["bylineId"] for item in credits)
        entry = Entry(
            id=entry_id,
            collection=collection,
            slug=slug,
            locale=locale,
            translation_group=entry_id,
            status=status,
            data=clean,
            # Shared, not copied: the rows are serialised when inserted and these objects are not changed after.
            live_data=clean if status == Status.PUBLISHED else None,
            author=row["author"] if row.get("author") is not None else actor.user,
            primary_byline_id=credits[0]["bylineId"] if credits else None,
            meta=row.get("meta") or {},
            created_at=row.get("created_at") or moment,
            updated_at=moment,
            published_at=(row.get("published_at") or moment) if status == Status.PUBLISHED else None,
            version=1,
        )
        entry._credits = credits
        entries.append(entry)
    if problems:
        raise ValidationError(details=problems)
    taken = Entry.objects.filter(
        collection=collection, deleted_at__isnull=True, slug__in=[slug for _, slug in wanted]
    ).values_list("locale", "slug", "pk")
    for locale, slug, holder in taken:
        if (locale, slug) in wanted:
            raise DuplicateSlug(
                f"The slug '{slug}' is already used by entry {holder} in '{collection.slug}' ({locale}).",
                details={"slug": f"'{slug}' taken by {holder}."},
            )
    known = set(Byline.objects.filter(pk__in=byline_ids).values_list("pk", flat=True))
    if missing := sorted(byline_ids - known):
        raise ValidationError(details={"bylines": f"No byline {', '.join(missing)}."})
    try:
        with transaction.atomic():
            bulk_insert(entries)
    except IntegrityError:
        raise Conflict("A slug was just taken by another entry; retry.") from None
    bulk_insert(
        [
            EntryByline(
                entry=entry,
                byline_id=item["bylineId"],
                sort_order=position,
                role_label=item.get("roleLabel") or "",
            )
            for entry in entries
            for position, item in enumerate(entry._credits)
        ]
    )
    if collection.supports_feature("revisions"):
        bulk_insert(
            [
                Revision(
                    collection_id=collection.pk,
                    entry=entry,
                    data=entry.data,
                    action="publish" if entry.status == Status.PUBLISHED else "create",
                    status=entry.status,
                    author=actor.user,
                    created_at=moment,
                )
                for entry in entries
            ]
        )
    events.entries_created.send(sender=Entry, entries=entries, actor=actor)
    return entries


@transaction.atomic
def entry_update(
    *,
    actor: Actor,
    entry: Entry | str,
    collection: Collection | None = None,
    data: dict | None = None,
    slug: str | None = None,
    status: str | None = None,
    rev: str | None = None,
    bylines: list[dict] | None = None,
) -> Entry:
    """Change fields (those not sent stay as they are), slug, status (draft or published) and credits.

    A ``rev`` that is not the entry's current ``_rev`` is a CONFLICT and nothing is written. Editing a published entry
    changes its working copy; the public keeps reading the published version until it is published again (unless the
    collection does not support drafts: then edits go live at once).
    """
    entry = _lock(entry, collection)
    authorize(actor, "content.update", owner_id=entry.author_id)
    states.check("update", entry)
    if rev is not None and rev != entry.rev:
        raise Conflict(
            f"The entry changed since you read it (your _rev {rev}, current {entry.rev}); "
            "fetch it again and reapply your change.",
            details={"currentRev": entry.rev},
        )
    if status is not None and status not in WRITABLE_STATUSES:
        raise ValidationError(details={"status": "Either draft or published; use …/schedule to schedule."})
    if status == Status.PUBLISHED:
        authorize(actor, "content.publish", owner_id=entry.author_id)
    collection = entry.collection
    fields = _fields(collection)
    before = entry.data
    clean = (
        validate_data(collection=collection, fields=fields, data=data, current=before, creating=False)
        if data is not None
        else before
    )
    changes: dict[str, Any] = {"data": clean}
    if slug is not None:
        changes["slug"] = _choose_slug(
            collection=collection, locale=entry.locale, explicit=slug, data=clean, entry_id=entry.pk
        )
    moment = now()
    action = "update"
    if status == Status.PUBLISHED:
        changes.update(
            status=Status.PUBLISHED,
            live_data=copy.deepcopy(clean),
            published_at=entry.published_at or moment,
            scheduled_at=None,
        )
        action = "publish"
    elif status == Status.DRAFT and entry.status != Status.DRAFT:
        changes.update(status=Status.DRAFT, scheduled_at=None)
        action = "unpublish" if entry.status == Status.PUBLISHED else "unschedule"
    elif entry.status == Status.PUBLISHED and not collection.supports_feature("drafts"):
        changes["live_data"] = copy.deepcopy(clean)
    probe = copy.copy(entry)
    probe.data = clean
    probe.locale = entry.locale
    _check_unique_values(probe, fields, before)
    previous_version = entry.version
    try:
        with transaction.atomic():
            _save(entry, previous_version, **changes)
    except IntegrityError:
        raise Conflict(
            "A unique value or the slug was just taken by another entry; fetch and retry."
        ) from None
    _set_credits(entry, bylines)
    if data is not None:
        _sync_translations(entry, fields, actor)
    if clean != before or action != "update":
        _append_revision(entry, action, actor)
    _changed(entry, action, actor)
    return entry


# --- lifecycle ------------------------------------------------------------------------------------------------------


@transaction.atomic
def entry_publish(
    *,
    actor: Actor,
    entry: Entry | str,
    collection: Collection | None = None,
    published_at: datetime | None = None,
) -> Entry:
    """Make the working copy the published version. The first publication date is kept on re-publishing unless
    ``published_at`` (in the past) is given."""
    entry = _lock(entry, collection)
    authorize(actor, "content.publish", owner_id=entry.author_id)
    states.check("publish", entry)
    moment = now()
    if published_at is not None and published_at > moment:
        raise ValidationError(
            details={
                "publishedAt": f"{iso(published_at)} is in the future; schedule the entry instead (…/schedule)."
            }
        )
    _save(
        entry,
        entry.version,
        status=Status.PUBLISHED,
        live_data=copy.deepcopy(entry.data),
        published_at=published_at or entry.published_at or moment,
        scheduled_at=None,
    )
    _append_revision(entry, "publish", actor)
    _changed(entry, "publish", actor)
    return entry


@transaction.atomic
def entry_unpublish(*, actor: Actor, entry: Entry | str, collection: Collection | None = None) -> Entry:
    """Take the entry offline; its content (working copy and last published version) is kept."""
    entry = _lock(entry, collection)
    authorize(actor, "content.publish", owner_id=entry.author_id)
    states.check("unpublish", entry)
    _save(entry, entry.version, status=Status.DRAFT)
    _append_revision(entry, "unpublish", actor)
    _changed(entry, "unpublish", actor)
    return entry


@transaction.atomic
def entry_schedule(
    *, actor: Actor, entry: Entry | str, collection: Collection | None = None, scheduled_at: datetime
) -> Entry:
    """Publish the working copy automatically at ``scheduled_at`` (the worker does it). Until then the entry is not
    public, as a scheduled post in WordPress."""
    entry = _lock(entry, collection)
    authorize(actor, "content.publish", owner_id=entry.author_id)
    states.check("schedule", entry)
    if not entry.collection.supports_feature("scheduling"):
        raise ValidationError(
            f"The collection '{entry.collection.slug}' does not support scheduling; add 'scheduling' to its supports.",
            details={"scheduledAt": "Scheduling is not enabled for this collection."},
        )
    if scheduled_at <= now():
        raise ValidationError(
            details={"scheduledAt": f"{iso(scheduled_at)} is not in the future (now {iso(now())})."}
        )
    _save(entry, entry.version, status=Status.SCHEDULED, scheduled_at=scheduled_at)
    _changed(entry, "schedule", actor)
    return entry


@transaction.atomic
def entry_unschedule(*, actor: Actor, entry: Entry | str, collection: Collection | None = None) -> Entry:
    entry = _lock(entry, collection)
    authorize(actor, "content.publish", owner_id=entry.author_id)
    states.check("unschedule", entry)
    _save(entry, entry.version, status=Status.DRAFT, scheduled_at=None)
    _changed(entry, "unschedule", actor)
    return entry


@transaction.atomic
def entry_discard_draft(*, actor: Actor, entry: Entry | str, collection: Collection | None = None) -> Entry:
    """Drop the working copy's changes: it becomes the last published version again."""
    entry = _lock(entry, collection)
    authorize(actor, "content.update", owner_id=entry.author_id)
    states.check("discard_draft", entry)
    if entry.data != entry.live_data:
        _save(entry, entry.version, data=copy.deepcopy(entry.live_data))
        _append_revision(entry, "discard_draft", actor)
        _changed(entry, "discard_draft", actor)
    return entry


@transaction.atomic
def entry_trash(*, actor: Actor, entry: Entry | str, collection: Collection | None = None) -> Entry:
    entry = _lock(entry, collection)
    authorize(actor, "content.delete", owner_id=entry.author_id)
    states.check("trash", entry)
    _save(entry, entry.version, deleted_at=now())
    _changed(entry, "trash", actor)
    return entry


@transaction.atomic
def entry_restore(*, actor: Actor, entry: Entry | str, collection: Collection | None = None) -> Entry:
    """Bring an entry back from the trash with the status it had. If another entry took its slug meanwhile, it gets
    the next free one (``-2`` …)."""
    entry = _lock(entry, collection)
    authorize(actor, "content.delete", owner_id=entry.author_id)
    states.check("restore", entry)
    # A group has one entry per locale; another may have taken this one's while it was in the trash.
    sibling = (
        Entry.objects.filter(
            translation_group=entry.translation_group, locale=entry.locale, deleted_at__isnull=True
        )
        .exclude(pk=entry.pk)
        .values_list("pk", flat=True)
        .first()
    )
    if sibling:
        raise Conflict(
            f"The translation group already has a '{entry.locale}' entry ({sibling}); trash it first to restore "
            "this one.",
            details={"locale": f"Taken by {sibling}."},
        )
    slug = entry.slug
    if _slug_taken(entry.collection_id, entry.locale, slug, exclude=entry.pk):
        slug = free_slug(entry.collection_id, entry.locale, slug, exclude=entry.pk)
    entry.deleted_at = None
    _check_unique_values(entry, _fields(entry.collection), None)
    _save(entry, entry.version, deleted_at=None, slug=slug)
    _changed(entry, "restore", actor)
    return entry


@transaction.atomic
def entry_delete_permanently(
    *, actor: Actor, entry: Entry | str, collection: Collection | None = None
) -> None:
    entry = _lock(entry, collection)
    authorize(actor, "content.delete_permanent", owner_id=entry.author_id)
    states.check("delete_permanent", entry)
    events.entry_deleting.send(sender=Entry, entry=entry, actor=actor)
    entry.delete()


@transaction.atomic
def entry_duplicate(*, actor: Actor, entry: Entry | str) -> Entry:
    """A new draft with the same data, its title followed by " (Copy)", a fresh slug, and the same credits.

    Values of unique fields are not copied (the copy could not be saved with them)."""
    source = (
        Entry.objects.select_related("collection")
        .filter(pk=entry if isinstance(entry, str) else entry.pk)
        .first()
    )
    if source is None:
        raise NotFound("No such entry.")
    authorize(actor, "content.create")
    states.check("duplicate", source)
    fields = _fields(source.collection)
    data = copy.deepcopy(source.data)
    for field in fields:
        if field.unique:
            data.pop(field.slug, None)
    if isinstance(data.get("title"), str):
        data["title"] = f"{data['title']} (Copy)"
    credits = [
        {"bylineId": credit.byline_id, "roleLabel": credit.role_label}
        for credit in source.credits.order_by("sort_order")
    ]
    return entry_create(
        actor=actor,
        collection=source.collection,
        data=data,
        locale=source.locale,
        bylines=credits or None,
    )


# --- revisions ------------------------------------------------------------------------------------------------------


@transaction.atomic
def revision_restore(*, actor: Actor, revision: Revision) -> Entry:
    """Write a revision's data into the working copy and record that as a new revision. Nothing is published.

    Fields removed since the revision are left out; a value that no longer fits its field's current definition is
    refused, naming the field."""
    entry = _lock(revision.entry_id)
    authorize(actor, "content.update", owner_id=entry.author_id)
    states.check("restore_revision", entry)
    fields = _fields(entry.collection)
    current = {field.slug for field in fields}
    wanted = {key: value for key, value in revision.data.items() if key in current}
    cleared = {slug: None for slug in entry.data if slug not in wanted}
    clean = validate_data(
        collection=entry.collection,
        fields=fields,
        data={**cleared, **wanted},
        current=entry.data,
        creating=False,
    )
    probe = copy.copy(entry)
    probe.data = clean
    _check_unique_values(probe, fields, entry.data)
    _save(entry, entry.version, data=clean)
    _append_revision(entry, "restore", actor)
    _changed(entry, "revision_restore", actor)
    return entry


# --- bylines --------------------------------------------------------------------------------------------------------


@transaction.atomic
def byline_create(
    *,
    actor: Actor,
    display_name: str,
    user: User | None = None,
    is_guest: bool | None = None,
    bio: str = "",
    email: str = "",
    slug: str | None = None,
) -> Byline:
    authorize(actor, "bylines.manage")
    if not display_name or not display_name.strip():
        raise ValidationError(details={"displayName": "Required."})
    candidate = slugs.free_slug(Byline.objects.all(), slugify(slug or display_name) or new_id().lower())
    return Byline.objects.create(
        display_name=display_name.strip(),
        slug=candidate,
        user=user,
        is_guest=(user is None) if is_guest is None else is_guest,
        bio=bio or "",
        email=email or "",
    )


@transaction.atomic
def byline_update(*, actor: Actor, byline: Byline, changes: dict[str, Any]) -> Byline:
    authorize(actor, "bylines.manage")
    if "display_name" in changes:
        if not changes["display_name"] or not str(changes["display_name"]).strip():
            raise ValidationError(details={"displayName": "Must not be empty."})
        byline.display_name = changes["display_name"].strip()
    for name in ("bio", "email", "is_guest", "user"):
        if name in changes:
            setattr(byline, name, changes[name] if changes[name] is not None or name == "user" else "")
    byline.save()
    return byline


@transaction.atomic
def byline_delete(*, actor: Actor, byline: Byline) -> None:
    """Delete a byline; entries that credited it lose that credit (and their primary byline moves to the next)."""
    authorize(actor, "bylines.manage")
    affected = list(Entry.objects.filter(credits__byline=byline).values_list("pk", flat=True))
    byline.delete()
    for entry_id in affected:
        first = (
            EntryByline.objects.filter(entry_id=entry_id)
            .order_by("sort_order")
            .values_list("byline_id", flat=True)
            .first()
        )
        Entry.objects.filter(pk=entry_id).update(primary_byline_id=first)


# --- scheduled publishing -------------------------------------------------------------------------------------------


def publish_due(*, at: datetime | None = None, limit: int = 200) -> list[Entry]:
    """Publish scheduled entries whose time has come, each in its own transaction. Safe with several workers: a row is
    published by whoever locks it first, and the conditional update makes a second attempt a no-op."""
    moment = at or now()
    actor = Actor.system()
    due = list(
        Entry.objects.filter(status=Status.SCHEDULED, deleted_at__isnull=True, scheduled_at__lte=moment)
        .order_by("scheduled_at")
        .values_list("pk", flat=True)[:limit]
    )
    published = []
    for entry_id in due:
        with transaction.atomic():
            entry = (
                # Only the entry row: with the collection row locked too, a worker would skip every due entry of a
                # collection another worker (or a collection edit) had locked, and leave them for a later pass.
                Entry.objects.select_for_update(skip_locked=True, of=("self",))
                .select_related("collection")
                .filter(
                    pk=entry_id, status=Status.SCHEDULED, deleted_at__isnull=True, scheduled_at__lte=moment
                )
                .first()
            )
            if entry is None:
                continue
            try:
                _save(
                    entry,
                    entry.version,
                    status=Status.PUBLISHED,
                    live_data=copy.deepcopy(entry.data),
                    published_at=entry.scheduled_at,
                    scheduled_at=None,
                )
            except Conflict:
                continue  # another worker published it first
            _append_revision(entry, "publish", actor)
            _changed(entry, "publish", actor)
            published.append(entry)
    return published
