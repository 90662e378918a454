"""Revisions: each write that changes an entry's content records one (when the collection supports them), the newest
``REVISIONS_KEPT`` are kept, and an old one can be written back into the working copy."""

from __future__ import annotations

import copy

from django.db import transaction
from django.db.models import Subquery

from apps.accounts.permissions import Actor, authorize
from apps.content import states
from apps.content.models import Entry, Revision
from apps.content.services.shared import changed, check_unique_values, fields_of, lock, save, validate_data
from apps.core.timefmt import now

REVISIONS_KEPT = 50


def append_revision(entry: Entry, action: str, actor: Actor) -> None:
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


# --- revisions ------------------------------------------------------------------------------------------------------


@transaction.atomic
def revision_restore(*, actor: Actor, revision: Revision) -> Entry:
    """Write a revision's data into the working copy and record that as a new revision. Nothing is published.

    Fields removed since the revision are left out; a value that no longer fits its field's current definition is
    refused, naming the field."""
    entry = lock(revision.entry_id)
    authorize(actor, "content.update", owner_id=entry.author_id)
    states.check("restore_revision", entry)
    fields = fields_of(entry.collection)
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
    check_unique_values(probe, fields, entry.data)
    save(entry, entry.version, data=clean)
    append_revision(entry, "restore", actor)
    changed(entry, "revision_restore", actor)
    return entry
