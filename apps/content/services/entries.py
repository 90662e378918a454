"""Creating, changing and deleting entries: one at a time (REST, MCP, the admin) or many of one collection at once
(imports)."""

from __future__ import annotations

import copy
import dataclasses
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction

from apps.accounts.models import User
from apps.accounts.permissions import Actor, authorize
from apps.content import states
from apps.content.models import Entry, EntryByline, Revision, Status
from apps.content.services.bylines import (
    bylines_named,
    credit_problems,
    credit_rows,
    set_credits,
    unknown_bylines,
)
from apps.content.services.revisions import append_revision
from apps.content.services.shared import (
    SLUG_NEEDS_TEXT,
    VALUE_CONTEXT,
    WRITABLE_STATUSES,
    batch_context,
    changed,
    check_published_at,
    check_unique_values,
    choose_slug,
    derived_slug_base,
    duplicate_slug,
    fields_of,
    free_slug,
    locale_problem,
    lock,
    normal_slug,
    save,
    validate_data,
)
from apps.core import events
from apps.core.db import bulk_insert
from apps.core.errors import Conflict, DuplicateSlug, NotFound, ValidationError
from apps.core.ids import new_id
from apps.core.timefmt import now
from apps.schema.field_types import ValueContext
from apps.schema.models import Collection, Field


def _sync_translations(entry: Entry, fields: list[Field], actor: Actor) -> None:
    """Copy the values of non-translatable fields to the other entries of the translation group."""
    shared = _shared_fields(fields)
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


# --- create: a plan per row, then a writer for one entry or for many ------------------------------------------------

STATUS_PROBLEM = "Either draft or published; to publish later, create a draft and schedule it."
BATCH_SLUG_PROBLEM = "Required in a batch: give each row its slug."


@dataclasses.dataclass
class EntryPlan:
    """One entry to create: checked and normalised, not written. ``problems`` maps what is wrong with the row (its
    own keys, as a single create reports them) to how to fix it; nothing is written while any plan has one."""

    entry: Entry
    credits: list[dict]
    # The caller chose the slug: another entry holding it is an error, not a reason to take the next free one.
    explicit_slug: bool
    problems: dict[str, str] = dataclasses.field(default_factory=dict)
    # The JSON pointers of the problems in the row's data (ValidationError.pointers), for a single create's answer.
    pointers: dict[str, str] = dataclasses.field(default_factory=dict)
    # The entry this one translates (its group's non-translatable values are copied into the new entry).
    source: Entry | None = None


def plan_entry(
    *,
    actor: Actor,
    collection: Collection,
    fields: list[Field],
    moment: datetime,
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
    context: ValueContext = VALUE_CONTEXT,
) -> EntryPlan:
    """The rules of creating one entry, the same for ``entry_create`` and every row of ``entry_create_many``: status,
    locale, translation source, field values (``validate_data``), slug and credits' shape. Reads what one row needs
    (its translation source, the entries its reference fields name); what a batch reads once for all its rows (slugs
    taken, bylines) is checked by ``_check_stored``. Writes nothing."""
    problems: dict[str, str] = {}
    if status not in WRITABLE_STATUSES:
        problems["status"] = STATUS_PROBLEM
    elif status == Status.PUBLISHED:
        authorize(actor, "content.publish")
    locale = settings.CMS_DEFAULT_LOCALE if locale is None else locale
    if problem := locale_problem(locale):
        problems["locale"] = problem
    entry_id = new_id()
    source = None
    if translation_of is not None:
        source = Entry.objects.filter(
            pk=translation_of, collection=collection, deleted_at__isnull=True
        ).first()
        if source is None:
            problems["translationOf"] = f"No entry {translation_of} in '{collection.slug}'."
        elif isinstance(data, dict):
            # The group's non-translatable values, unless the new entry gives its own.
            shared = {key: source.data[key] for key in _shared_fields(fields) if key in source.data}
            data = {
                **{key: copy.deepcopy(value) for key, value in shared.items() if value is not None},
                **data,
            }
    try:
        clean = validate_data(collection=collection, fields=fields, data=data, creating=True, context=context)
    except ValidationError as error:
        problems.update(error.details)
        pointers = error.pointers
        clean = {}
    else:
        pointers = {}
    if slug is not None:
        slug = normal_slug(slug)
        if not slug:
            problems["slug"] = SLUG_NEEDS_TEXT
    problems.update(credit_problems(bylines))
    published = status == Status.PUBLISHED
    entry = Entry(
        id=entry_id,
        collection=collection,
        slug=slug or "",
        locale=locale,
        translation_group=source.translation_group if source else entry_id,
        status=status,
        data=clean,
        # Shared with data: a batch serialises both when inserting; one entry gets its own copy when written.
        live_data=clean if published else None,
        author=author if author is not None else actor.user,
        meta=meta or {},
        created_at=created_at or moment,
        updated_at=moment,
        published_at=(published_at or moment) if published else None,
        version=1,
    )
    return EntryPlan(entry, bylines or [], slug is not None, problems, pointers, source)


