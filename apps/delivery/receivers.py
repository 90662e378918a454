"""What the delivery layer does when content moves: a published entry whose slug changed, or a collection whose URL
pattern changed, leaves redirects from the old paths (apps/core/events.py; in the writer's transaction, so the
redirect exists exactly when the change does)."""

from __future__ import annotations

from apps.content.models import Entry, Status
from apps.delivery.services import moves_record
from apps.schema import selectors as schema_selectors
from apps.schema.addresses import entry_path

BATCH = 2000


def _published(entry) -> bool:
    """On the public site (public reads serve published entries only)."""
    return entry.deleted_at is None and entry.status == Status.PUBLISHED


def on_entry_changed(sender, *, entry, action: str, previous_slug: str | None = None, **kwargs) -> None:
    if previous_slug is None or previous_slug == entry.slug:
        return
    pattern = schema_selectors.collection_for_read(collection_id=entry.collection_id).url_pattern
    if not pattern or not _published(entry):
        return
    old = entry_path(pattern, slug=previous_slug, locale=entry.locale, id=entry.pk)
    new = entry_path(pattern, slug=entry.slug, locale=entry.locale, id=entry.pk)
    moves_record([(old, new, entry.pk)])


def on_collection_url_changed(sender, *, collection, previous_pattern: str, **kwargs) -> None:
    """Every published entry moved from its path under the old pattern to the new one (none when either is empty:
    entries without a pattern had no address, and entries that lose theirs have nowhere to point)."""
    if not previous_pattern or not collection.url_pattern:
        return
    rows = (
        Entry.objects.filter(collection=collection, deleted_at__isnull=True, status=Status.PUBLISHED)
        .values_list("pk", "slug", "locale")
        .order_by("pk")
    )
    moves = []
    for pk, slug, locale in rows.iterator(chunk_size=BATCH):
        moves.append(
            (
                entry_path(previous_pattern, slug=slug, locale=locale, id=pk),
                entry_path(collection.url_pattern, slug=slug, locale=locale, id=pk),
                pk,
            )
        )
        if len(moves) >= BATCH:
            moves_record(moves)
            moves = []
    moves_record(moves)
