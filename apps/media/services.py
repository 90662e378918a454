"""Writes to media: uploads (with deduplication), records for files already in storage, metadata edits, deletion.

An upload is analysed before anything is stored (hash, size, MIME type from the bytes, dimensions); a file of a type
outside the allow-list is refused; bytes identical to an existing item's return that item (``deduplicated``) and are
not stored again. Deleting a record deletes its file once no other record names it, after the transaction commits, so
a rolled-back delete never loses a file.
"""

from __future__ import annotations

import logging
from pathlib import PurePosixPath
from typing import IO, Any

from django.conf import settings
from django.db import transaction

from apps.accounts.permissions import Actor, authorize
from apps.core import events
from apps.core.db import transaction_lock
from apps.core.errors import ValidationError
from apps.core.ids import new_id
from apps.media import storage
from apps.media.analysis import Analysis, analyse, mime_allowed, same_bytes
from apps.media.errors import MediaTooLarge, MediaTypeRefused
from apps.media.models import MediaItem

logger = logging.getLogger("cms.media")
EDITABLE = ("alt", "caption", "width", "height")


def clean_filename(name: str | None) -> str:
    """The last path segment of a client-supplied name, without control characters, at most 255 characters."""
    base = PurePosixPath((name or "").replace("\\", "/")).name
    base = "".join(ch for ch in base if ch.isprintable()).strip()
    if len(base) > 255:
        suffix = PurePosixPath(base).suffix[:16]
        base = base[: 255 - len(suffix)] + suffix
    return base or "file"


def _check_type(analysis: Analysis) -> None:
    if not mime_allowed(analysis.mime_type):
        allowed = ", ".join(settings.CMS_MEDIA_ALLOWED_TYPES)
        found = analysis.mime_type or "not a recognised file type"
        raise MediaTypeRefused(
            f"The file's content is {found}; allowed types: {allowed}.",
            details={"file": f"Content detected as {found}; allowed: {allowed}."},
        )


def _check_size(size: int) -> None:
    if size > settings.CMS_MAX_UPLOAD_BYTES:
        raise MediaTooLarge(
            f"The file is {size} bytes; the limit is {settings.CMS_MAX_UPLOAD_BYTES} bytes.",
            details={"file": f"At most {settings.CMS_MAX_UPLOAD_BYTES} bytes."},
        )


def _duplicate_of(analysis: Analysis, stream: IO[bytes]) -> MediaItem | None:
    """An existing item with exactly these bytes: same hash and size, confirmed byte for byte."""
    candidates = MediaItem.objects.filter(content_hash=analysis.content_hash, size=analysis.size).order_by(
        "created_at", "id"
    )
    backend = storage.media_storage()
    for candidate in candidates:
        try:
            with backend.open(candidate.storage_key, "rb") as stored:
                if same_bytes(stored, stream):
                    return candidate
        except OSError:
            # The record's file is gone: it cannot stand in for this upload.
            logger.warning(
                "media file missing", extra={"media_id": candidate.pk, "key": candidate.storage_key}
            )
    return None


@transaction.atomic
def media_upload(
    *, actor: Actor, file: IO[bytes], filename: str, alt: str = "", caption: str = ""
) -> tuple[MediaItem, bool]:
    """Store uploaded bytes and record them. Returns (item, deduplicated): identical bytes already stored give the
    existing item and store nothing."""
    authorize(actor, "media.create")
    analysis = analyse(file)
    _check_size(analysis.size)
    if analysis.size == 0:
        raise ValidationError(details={"file": "The file is empty."})
    _check_type(analysis)
    # Two uploads of the same bytes at once must not both miss the other and store two copies.
    transaction_lock(f"media:{analysis.content_hash}")
    existing = _duplicate_of(analysis, file)
    if existing is not None:
        events.media_changed.send(
            sender=MediaItem, media=existing, action="upload", deduplicated=True, actor=actor
        )
        return existing, True
    name = clean_filename(filename)
    item_id = new_id()
    key = storage.media_storage().save(storage.new_key(name, analysis.extension, item_id=item_id), file)
    try:
        item = MediaItem.objects.create(
            id=item_id,
            filename=name,
            mime_type=analysis.mime_type,
            size=analysis.size,
            width=analysis.width,
            height=analysis.height,
            storage_key=key,
            content_hash=analysis.content_hash,
            alt=alt or "",
            caption=caption or "",
            author=actor.user,
        )
        events.media_changed.send(
            sender=MediaItem, media=item, action="upload", deduplicated=False, actor=actor
        )
    except BaseException:
        # The record was not written: do not leave its file behind.
        storage.media_storage().delete(key)
        raise
    # Called inside a caller's larger transaction that later rolls back, the file stays behind unreferenced (Django
    # has no rollback hook): callers make this the outermost transaction, as the REST view and the admin do.
    return item, False


