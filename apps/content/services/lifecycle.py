"""The lifecycle of SPEC §3: publish, unpublish, schedule, trash, restore, and the worker's pass that publishes
scheduled entries whose time has come. Each asks the state table (``states.check``) before writing."""

from __future__ import annotations

import copy
import logging
from datetime import datetime

from django.db import transaction
from django.db.models import Q

from apps.accounts.permissions import Actor, authorize
from apps.background.queues import enqueue
from apps.content import states
from apps.content.errors import InvalidTransition
from apps.content.models import Entry, Status
from apps.content.services.revisions import append_revision
from apps.content.services.shared import (
    changed,
    check_published_at,
    check_unique_values,
    fields_of,
    free_slug,
    lock,
    save,
    slug_taken,
)
from apps.content.tasks import publish_scheduled
from apps.core import metrics
from apps.core.errors import Conflict, ValidationError
from apps.core.timefmt import iso, now
from apps.schema.models import Collection

logger = logging.getLogger(__name__)


def _publication(entry: Entry, *, published_at: datetime | None = None) -> dict:
    """The plan of publishing ``entry``, the same for an editor and the scheduled-publishing worker: the state table
    allows it, and the row's new values. The first publication date is kept unless ``published_at`` is given."""
    states.check("publish", entry)
    return {
        "status": Status.PUBLISHED,
        "live_data": copy.deepcopy(entry.data),
        "published_at": published_at or entry.published_at or now(),
        "scheduled_at": None,
    }


def _publish(entry: Entry, publication: dict, actor: Actor) -> Entry:
    save(entry, entry.version, **publication)
    append_revision(entry, "publish", actor)
    changed(entry, "publish", actor)
    return entry


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
    publication = _publication(entry, published_at=published_at)
    check_published_at(published_at)
    return _publish(entry, publication, actor)


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
    feature = states.check("schedule", entry).feature
    if feature and not entry.collection.supports_feature(feature):
        raise ValidationError(
            f"The collection '{entry.collection.slug}' does not support scheduling; add 'scheduling' to its supports.",
            details={"scheduledAt": "Scheduling is not enabled for this collection."},
        )
    if scheduled_at <= now():
        raise ValidationError(
            details={"scheduledAt": f"{iso(scheduled_at)} is not in the future (now {iso(now())})."}
        )
    save(entry, entry.version, status=Status.SCHEDULED, scheduled_at=scheduled_at)
    # Its own task at its time (written with the entry, so it exists exactly when the schedule does).
    enqueue(publish_scheduled, run_after=scheduled_at)
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


def _due(moment: datetime) -> Q:
    return Q(status=Status.SCHEDULED, scheduled_at__lte=moment)


def any_due() -> bool:
    return Entry.objects.filter(_due(now())).exists()


def publish_due(*, at: datetime | None = None, limit: int = 200) -> list[Entry]:
    """Publish scheduled entries whose time has come, each in its own transaction, by the rules an editor's
    ``entry_publish`` follows: the due entries the state table allows to be published (``states.permits``), each
    checked again once locked (``states.check``: it may have been trashed meanwhile). One the table refuses is left
    as it is and logged with the refusal an editor would get; ``due_refusals`` lists those.

    Safe with several workers: a row is published by whoever locks it first, and the conditional update makes a
    second attempt a no-op."""
    moment = at or now()
    actor = Actor.system()
    due = list(
        Entry.objects.filter(_due(moment), states.permits("publish"))
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
                .filter(_due(moment), pk=entry_id)
                .first()
            )
            if entry is None:
                continue
            try:
                publication = _publication(entry, published_at=entry.scheduled_at)
            except InvalidTransition as refusal:
                logger.info("Scheduled entry %s not published: %s", entry.pk, refusal.message)
                continue
            try:
                published.append(_publish(entry, publication, actor))
            except Conflict:
                continue  # another worker published it first
        # Committed: how late the worker was (its polling interval, or a worker that was busy or down).
        metrics.observe_publish_lag((now() - publication["published_at"]).total_seconds())
    return published


def due_refusals(*, at: datetime | None = None, limit: int = 100) -> list[tuple[Entry, str]]:
    """Scheduled entries whose time has come that the state table does not let be published (in the trash, say),
    each with the refusal an editor publishing it would get. ``publish_due`` leaves them as they are."""
    held = (
        Entry.objects.filter(_due(at or now()))
        .exclude(states.permits("publish"))
        .select_related("collection")
        .order_by("scheduled_at", "pk")[:limit]
    )
    refusals = []
    for entry in held:
        try:
            states.check("publish", entry)
        except InvalidTransition as refusal:
            refusals.append((entry, refusal.message))
    return refusals
