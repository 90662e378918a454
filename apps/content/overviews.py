"""Reads across many entries or collections at once: digests for overviews (the studio's dashboard), entry counts
per collection, how many entries hold a field, and where a media item is used. They authorize like every selector;
split from ``selectors`` by size, not by kind."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Q, TextField
from django.db.models.functions import Cast

from apps.accounts.permissions import Actor, authorize
from apps.content.models import Entry
from apps.content.selectors import MEDIA_REFERENCE_TYPES
from apps.core.db.jsonkeys import JsonKey
from apps.schema.models import Collection


@dataclass(frozen=True)
class EntryDigest:
    """An entry as a list across collections shows it: where it lives, its title and its dates, no data."""

    id: str
    collection: str
    collection_label: str
    slug: str
    locale: str
    title: str
    status: str
    updated_at: datetime
    scheduled_at: datetime | None


def entry_digests(
    *,
    actor: Actor | None,
    author_id: str | None = None,
    status: str | None = None,
    order_by: str = "-updated_at",
    limit: int = 10,
) -> list[EntryDigest]:
    """The latest live (not trashed) entries of every collection, titled by each collection's title field, in one
    query: for overviews such as the studio's dashboard. Needs drafts access (working copies and every status)."""
    from apps.schema.selectors import collections_for_read, title_field

    authorize(actor, "content.read_drafts")
    collections = {collection.pk: collection for collection in collections_for_read()}
    titles = {pk: title_field(collection) for pk, collection in collections.items()}
    keys = sorted({key for key in titles.values() if key})
    entries = Entry.objects.filter(deleted_at__isnull=True)
    if author_id is not None:
        entries = entries.filter(author_id=author_id)
    if status is not None:
        entries = entries.filter(status=status)
    columns = {f"title_{index}": JsonKey("data", key) for index, key in enumerate(keys)}
    rows = (
        entries.annotate(**columns)
        .order_by(order_by, "-id")
        .values(
            "id",
            "collection_id",
            "slug",
            "locale",
            "status",
            "updated_at",
            "scheduled_at",
            *columns,
        )[:limit]
    )
    digests = []
    for row in rows:
        collection = collections.get(row["collection_id"])
        if collection is None:
            continue
        key = titles[row["collection_id"]]
        title = row.get(f"title_{keys.index(key)}") if key else None
        digests.append(
            EntryDigest(
                id=row["id"],
                collection=collection.slug,
                collection_label=collection.label or collection.slug,
                slug=row["slug"],
                locale=row["locale"],
                title=title or row["slug"],
                status=row["status"],
                updated_at=row["updated_at"],
                scheduled_at=row["scheduled_at"],
            )
        )
    return digests


@dataclass(frozen=True)
class MediaUsage:
    """An entry that references a media item: in which of its fields, and in which of its versions (the working copy
    ``draft``, the published ``live``)."""

    id: str
    collection: str
    collection_label: str
    slug: str
    locale: str
    title: str
    status: str
    trashed: bool
    fields: list[str]
    versions: list[str]


@dataclass(frozen=True)
class MediaUsages:
    items: list[MediaUsage]
    truncated: bool


def _references_media(value, media_id: str) -> bool:
    """Whether Portable Text (any block, at any depth: images, galleries, covers, video, audio, file blocks) names the
    media item, as ``mediaId`` or as an ``asset`` reference."""
    if isinstance(value, list):
        return any(_references_media(item, media_id) for item in value)
    if not isinstance(value, dict):
        return False
    if value.get("mediaId") == media_id:
        return True
    asset = value.get("asset")
    if isinstance(asset, dict) and media_id in (asset.get("_ref"), asset.get("id")):
        return True
    return any(_references_media(item, media_id) for item in value.values() if isinstance(item, list | dict))


def _fields_using(fields, values, media_id: str) -> list[str]:
    if not isinstance(values, dict):
        return []
    found = []
    for defined in fields:
        value = values.get(defined.slug)
        if defined.type in MEDIA_REFERENCE_TYPES:
            if isinstance(value, dict) and value.get("id") == media_id:
                found.append(defined.slug)
        elif _references_media(value, media_id):
            found.append(defined.slug)
    return found


def media_usages(*, actor: Actor | None, media_id: str, limit: int = 100) -> MediaUsages:
    """The entries (live or trashed, every collection) whose image or file fields or Portable Text reference the media
    item, latest edited first, in one query: image and file fields by their ``id`` key, Portable Text fields by the
    id's text in the stored JSON, each candidate then confirmed on its parsed data (a text match alone could be a
    mention in prose). Lists drafts, so it needs the drafts reader's role (``media.usages``)."""
    from apps.media.selectors import media_get
    from apps.schema.selectors import collections_for_read, title_field

    authorize(actor, "media.usages")
    media_id = media_get(media_id=media_id).pk
    collections = {}
    where = Q()
    for collection in collections_for_read():
        fields = [
            defined
            for defined in collection.fields.all()
            if defined.type in (*MEDIA_REFERENCE_TYPES, "portableText")
        ]
        if not fields:
            continue
        collections[collection.pk] = (collection, fields)
        matches = Q()
        for column in ("data", "live_data"):
            for defined in fields:
                if defined.type in MEDIA_REFERENCE_TYPES:
                    matches |= Q(**{f"{column}__{defined.slug}__id": media_id})
            if any(defined.type == "portableText" for defined in fields):
                matches |= Q(**{f"{column}_text__contains": media_id})
        where |= Q(collection_id=collection.pk) & matches
    if not collections:
        return MediaUsages(items=[], truncated=False)
    rows = (
        Entry.objects.annotate(
            data_text=Cast("data", TextField()), live_data_text=Cast("live_data", TextField())
        )
        .filter(where)
        .order_by("-updated_at", "-id")
        .values("id", "collection_id", "slug", "locale", "status", "deleted_at", "data", "live_data")[
            : limit + 1
        ]
    )
    items = []
    for row in rows:
        collection, fields = collections[row["collection_id"]]
        draft = _fields_using(fields, row["data"], media_id)
        live = _fields_using(fields, row["live_data"], media_id)
        if not draft and not live:
            continue
        key = title_field(collection)
        title = (row["data"] or {}).get(key) if key else None
        items.append(
            MediaUsage(
                id=row["id"],
                collection=collection.slug,
                collection_label=collection.label or collection.slug,
                slug=row["slug"],
                locale=row["locale"],
                title=title if isinstance(title, str) and title.strip() else row["slug"],
                status=row["status"],
                trashed=row["deleted_at"] is not None,
                fields=[defined.slug for defined in fields if defined.slug in draft or defined.slug in live],
                versions=[name for name, found in (("draft", draft), ("live", live)) if found],
            )
        )
    return MediaUsages(items=items[:limit], truncated=len(rows) > limit)


def entry_counts(*, actor: Actor | None) -> dict[str, int]:
    """How many entries each collection holds (by collection id), trash included: what deleting it deletes."""
    authorize(actor, "content.read_drafts")
    rows = Entry.objects.order_by().values("collection_id").annotate(count=Count("id"))
    return {row["collection_id"]: row["count"] for row in rows}


def entries_holding(*, actor: Actor | None, collection: Collection, key: str) -> int:
    """How many entries of ``collection`` (trash included) hold a value for the data key ``key`` in their working copy
    or published version: what removing the field takes data from, or what a type change converts."""
    authorize(actor, "content.read_drafts")
    holding = Q(data__has_key=key) | Q(live_data__has_key=key)
    return Entry.objects.filter(collection=collection).filter(holding).count()
