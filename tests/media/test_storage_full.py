"""A full disk, a full quota, and a record that fails after its file was written, during media uploads (issue 9:
"disk full or quota reached during media upload: a clear error, no orphan file or record").

The disk is made full by letting Django's FileSystemStorage write part of the file, as a real disk would before
running out, then failing with ENOSPC (or EDQUOT). Every case answers 507 (or the endpoint's 500 for a failing
database), leaves no record and no file, whole or partial, under MEDIA_ROOT, and the next upload works.
"""

from __future__ import annotations

import errno
import os

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import FileSystemStorage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.files.uploadhandler import TemporaryFileUploadHandler
from django.db import DatabaseError, transaction

from apps.accounts.permissions import Actor
from apps.core import events
from apps.media import services
from apps.media.models import MediaItem
from tests.factories import PDF_BYTES, png_bytes
from tests.faults import FullDisk

MEDIA = "/_cms/api/media"
DISK_FULL = {
    "success": False,
    "error": {
        "code": "INSUFFICIENT_STORAGE",
        "message": "The media storage is full: the file was not stored. Try again once space has been freed.",
        "details": {},
    },
}


# A PDF of 8 KB: the type is read from its first bytes, whatever follows.
LARGE_PDF = PDF_BYTES + b"%" + b"x" * 8192 + b"\n"


def upload(client, content: bytes, name: str = "photo.png"):
    return client.post(MEDIA, {"file": SimpleUploadedFile(name, content)}, format="multipart")


def files_under(root) -> list:
    return sorted(path for path in root.rglob("*") if path.is_file())


@pytest.fixture
def full_disk(monkeypatch):
    return FullDisk(monkeypatch)


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EDQUOT], ids=["ENOSPC", "EDQUOT"])
def test_a_full_disk_is_507_and_leaves_no_file_or_record(admin_api, media_root, monkeypatch, code):
    disk = FullDisk(monkeypatch, code)

    response = upload(admin_api, png_bytes(size=(40, 30)))

    assert response.status_code == 507
    assert response.json() == DISK_FULL
    assert len(disk.partial) == 1
    assert not os.path.exists(disk.partial[0])
    assert files_under(media_root) == []
    assert MediaItem.objects.count() == 0

    disk.freed()
    again = upload(admin_api, png_bytes(size=(40, 30)))
    assert again.status_code == 201
    assert files_under(media_root) == [media_root / again.json()["data"]["storageKey"]]


def test_a_large_upload_spooled_to_a_temporary_file_is_cleaned_up_too(
    admin_api, media_root, full_disk, settings
):
    # Over this size Django hands the service a temporary file instead of bytes in memory.
    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = 1024

    response = upload(admin_api, LARGE_PDF, "report.pdf")

    assert response.status_code == 507
    assert response.json() == DISK_FULL
    assert full_disk.partial and not os.path.exists(full_disk.partial[0])
    assert files_under(media_root) == []
    assert MediaItem.objects.count() == 0


def test_a_full_disk_while_django_spools_the_upload_is_507(admin_api, media_root, monkeypatch, settings):
    """Before the media service sees the file: Django writing its temporary copy fails. The same answer, from the
    one place that maps exceptions to the envelope."""
    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = 1024

    def receive_data_chunk(handler, raw_data, start):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(TemporaryFileUploadHandler, "receive_data_chunk", receive_data_chunk)

    response = upload(admin_api, LARGE_PDF, "report.pdf")

    assert response.status_code == 507
    assert response.json() == {
        "success": False,
        "error": {
            "code": "INSUFFICIENT_STORAGE",
            "message": "The server's storage is full: nothing was stored. Try again once space has been freed.",
            "details": {},
        },
    }
    assert files_under(media_root) == []
    assert MediaItem.objects.count() == 0


def test_a_deduplicated_upload_needs_no_room(admin_api, media_root, monkeypatch):
    content = png_bytes(size=(40, 30))
    first = upload(admin_api, content)
    assert first.status_code == 201
    disk = FullDisk(monkeypatch)

    again = upload(admin_api, content)

    assert again.status_code == 200
    assert again.json()["data"]["deduplicated"] is True
    assert disk.partial == []
    assert files_under(media_root) == [media_root / first.json()["data"]["storageKey"]]