def _shared_fields(fields: list[Field]) -> list[str]:
    return [field.slug for field in fields if not field.translatable]


def _check_stored(collection: Collection, plans: list[EntryPlan], *, batch: bool) -> None:
    """The rules that compare the rows with what is stored (and, in a batch, with each other), one query each for
    any number of rows: credited bylines exist, explicit slugs are free and given once, a translation's locale is
    free in its group. Problems first (VALIDATION_ERROR for all rows at once), then conflicts."""
    found = bylines_named(plan.credits for plan in plans)
    wanted: dict[tuple[str, str], int] = {}
    for index, plan in enumerate(plans):
        for key, problem in unknown_bylines(plan.credits, found).items():
            plan.problems.setdefault(key, problem)
        if plan.credits and plan.credits[0].get("bylineId") in found:
            plan.entry.primary_byline = found[plan.credits[0]["bylineId"]]
        if not plan.explicit_slug:
            if batch:
                plan.problems["slug"] = BATCH_SLUG_PROBLEM
            continue
        if "slug" in plan.problems:
            continue
        key = (plan.entry.locale, plan.entry.slug)
        if key in wanted:
            plan.problems["slug"] = f"'{plan.entry.slug}' is given to row {wanted[key]} too."
        wanted.setdefault(key, index)
    problems = {
        (f"rows.{index}.{key}" if batch else key): problem
        for index, plan in enumerate(plans)
        for key, problem in plan.problems.items()
    }
    if problems:
        # A batch's rows are not a request's body (the importer makes them): only a single create names pointers.
        pointers = (
            {} if batch else {key: plans[0].pointers[key] for key in problems if key in plans[0].pointers}
        )
        raise ValidationError(details=problems, pointers=pointers)
    if wanted:
        taken = Entry.objects.filter(
            collection=collection, deleted_at__isnull=True, slug__in={slug for _, slug in wanted}
        ).values_list("locale", "slug", "pk")
        for locale, slug, holder in sorted(taken, key=lambda row: wanted.get(row[:2], len(plans))):
            if (locale, slug) in wanted:
                key = f"rows.{wanted[locale, slug]}.slug" if batch else "slug"
                raise duplicate_slug(collection, locale, slug, holder, key=key)
    for plan in plans:
        if plan.source is not None:
            _check_translation_free(plan.entry)


def _check_translation_free(entry: Entry) -> None:
    existing = (
        Entry.objects.filter(
            translation_group=entry.translation_group, locale=entry.locale, deleted_at__isnull=True
        )
        .values_list("pk", flat=True)
        .first()
    )
    if existing is not None:
        raise Conflict(
            f"The translation group already has a '{entry.locale}' entry ({existing}).",
            details={"locale": f"Taken by {existing}."},
        )


def _write_one(plan: EntryPlan, fields: list[Field], actor: Actor) -> Entry:
    """Insert one planned entry with its credits and first revision, and tell the others (``entry_changed``)."""
    entry = plan.entry
    if not plan.explicit_slug:
        entry.slug = free_slug(entry.collection_id, entry.locale, derived_slug_base(entry.data, entry.pk))
    if entry.live_data is not None:
        entry.live_data = copy.deepcopy(entry.data)
    check_unique_values(entry, fields, None)
    try:
        with transaction.atomic():
            entry.save(force_insert=True)
    except IntegrityError:
        # A concurrent writer took the slug or a unique value between our checks and the insert. Its row is
        # committed now (the insert waited for it), so checking the unique values again names it.
        check_unique_values(entry, fields, None)
        if plan.explicit_slug:
            raise DuplicateSlug(f"The slug '{entry.slug}' was just taken; choose another.") from None
        entry.slug = free_slug(entry.collection_id, entry.locale, entry.slug)
        try:
            with transaction.atomic():
                entry.save(force_insert=True)
        except IntegrityError:
            raise Conflict("A unique value or the slug was just taken by another entry; retry.") from None
    if plan.credits:
        EntryByline.objects.bulk_create(credit_rows(entry, plan.credits))
    if plan.source is not None:
        _sync_translations(entry, fields, actor)
    append_revision(entry, "publish" if entry.status == Status.PUBLISHED else "create", actor)
    changed(entry, "create", actor)
    return entry


