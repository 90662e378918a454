"""Reads of media: pages of items (newest first, optionally by MIME type prefix and by words of their filename, alt
text or caption), one item, and items by id in bulk
for resolving references in entries and settings (one query for a whole page).

The reads a face answers (``media_list``, ``media_read``) check ``media.read`` themselves, so REST and MCP cannot
disagree about who may read; ``media_get`` finds the item a write acts on, and the write's service authorizes."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Q

from apps.accounts.permissions import Actor, authorize
from apps.core.errors import NotFound
from apps.core.pagination import Page, SortKey, keyset_page
from apps.media.models import MediaItem

ORDER = (SortKey("created_at", descending=True, kind="datetime"), SortKey("id", descending=True))
# What resolving a reference needs; the rest of the row stays in the database.
REFERENCE_FIELDS = ("id", "filename", "mime_type", "size", "width", "height", "storage_key", "alt")


def media_list(
    *,
    actor: Actor | None,
    mime_type: str | None = None,
    search: str | None = None,
    cursor: str | None = None,
    limit: int = 20,
    with_author: bool = False,
) -> Page[MediaItem]:
    """``search``: items whose filename, alt text or caption contains it, ignoring case (a picker's search box; the
    library is small next to entries, so no index beyond the scan of one table). ``with_author``: each item's
    uploader in the same query, for pages that name them."""
    authorize(actor, "media.read")
    items = MediaItem.objects.select_related("author") if with_author else MediaItem.objects.all()
    if mime_type:
        # A prefix filter (SPEC §4.3): "image/" or "image" for every image, "image/png" for PNGs only.
        items = items.filter(mime_type__startswith=mime_type)
    search = (search or "").strip()
    if search:
        items = items.filter(
            Q(filename__icontains=search) | Q(alt__icontains=search) | Q(caption__icontains=search)
        )
    # A cursor is bound to its filters, so a page of one search cannot continue another.
    scope = f"media:{mime_type or ''}" + (f":{search}" if search else "")
    return keyset_page(items, keys=ORDER, cursor=cursor, limit=limit, scope=scope)


def media_read(*, actor: Actor | None, media_id: str, with_author: bool = False) -> MediaItem:
    authorize(actor, "media.read")
    if with_author:
        item = MediaItem.objects.select_related("author").filter(pk=media_id).first()
        if item is None:
            raise NotFound(f"No media item {media_id}.")
        return item
    return media_get(media_id=media_id)


def media_get(*, media_id: str) -> MediaItem:
    """The item a write acts on (its service authorizes), or NOT_FOUND."""
    item = MediaItem.objects.filter(pk=media_id).first()
    if item is None:
        raise NotFound(f"No media item {media_id}.")
    return item


def media_by_key(*, key: str) -> MediaItem | None:
    return MediaItem.objects.filter(storage_key=key).order_by("created_at", "id").first()


def missing_media(ids: Iterable[str]) -> list[str]:
    """The ids among ``ids`` that name no media item (what image and file field values are checked against)."""
    wanted = list(dict.fromkeys(item for item in ids if isinstance(item, str) and item))
    if not wanted:
        return []
    found = set(MediaItem.objects.filter(pk__in=wanted).values_list("pk", flat=True))
    return [item for item in wanted if item not in found]


def media_by_ids(ids: Iterable[str]) -> dict[str, MediaItem]:
    wanted = {item for item in ids if isinstance(item, str) and item}
    if not wanted:
        return {}
    return {item.pk: item for item in MediaItem.objects.filter(pk__in=wanted).only(*REFERENCE_FIELDS)}