def test_a_failing_insert_after_the_file_was_written_removes_the_file(admin_api, media_root, monkeypatch):
    written = []
    real_save = FileSystemStorage._save

    def _save(storage, name, content):
        written.append(real_save(storage, name, content))
        return written[-1]

    def save(*args, **kwargs):
        raise DatabaseError("value too long for type character varying(255)")

    monkeypatch.setattr(FileSystemStorage, "_save", _save)
    monkeypatch.setattr(MediaItem, "save", save)

    response = upload(admin_api, png_bytes(size=(40, 30)))

    assert response.status_code == 500
    error = response.json()["error"]
    assert error["code"] == "MEDIA_CREATE_ERROR"
    assert error["message"] == (
        f"An unexpected error occurred. Quote request id {response['X-Request-ID']} when reporting it."
    )
    assert len(written) == 1
    assert files_under(media_root) == []
    monkeypatch.undo()
    assert MediaItem.objects.count() == 0
    assert upload(admin_api, png_bytes(size=(40, 30))).status_code == 201


def test_a_failing_event_handler_after_the_insert_rolls_back_record_and_file(admin_api, media_root):
    def refuse(sender, **kwargs):
        raise RuntimeError("a subscriber failed")

    events.media_changed.connect(refuse, dispatch_uid="test-refuse")
    try:
        response = upload(admin_api, png_bytes(size=(40, 30)))
    finally:
        events.media_changed.disconnect(dispatch_uid="test-refuse")

    assert response.status_code == 500
    assert response.json()["error"]["code"] == "MEDIA_CREATE_ERROR"
    assert MediaItem.objects.count() == 0
    assert files_under(media_root) == []


def test_a_media_transaction_that_rolls_back_deletes_the_files_stored_in_it(media_root):
    """The service-level guarantee the importer relies on: files stored in the block go with its rollback, whether
    an exception or ``set_rollback`` ends it, and stay when it commits (here: when it is released)."""
    actor = Actor.system()

    with pytest.raises(RuntimeError), services.media_transaction():
        services.media_upload(actor=actor, file=ContentFile(png_bytes((1, 2, 3))), filename="a.png")
        assert len(files_under(media_root)) == 1
        raise RuntimeError("the caller's next step failed")
    assert files_under(media_root) == []

    with services.media_transaction():
        services.media_upload(actor=actor, file=ContentFile(png_bytes((4, 5, 6))), filename="b.png")
        transaction.set_rollback(True)
    assert files_under(media_root) == []
    assert MediaItem.objects.count() == 0

    with services.media_transaction():
        item, _ = services.media_upload(actor=actor, file=ContentFile(png_bytes((7, 8, 9))), filename="c.png")
    assert files_under(media_root) == [media_root / item.storage_key]
    assert MediaItem.objects.count() == 1


QUOTA_ERROR = "STORAGE_QUOTA_EXCEEDED"


def test_an_upload_past_the_media_quota_is_507_with_the_usage(admin_api, media_root, settings):
    first = png_bytes((200, 0, 0), (30, 20))
    second = png_bytes((0, 0, 200), (30, 20))
    settings.CMS_MEDIA_QUOTA_BYTES = len(first) + 10
    assert upload(admin_api, first).status_code == 201
    stored = files_under(media_root)

    response = upload(admin_api, second)

    assert response.status_code == 507
    assert response.json() == {
        "success": False,
        "error": {
            "code": QUOTA_ERROR,
            "message": f"Storing this file ({len(second)} bytes) would exceed the media quota: {len(first)} of "
            f"{len(first) + 10} bytes used.",
            "details": {"usedBytes": len(first), "quotaBytes": len(first) + 10, "neededBytes": len(second)},
        },
    }
    assert files_under(media_root) == stored
    assert MediaItem.objects.count() == 1
    # The same bytes again take no room: still answered.
    assert upload(admin_api, first).status_code == 200
    settings.CMS_MEDIA_QUOTA_BYTES = len(first) + len(second)
    assert upload(admin_api, second).status_code == 201
