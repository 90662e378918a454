"""Creating, changing and deleting entries: one at a time (REST, MCP, the admin) or many of one collection at once
(imports)."""

from __future__ import annotations

import copy
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction

from apps.accounts.models import User
from apps.accounts.permissions import Actor, authorize
from apps.content import states
from apps.content.models import Byline, Entry, EntryByline, Revision, Status
from apps.content.services.bylines import set_credits
from apps.content.services.revisions import append_revision
from apps.content.services.shared import (
    WRITABLE_STATUSES,
    changed,
    check_locale,
    check_unique_values,
    choose_slug,
    fields_of,
    free_slug,
    lock,
    save,
    validate_data,
)
from apps.core import events
from apps.core.db import bulk_insert
from apps.core.errors import Conflict, DuplicateSlug, NotFound, ValidationError
from apps.core.ids import new_id
from apps.core.slugs import slugify
from apps.core.timefmt import now
from apps.schema.models import Collection, Field


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
            sibling = save(sibling, sibling.version, data=data)
            sibling.collection = entry.collection
            changed(sibling, "translation_sync", actor)


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
    fields = fields_of(collection)
    locale = check_locale(locale)
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
    entry.slug = choose_slug(
        collection=collection, locale=locale, explicit=slug, data=clean, entry_id=entry_id
    )
    check_unique_values(entry, fields, None)
    try:
        with transaction.atomic():
            entry.save(force_insert=True)
    except IntegrityError:
        # A concurrent writer took the slug or a unique value between our checks and the insert. Its row is
        # committed now (the insert waited for it), so checking the unique values again names it.
        check_unique_values(entry, fields, None)
        if slug is not None:
            raise DuplicateSlug(f"The slug '{entry.slug}' was just taken; choose another.") from None
        entry.slug = free_slug(collection.pk, locale, entry.slug)
        try:
            with transaction.atomic():
                entry.save(force_insert=True)
        except IntegrityError:
            raise Conflict("A unique value or the slug was just taken by another entry; retry.") from None
    set_credits(entry, bylines)
    if translation_of is not None:
        _sync_translations(entry, fields, actor)
    append_revision(entry, "publish" if status == Status.PUBLISHED else "create", actor)
    changed(entry, "create", actor)
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
    fields = fields_of(collection)
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
        locale = check_locale(row.get("locale"))
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
    entry = lock(entry, collection)
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
    fields = fields_of(collection)
    before = entry.data
    clean = (
        validate_data(collection=collection, fields=fields, data=data, current=before, creating=False)
        if data is not None
        else before
    )
    changes: dict[str, Any] = {"data": clean}
    if slug is not None:
        changes["slug"] = choose_slug(
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
    check_unique_values(probe, fields, before)
    previous_version = entry.version
    try:
        with transaction.atomic():
            save(entry, previous_version, **changes)
    except IntegrityError:
        raise Conflict(
            "A unique value or the slug was just taken by another entry; fetch and retry."
        ) from None
    set_credits(entry, bylines)
    if data is not None:
        _sync_translations(entry, fields, actor)
    if clean != before or action != "update":
        append_revision(entry, action, actor)
    changed(entry, action, actor)
    return entry


@transaction.atomic
def entry_delete_permanently(
    *, actor: Actor, entry: Entry | str, collection: Collection | None = None
) -> None:
    entry = lock(entry, collection)
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
    fields = fields_of(source.collection)
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