def _write_many(
    collection: Collection, plans: list[EntryPlan], actor: Actor, moment: datetime
) -> list[Entry]:
    """Insert planned entries together: one statement each for the entries, their credits and their revisions, and
    one ``entries_created`` event for all."""
    entries = [plan.entry for plan in plans]
    try:
        with transaction.atomic():
            bulk_insert(entries)
    except IntegrityError:
        raise Conflict("A slug was just taken by another entry; retry.") from None
    bulk_insert([row for plan in plans for row in credit_rows(plan.entry, plan.credits)])
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
    ``created_at`` keeps the original date of imported content (now by default). Without ``slug`` the entry gets a
    free one made from its title."""
    authorize(actor, "content.create")
    fields = fields_of(collection)
    plan = plan_entry(
        actor=actor,
        collection=collection,
        fields=fields,
        moment=now(),
        data=data,
        slug=slug,
        status=status,
        locale=locale,
        translation_of=translation_of,
        bylines=bylines,
        author=author,
        published_at=published_at,
        meta=meta,
        created_at=created_at,
    )
    _check_stored(collection, [plan], batch=False)
    return _write_one(plan, fields, actor)


@transaction.atomic
def entry_create_many(*, actor: Actor, collection: Collection, rows: list[dict[str, Any]]) -> list[Entry]:
    """Create many entries of one collection at once (imports), all or nothing: each row planned by the rules of
    ``entry_create`` (``plan_entry``, so a row is refused with the same messages, under ``rows.N.``), then written
    together.

    A row has the arguments of ``entry_create``; its ``slug`` is required. In a collection with unique fields, or
    with translations among the rows, the rows are written one by one, each checked against those written before
    it."""
    authorize(actor, "content.create")
    if not rows:
        return []
    fields = fields_of(collection)
    moment = now()
    context = batch_context(fields, [row.get("data") for row in rows])
    plans = [
        plan_entry(actor=actor, collection=collection, fields=fields, moment=moment, context=context, **row)
        for row in rows
    ]
    _check_stored(collection, plans, batch=True)
    if any(field.unique for field in fields) or any(plan.source for plan in plans):
        return [_write_one(plan, fields, actor) for plan in plans]
    return _write_many(collection, plans, actor, moment)


# --- update and delete ---------------------------------------------------------------------------------------------


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
    published_at: datetime | None = None,
) -> Entry:
    """Change fields (those not sent stay as they are), slug, status (draft or published), credits, and the
    publication date (``published_at``, not in the future, as ``entry_publish`` takes it) of an entry that is
    published or is being published by this update.

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
    if status == Status.PUBLISHED or published_at is not None:
        authorize(actor, "content.publish", owner_id=entry.author_id)
    if published_at is not None:
        check_published_at(published_at)
        if status != Status.PUBLISHED and (status is not None or entry.status != Status.PUBLISHED):
            raise ValidationError(
                details={
                    "publishedAt": "Only a published entry has a publication date: send status 'published' "
                    "with it, or publish the entry."
                }
            )
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
            published_at=published_at or entry.published_at or moment,
            scheduled_at=None,
        )
        action = "publish"
    elif status == Status.DRAFT and entry.status != Status.DRAFT:
        changes.update(status=Status.DRAFT, scheduled_at=None)
        action = "unpublish" if entry.status == Status.PUBLISHED else "unschedule"
    elif entry.status == Status.PUBLISHED and not collection.supports_feature("drafts"):
        changes["live_data"] = copy.deepcopy(clean)
    if published_at is not None:
        changes["published_at"] = published_at
    probe = copy.copy(entry)
    probe.data = clean
    probe.locale = entry.locale
    check_unique_values(probe, fields, before)
    previous_version, previous_slug = entry.version, entry.slug
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
    moved = {"previous_slug": previous_slug} if entry.slug != previous_slug else {}
    changed(entry, action, actor, **moved)
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
