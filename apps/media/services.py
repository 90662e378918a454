"""Writes to media: uploads (with deduplication), records for files already in storage, metadata edits, deletion.

An upload is analysed before anything is stored (hash, size, MIME type from the bytes, dimensions); a file of a type
outside the allow-list is refused; images lose their identifying metadata (``metadata.without_metadata``: GPS,
camera, dates) and are analysed again, so everything after concerns the bytes actually stored; bytes identical to an
existing item's return that item (``deduplicated``) and are not stored again; a file that would take the media past ``CMS_MEDIA_QUOTA_BYTES`` is refused (507). Deleting a record
deletes its file once no other record names it, after the transaction commits, so a rolled-back delete never loses a
file.

The reverse holds for uploads: a stored file whose record does not commit is deleted, so no file is left that no
record names. A full disk while writing (ENOSPC, EDQUOT) is 507 ``INSUFFICIENT_STORAGE``, with the part already
written removed. Object storage that is unreachable, hung past its timeouts or failing is 503
``SERVICE_UNAVAILABLE`` with Retry-After (``storage.reachable``): the record is rolled back, and what may have been
stored is deleted, or named in a warning when the storage cannot take that either.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import PurePosixPath
from typing import IO, Any

from django.conf import settings
from django.db import transaction
from django.db.models import Sum

from apps.accounts.permissions import Actor, authorize
from apps.core import events
from apps.core.db.locks import transaction_lock
from apps.core.errors import InsufficientStorage, ValidationError, storage_full
from apps.core.ids import new_id
from apps.media import renditions, storage, tasks
from apps.media.analysis import Analysis, analyse, mime_allowed, same_bytes
from apps.media.errors import MediaTooLarge, MediaTypeRefused, StorageQuotaExceeded, StorageUnavailable
from apps.media.metadata import without_metadata
from apps.media.models import MediaItem

logger = logging.getLogger("cms.media")
EDITABLE = ("alt", "caption", "width", "height", "focalPoint")


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


def _check_quota(size: int) -> None:
    quota = settings.CMS_MEDIA_QUOTA_BYTES
    if not quota:
        return
    used = MediaItem.objects.aggregate(total=Sum("size"))["total"] or 0
    if used + size > quota:
        raise StorageQuotaExceeded(
            f"Storing this file ({size} bytes) would exceed the media quota: {used} of {quota} bytes used.",
            details={"usedBytes": used, "quotaBytes": quota, "neededBytes": size},
        )


# The keys stored inside the innermost media_transaction block, for it to delete unless its transaction commits.
_stored_keys: ContextVar[list[str] | None] = ContextVar("media_stored_keys", default=None)


@contextmanager
def media_transaction() -> Iterator[None]:
    """``transaction.atomic()`` that deletes the files ``media_upload`` stored inside it when it does not commit.

    Django has no rollback hook, and a file is not part of the database transaction: without this, a record rolled
    back after its file was written (a failing insert, a failing event handler, a caller's later step failing)
    leaves a file that nothing names. ``media_upload`` runs in one. A caller that stores media and then writes more
    in the same transaction (the importer records what each attachment became) wraps both in one too: a nested
    block hands its files to the enclosing one, whose transaction decides. Inside a plain ``atomic`` of a caller
    that later rolls back, the file is left behind; such callers use this block instead.
    """
    stored: list[str] = []
    token = _stored_keys.set(stored)
    try:
        with transaction.atomic():
            yield
            # Set when the block caught an error of an inner atomic, or asked for it: it ends in a rollback.
            rolled_back = transaction.get_rollback()
    except BaseException:
        _delete_files(stored)
        raise
    finally:
        _stored_keys.reset(token)
    if rolled_back:
        _delete_files(stored)
        return
    enclosing = _stored_keys.get()
    if enclosing is not None:
        enclosing.extend(stored)


def _delete_files(keys: list[str]) -> None:
    for key in keys:
        _delete_file(key)
    keys.clear()


def _store(file: IO[bytes], key: str) -> str:
    """Write the bytes under ``key`` (a new key: nothing else is there); the key they were stored under."""
    backend = storage.media_storage()
    try:
        with storage.reachable():
            return backend.save(key, file)
    except BaseException as error:
        # Storage backends do not remove what they wrote before failing (FileSystemStorage leaves the partial
        # file); the key is new, so whatever is there is that part.
        _delete_file(key)
        if storage_full(error):
            logger.error("media storage full", exc_info=error, extra={"key": key})
            raise InsufficientStorage(
                "The media storage is full: the file was not stored. Try again once space has been freed."
            ) from error
        raise


def _duplicate_of(analysis: Analysis, stream: IO[bytes]) -> MediaItem | None:
    """An existing item with exactly these bytes: same hash and size, confirmed byte for byte."""
    candidates = MediaItem.objects.filter(content_hash=analysis.content_hash, size=analysis.size).order_by(
        "created_at", "id"
    )
    backend = storage.media_storage()
    for candidate in candidates:
        try:
            with storage.reachable(), backend.open(candidate.storage_key, "rb") as stored:
                if same_bytes(stored, stream):
                    return candidate
        except OSError:
            # The record's file is gone: it cannot stand in for this upload.
            logger.warning(
                "media file missing", extra={"media_id": candidate.pk, "key": candidate.storage_key}
            )
    return None


def _declared_problems(analysis: Analysis, mime_type: str | None, size: int | None) -> None:
    """A MIME type or size the caller stated must be what the bytes are."""
    problems: dict[str, str] = {}
    if mime_type is not None and mime_type != analysis.mime_type:
        problems["mimeType"] = f"The file's content is {analysis.mime_type}, not {mime_type}."
    if size is not None and size != analysis.size:
        problems["size"] = f"The file has {analysis.size} bytes, not {size}."
    if problems:
        raise ValidationError(details=problems)


def media_upload(
    *,
    actor: Actor,
    file: IO[bytes],
    filename: str,
    alt: str = "",
    caption: str = "",
    mime_type: str | None = None,
) -> tuple[MediaItem, bool]:
    """Store uploaded bytes and record them. Returns (item, deduplicated): identical bytes already stored give the
    existing item and store nothing. A ``mime_type`` the caller states must be what the bytes are."""
    with media_transaction():
        return _upload(
            actor=actor, file=file, filename=filename, alt=alt, caption=caption, mime_type=mime_type
        )


def _upload(
    *, actor: Actor, file: IO[bytes], filename: str, alt: str, caption: str, mime_type: str | None = None
) -> tuple[MediaItem, bool]:
    authorize(actor, "media.create")
    analysis = analyse(file)
    _check_size(analysis.size)
    if analysis.size == 0:
        raise ValidationError(details={"file": "The file is empty."})
    _check_type(analysis)
    _declared_problems(analysis, mime_type, None)
    cleaned = without_metadata(file, analysis.mime_type)
    if cleaned is not None:
        # What is stored is what is hashed and compared: the same photo uploaded twice loses the same metadata, so
        # it still deduplicates, and its dimensions are those of the turned picture.
        file = cleaned
        analysis = analyse(file)
    # Two uploads of the same bytes at once must not both miss the other and store two copies.
    transaction_lock(f"media:{analysis.content_hash}")
    existing = _duplicate_of(analysis, file)
    if existing is not None:
        events.media_changed.send(
            sender=MediaItem, media=existing, action="upload", deduplicated=True, actor=actor
        )
        return existing, True
    # After deduplication: bytes already stored take no more room.
    _check_quota(analysis.size)
    name = clean_filename(filename)
    item_id = new_id()
    key = _store(file, storage.new_key(name, analysis.extension, item_id=item_id))
    _stored_keys.get().append(key)
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
    events.media_changed.send(sender=MediaItem, media=item, action="upload", deduplicated=False, actor=actor)
    tasks.make_later(item)
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
    the sent MIME type and size must be what the bytes are. A key already recorded returns that record. The file is
    recorded as it is in storage, metadata included: it was put there by someone with access to the storage, and
    rewriting it would change bytes others may name by that key."""
    authorize(actor, "media.create")
    if problem := storage.key_problem(storage_key):
        raise ValidationError(details={"storageKey": problem})
    existing = MediaItem.objects.filter(storage_key=storage_key).order_by("created_at", "id").first()
    if existing is not None:
        return existing, True
    backend = storage.media_storage()
    with storage.reachable():
        if not backend.exists(storage_key):
            raise ValidationError(details={"storageKey": f"No file '{storage_key}' in the media storage."})
        with backend.open(storage_key, "rb") as stored:
            analysis = analyse(stored)
    _check_type(analysis)
    _declared_problems(analysis, mime_type, size)
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
    tasks.make_later(item)
    return item, False


@transaction.atomic
def media_update(*, actor: Actor, item: MediaItem, changes: dict[str, Any]) -> MediaItem:
    """Change alt text, caption, the focal point (``{x, y}`` or None), and (for formats whose header we cannot read)
    dimensions."""
    item = MediaItem.objects.select_for_update().get(pk=item.pk)
    authorize(actor, "media.update", owner_id=item.author_id)
    unknown = sorted(set(changes) - set(EDITABLE))
    if unknown:
        raise ValidationError(
            details={key: f"Not editable; editable: {', '.join(EDITABLE)}." for key in unknown}
        )
    for name, value in changes.items():
        if name == "focalPoint":
            item.focal_x, item.focal_y = (value["x"], value["y"]) if value else (None, None)
            continue
        setattr(item, name, ("" if value is None else value) if name in ("alt", "caption") else value)
    item.save()
    events.media_changed.send(sender=MediaItem, media=item, action="update", deduplicated=False, actor=actor)
    if "focalPoint" in changes:
        tasks.make_later(item)  # crops follow the focal point: new renditions
    return item


@transaction.atomic
def media_delete(*, actor: Actor, item: MediaItem) -> None:
    """Delete the record, and its file when no other record names the same key (after commit)."""
    item = MediaItem.objects.select_for_update().get(pk=item.pk)
    authorize(actor, "media.delete", owner_id=item.author_id)
    events.media_changed.send(sender=MediaItem, media=item, action="delete", deduplicated=False, actor=actor)
    key, content_hash = item.storage_key, item.content_hash
    item.delete()
    if not MediaItem.objects.filter(storage_key=key).exists():
        transaction.on_commit(lambda: _delete_file(key))
    if not MediaItem.objects.filter(content_hash=content_hash).exists():
        # Renditions are kept by content hash: the last item with these bytes takes them along.
        transaction.on_commit(lambda: renditions.forget(content_hash))


def _delete_file(key: str) -> None:
    try:
        with storage.reachable():
            storage.media_storage().delete(key)
    except StorageUnavailable:
        # Runs after a commit or while another error is on its way out: that answer stands. The key is all an
        # operator needs to remove the file once the storage is back.
        logger.warning("could not delete media file: the storage is unavailable", extra={"key": key})
    except OSError:
        # The record is gone either way; a file left behind is logged for the operator, not an API failure.
        logger.exception("could not delete media file", extra={"key": key})
