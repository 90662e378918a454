"""A full disk during an import (SPEC §7 "storage quota exceeded: import stops and shows usage"; issue 9: "a clear
error, no orphan file or record"): media downloads stop with 507 keeping what was stored before, the export kept
for analysis is not left half-written, and a file whose import record fails is not left behind."""

from __future__ import annotations

import errno
import os

import orjson
import pytest
from django.db import DatabaseError

from apps.importer.models import ImportAnalysis, ImportRecord
from apps.importer.services import media as importer_media
from apps.media import services as media_services
from apps.media.models import MediaItem
from tests.factories import png_bytes
from tests.faults import FullDisk
from tests.importer.helpers import MEDIA, all_entries, post, run_import, upload, wxr

RED = png_bytes((200, 30, 30), (30, 20))
BLUE = png_bytes((30, 30, 200), (30, 20))
MEDIA_FULL = {
    "code": "INSUFFICIENT_STORAGE",
    "message": "The media storage is full: the file was not stored. Try again once space has been freed.",
    "details": {},
}


@pytest.fixture
def site(web):
    web.routes.update(
        {
            "/uploads/red.png": (200, RED, {"Content-Type": "image/png"}),
            "/uploads/blue.png": (200, BLUE, {"Content-Type": "image/png"}),
        }
    )
    return web


def files_under(root) -> list:
    return sorted(path for path in root.rglob("*") if path.is_file())


def attachments(site, *names: str) -> list[dict]:
    return [
        {"id": number, "url": f"{site.base}/uploads/{name}"} for number, name in enumerate(names, start=1)
    ]


def test_a_full_disk_stops_the_media_import_and_keeps_what_was_stored(
    admin_api, site, media_root, monkeypatch
):
    disk = FullDisk(monkeypatch, after=1)

    response = admin_api.post(MEDIA, {"attachments": attachments(site, "red.png", "blue.png")}, format="json")

    assert response.status_code == 507
    assert response.json() == {"success": False, "error": MEDIA_FULL}
    red = MediaItem.objects.get()
    assert red.filename == "red.png"
    assert files_under(media_root) == [media_root / red.storage_key]
    assert len(disk.partial) == 1 and not os.path.exists(disk.partial[0])
    # Not marked for manual handling: nothing is wrong with the file, only with the disk.
    assert not ImportRecord.objects.filter(kind="media_failed").exists()

    disk.freed()
    again = admin_api.post(MEDIA, {"attachments": attachments(site, "red.png", "blue.png")}, format="json")
    assert again.status_code == 200
    assert again.json()["data"]["imported"] == 2
    assert MediaItem.objects.count() == 2


def test_a_full_disk_ends_the_ndjson_stream_with_an_error_line(admin_api, site, media_root, monkeypatch):
    FullDisk(monkeypatch, errno.EDQUOT, after=1)

    response = admin_api.post(
        MEDIA, {"attachments": attachments(site, "red.png", "blue.png"), "stream": True}, format="json"
    )

    assert response.status_code == 200
    lines = [orjson.loads(line) for line in b"".join(response.streaming_content).splitlines()]
    assert lines == [
        {"type": "progress", "current": 1, "total": 2, "filename": "red.png", "status": "imported"},
        {"type": "error", **MEDIA_FULL},
    ]
    assert files_under(media_root) == [media_root / MediaItem.objects.get().storage_key]


def test_a_full_disk_fails_an_import_job_after_its_content(admin_api, site, media_root, monkeypatch):
    # The export is kept in the import storage first (on the same kind of disk); the disk fills up after it.
    FullDisk(monkeypatch, after=1)
    items = f"""<item><title>Red</title><wp:post_id>10</wp:post_id><wp:post_type>attachment</wp:post_type>
        <wp:status>inherit</wp:status><wp:attachment_url>{site.base}/uploads/red.png</wp:attachment_url></item>""" + post(
        1, slug="one"
    )

    job = run_import(admin_api, content=wxr(items), options={"includeMedia": True})

    assert job["state"] == "failed"
    assert job["error"] == MEDIA_FULL
    assert [item["slug"] for item in all_entries(admin_api, "posts")] == ["one"]
    assert MediaItem.objects.count() == 0
    assert files_under(media_root) == []


def test_a_file_whose_import_record_fails_is_not_left_behind(admin_api, site, media_root, monkeypatch):
    real_record_put = importer_media.record_put

    def record_put(site_key, kind, source_id, **values):
        if kind == "media":
            raise DatabaseError("could not extend file: No space left on device")
        return real_record_put(site_key, kind, source_id, **values)

    stored = []
    real_upload = media_services.media_upload

    def media_upload(**kwargs):
        item, deduplicated = real_upload(**kwargs)
        stored.append(media_root / item.storage_key)
        assert stored[-1].is_file()
        return item, deduplicated

    monkeypatch.setattr(importer_media, "record_put", record_put)
    monkeypatch.setattr(media_services, "media_upload", media_upload)

    response = admin_api.post(MEDIA, {"attachments": attachments(site, "red.png")}, format="json")

    assert response.status_code == 500
    assert response.json()["error"]["code"] == "INTERNAL_ERROR"
    assert len(stored) == 1 and not stored[0].exists()
    assert MediaItem.objects.count() == 0
    assert files_under(media_root) == []


def test_a_full_disk_while_keeping_the_export_leaves_no_part_of_it(admin_api, import_dir, monkeypatch):
    disk = FullDisk(monkeypatch)

    response = upload(admin_api, content=wxr(post(1)))

    assert response.status_code == 507
    assert response.json() == {
        "success": False,
        "error": {
            "code": "INSUFFICIENT_STORAGE",
            "message": "The server's storage is full: the export could not be kept for the import. Try again once "
            "space has been freed.",
            "details": {},
        },
    }
    assert disk.partial and os.path.dirname(disk.partial[0]) == str(import_dir)
    assert not os.path.exists(disk.partial[0])
    assert list(import_dir.iterdir()) == []
    assert ImportAnalysis.objects.count() == 0

    disk.freed()
    assert upload(admin_api, content=wxr(post(1))).status_code == 201
