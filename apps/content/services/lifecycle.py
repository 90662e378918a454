"""The lifecycle of SPEC §3: publish, unpublish, schedule, trash, restore, and the worker's pass that publishes
scheduled entries whose time has come. Each asks the state table (``states.check``) before writing."""

from __future__ import annotations

import copy
from datetime import datetime

from django.db import transaction

from apps.accounts.permissions import Actor, authorize
from apps.content import states
from apps.content.models import Entry, Status
from apps.content.services.revisions import append_revision
from apps.content.services.shared import (
    changed,
    check_unique_values,
    fields_of,
    free_slug,
    lock,
    save,
    slug_taken,
)
from apps.core.errors import Conflict, ValidationError
from apps.core.timefmt import iso, now
from apps.schema.models import Collection


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
    entry = lock(entry, collection)
    authorize(actor, "content.publish", owner_id=entry.author_id)
    states.check("publish", entry)
    moment = now()
    if published_at is not None and published_at > moment:
        raise ValidationError(
            details={
                "publishedAt": f"{iso(published_at)} is in the future; schedule the entry instead (…/schedule)."
            }
        )
    save(
        entry,
        entry.version,
        status=Status.PUBLISHED,
        live_data=copy.deepcopy(entry.data),
        published_at=published_at or entry.published_at or moment,
        scheduled_at=None,
    )
    append_revision(entry, "publish", actor)
    changed(entry, "publish", actor)
    return entry


@transaction.atomic
def entry_unpublish(*, actor: Actor, entry: Entry | str, collection: Collection | None = None) -> Entry:
    """Take the entry offline; its content (working copy and last published version) is kept."""
    entry = lock(entry, collection)
    authorize(actor, "content.publish", owner_id=entry.author_id)
    states.check("unpublish", entry)
    save(entry, entry.version, status=Status.DRAFT)
    append_revision(entry, "unpublish", actor)
    changed(entry, "unpublish", actor)
    return entry


@transaction.atomic
def entry_schedule(
    *, actor: Actor, entry: Entry | str, collection: Collection | None = None, scheduled_at: datetime
) -> Entry:
    """Publish the working copy automatically at ``scheduled_at`` (the worker does it). Until then the entry is not
    public, as a scheduled post in WordPress."""
    entry = lock(entry, collection)
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
    save(entry, entry.version, status=Status.SCHEDULED, scheduled_at=scheduled_at)
    changed(entry, "schedule", actor)
    return entry


@transaction.atomic
def entry_unschedule(*, actor: Actor, entry: Entry | str, collection: Collection | None = None) -> Entry:
    entry = lock(entry, collection)
    authorize(actor, "content.publish", owner_id=entry.author_id)
    states.check("unschedule", entry)
    save(entry, entry.version, status=Status.DRAFT, scheduled_at=None)
    changed(entry, "unschedule", actor)
    return entry


@transaction.atomic
def entry_discard_draft(*, actor: Actor, entry: Entry | str, collection: Collection | None = None) -> Entry:
    """Drop the working copy's changes: it becomes the last published version again."""
    entry = lock(entry, collection)
    authorize(actor, "content.update", owner_id=entry.author_id)
    states.check("discard_draft", entry)
    if entry.data != entry.live_data:
        save(entry, entry.version, data=copy.deepcopy(entry.live_data))
        append_revision(entry, "discard_draft", actor)
        changed(entry, "discard_draft", actor)
    return entry


@transaction.atomic
def entry_trash(*, actor: Actor, entry: Entry | str, collection: Collection | None = None) -> Entry:
    entry = lock(entry, collection)
    authorize(actor, "content.delete", owner_id=entry.author_id)
    states.check("trash", entry)
    save(entry, entry.version, deleted_at=now())
    changed(entry, "trash", actor)
    return entry


@transaction.atomic
def entry_restore(*, actor: Actor, entry: Entry | str, collection: Collection | None = None) -> Entry:
    """Bring an entry back from the trash with the status it had. If another entry took its slug meanwhile, it gets
    the next free one (``-2`` …)."""
    entry = lock(entry, collection)
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
    if slug_taken(entry.collection_id, entry.locale, slug, exclude=entry.pk):
        slug = free_slug(entry.collection_id, entry.locale, slug, exclude=entry.pk)
    entry.deleted_at = None
    check_unique_values(entry, fields_of(entry.collection), None)
    save(entry, entry.version, deleted_at=None, slug=slug)
    changed(entry, "restore", actor)
    return entry


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
                save(
                    entry,
                    entry.version,
                    status=Status.PUBLISHED,
                    live_data=copy.deepcopy(entry.data),
                    published_at=entry.scheduled_at,
                    scheduled_at=None,
                )
            except Conflict:
                continue  # another worker published it first
            append_revision(entry, "publish", actor)
            changed(entry, "publish", actor)
            published.append(entry)
    return published