@transaction.atomic
def media_create(
    *,
    actor: Actor,
    storage_key: str,
    filename: str | None = None,
    mime_type: str | None = None,
    size: int | None = None,
    width: int | None = None,
    height: int | None = None,
    alt: str = "",
    caption: str = "",
) -> tuple[MediaItem, bool]:
    """Record a file that is already in storage (SPEC §4.3 ``storageKey``). Its bytes are checked like an upload's:
    the sent MIME type and size must be what the bytes are. A key already recorded returns that record."""
    authorize(actor, "media.create")
    if problem := storage.key_problem(storage_key):
        raise ValidationError(details={"storageKey": problem})
    existing = MediaItem.objects.filter(storage_key=storage_key).order_by("created_at", "id").first()
    if existing is not None:
        return existing, True
    backend = storage.media_storage()
    if not backend.exists(storage_key):
        raise ValidationError(details={"storageKey": f"No file '{storage_key}' in the media storage."})
    with backend.open(storage_key, "rb") as stored:
        analysis = analyse(stored)
    _check_type(analysis)
    problems: dict[str, str] = {}
    if mime_type is not None and mime_type != analysis.mime_type:
        problems["mimeType"] = f"The file's content is {analysis.mime_type}, not {mime_type}."
    if size is not None and size != analysis.size:
        problems["size"] = f"The file has {analysis.size} bytes, not {size}."
    if problems:
        raise ValidationError(details=problems)
    item = MediaItem.objects.create(
        filename=clean_filename(filename or PurePosixPath(storage_key).name),
        mime_type=analysis.mime_type,
        size=analysis.size,
        # What the bytes say wins; sent dimensions serve formats Pillow cannot read.
        width=analysis.width if analysis.width is not None else width,
        height=analysis.height if analysis.height is not None else height,
        storage_key=storage_key,
        content_hash=analysis.content_hash,
        alt=alt or "",
        caption=caption or "",
        author=actor.user,
    )
    events.media_changed.send(sender=MediaItem, media=item, action="create", deduplicated=False, actor=actor)
    return item, False


@transaction.atomic
def media_update(*, actor: Actor, item: MediaItem, changes: dict[str, Any]) -> MediaItem:
    """Change alt text, caption, and (for formats whose header we cannot read) dimensions."""
    item = MediaItem.objects.select_for_update().get(pk=item.pk)
    authorize(actor, "media.update", owner_id=item.author_id)
    unknown = sorted(set(changes) - set(EDITABLE))
    if unknown:
        raise ValidationError(
            details={key: f"Not editable; editable: {', '.join(EDITABLE)}." for key in unknown}
        )
    for name, value in changes.items():
        setattr(item, name, ("" if value is None else value) if name in ("alt", "caption") else value)
    item.save()
    events.media_changed.send(sender=MediaItem, media=item, action="update", deduplicated=False, actor=actor)
    return item


@transaction.atomic
def media_delete(*, actor: Actor, item: MediaItem) -> None:
    """Delete the record, and its file when no other record names the same key (after commit)."""
    item = MediaItem.objects.select_for_update().get(pk=item.pk)
    authorize(actor, "media.delete", owner_id=item.author_id)
    events.media_changed.send(sender=MediaItem, media=item, action="delete", deduplicated=False, actor=actor)
    key = item.storage_key
    item.delete()
    if not MediaItem.objects.filter(storage_key=key).exists():
        transaction.on_commit(lambda: _delete_file(key))


def _delete_file(key: str) -> None:
    try:
        storage.media_storage().delete(key)
    except OSError:
        # The record is gone either way; a file left behind is logged for the operator, not an API failure.
        logger.exception("could not delete media file", extra={"key": key})
