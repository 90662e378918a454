"""Media import (SPEC §4.10 rule 7): each attachment downloaded through the safe HTTP client, stored through the
media service, recorded, and the featured images waiting for it linked."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import transaction

from apps.accounts.permissions import Actor, authorize
from apps.content.models import Entry
from apps.core import safehttp
from apps.core.errors import CmsError, InsufficientStorage
from apps.importer.errors import failure_reason
from apps.importer.models import ImportRecord
from apps.importer.services.records import record_get, record_put, write_imported_entry
from apps.media import services as media_services
from apps.media.models import MediaItem
from apps.media.remote import download, filename_from_url
from apps.media.storage import media_url


def attachment_filename(url: str, attachment_id: Any) -> str:
    return filename_from_url(url) or f"attachment-{attachment_id}"


def _download(url: str) -> tempfile.SpooledTemporaryFile:
    return download(url, read_timeout=settings.CMS_IMPORT_FETCH_TIMEOUT)


def _site_of_attachment(attachment_id: Any) -> str:
    record = ImportRecord.objects.filter(kind="attachment", source_id=str(attachment_id)).order_by(
        "-updated_at"
    )
    found = record.values_list("site", flat=True).first()
    return found or ""


def media_import(
    *,
    actor: Actor,
    attachments: list[dict[str, Any]],
    site: str | None = None,
    progress: Callable[[dict[str, Any]], None] | None = None,
    deadline: float | None = None,
) -> dict[str, Any]:
    """Download each attachment through the safe HTTP client and store it through the media service (identical
    bytes are stored once, rule 7). A failed download is listed for manual handling and the others go on; a full
    media quota or a full disk stops the import (StorageQuotaExceeded, InsufficientStorage: the next file would not
    fit either). Featured images waiting for these attachments are linked.

    With a ``deadline`` (a ``time.monotonic()`` value) no new download starts after it; the attachments not reached
    are answered as ``remaining`` for the caller to send again (at least one is always done, so each call advances).

    Each file is stored in its own media transaction together with its import record: if recording it fails, the
    stored file is deleted with the rolled-back row, never left behind unreferenced."""
    authorize(actor, "import.run")
    system = Actor.system()
    imported: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []
    url_map: dict[str, str] = {}
    total = len(attachments)
    remaining: list[dict[str, Any]] = []
    for position, attachment in enumerate(attachments, start=1):
        if deadline is not None and position > 1 and time.monotonic() > deadline:
            remaining = attachments[position - 1 :]
            break
        source_id, url = attachment["id"], attachment["url"]
        where = site if site is not None else _site_of_attachment(source_id)
        filename = attachment_filename(url, source_id)
        status = "imported"
        record = record_get(where, "media", source_id)
        item = MediaItem.objects.filter(pk=record.target_id).first() if record else None
        if item is not None:
            status = "existing"
        else:
            try:
                spool = _download(url)
            except safehttp.SafeHttpError as error:
                failure = {"url": url, "error": str(error), "reason": failure_reason(error)}
                failed.append({"id": source_id, **failure})
                record_put(where, "media_failed", source_id, payload=failure)
                status = "failed"
            else:
                with spool:
                    try:
                        with media_services.media_transaction():
                            item, deduplicated = media_services.media_upload(
                                actor=system, file=spool, filename=filename
                            )
                            record_put(where, "media", source_id, target_id=item.pk, payload={"url": url})
                            ImportRecord.objects.filter(
                                site=where, kind="media_failed", source_id=str(source_id)
                            ).delete()
                    except InsufficientStorage:
                        # SPEC §7: a full quota stops the import, and so does a full disk: no later file would fit.
                        raise
                    except CmsError as error:
                        failure = {"url": url, "error": error.message, "reason": failure_reason(error)}
                        failed.append({"id": source_id, **failure})
                        record_put(where, "media_failed", source_id, payload=failure)
                        status = "failed"
                        item = None
                    else:
                        status = "deduplicated" if deduplicated else "imported"
        if item is not None:
            url_map[url] = media_url(item.storage_key)
            imported.append({"id": source_id, "mediaId": item.pk, "url": url_map[url]})
            with transaction.atomic():
                link_featured_images(site=where, attachment_id=source_id, media=item)
        if progress is not None:
            progress(
                {
                    "type": "progress",
                    "current": position,
                    "total": total,
                    "filename": filename,
                    "status": status,
                }
            )
    return {
        "imported": len(imported),
        "failed": failed,
        "urlMap": url_map,
        "items": imported,
        "remaining": [{"id": item["id"], "url": item["url"]} for item in remaining],
    }


def link_featured_images(*, site: str, attachment_id: Any, media: MediaItem) -> int:
    """Point the featured image of every imported entry waiting for this attachment at its media item."""
    linked = 0
    waiting = ImportRecord.objects.filter(
        site=site,
        kind="entry",
        payload__featuredImage=int(attachment_id) if str(attachment_id).isdigit() else attachment_id,
    )
    for record in waiting:
        entry = Entry.objects.filter(pk=record.target_id, deleted_at__isnull=True).first()
        if entry is None or not _has_field(entry, "featured_image"):
            continue
        current = entry.data.get("featured_image") or {}
        if current.get("id") == media.pk:
            continue
        alt = current.get("alt")
        value = {"id": media.pk, **({"alt": alt} if alt else {})}
        write_imported_entry(entry, {"featured_image": value})
        linked += 1
    return linked


def _has_field(entry: Entry, slug: str) -> bool:
    return entry.collection.fields.filter(slug=slug).exists()
