"""Imports on several machines (issue 24): uploaded exports are kept in the ``imports`` storage, so the node that
executes an import, or the worker that runs it, need not be the one that received the upload.

"Another node" is another ``CMS_IMPORT_DIR``: each test uploads with one directory and executes (or runs the worker)
with a fresh empty one. With a shared storage that changes nothing, which shows the export is read through the
storage, not through a path of the receiving node; with the default node-local storage the export is missing there,
and the client is told so in words, never with a server path."""

from __future__ import annotations

import io
import os
from datetime import timedelta

import pytest
from botocore.config import Config
from django.core.checks import Error
from django.core.management import CommandError, call_command
from django.test import Client

from apps.core.timefmt import now
from apps.importer import checks, jobs
from apps.importer.models import ImportAnalysis, ImportJob
from apps.importer.sources import wxr_source
from apps.importer.storage import import_storage
from apps.importer.storage import names as stored_names
from tests.faults import closed_port
from tests.importer.conftest import WXR
from tests.importer.helpers import EXECUTE, all_entries, analyze, job_url, upload

pytestmark = pytest.mark.django_db

THEME_PREVIEW = WXR / "theme-test-data" / "theme-preview.xml"
MISSING = "The uploaded file of this import is no longer available; upload it again."
SHARED = {
    # A directory every node mounts (a FileSystemStorage at a location of its own, not CMS_IMPORT_DIR).
    "shared-directory": lambda root: {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": str(root / "shared")},
    },
    # An object store: no local path at all, so every read streams through the storage.
    "object-store": lambda root: {"BACKEND": "django.core.files.storage.InMemoryStorage"},
}


@pytest.fixture
def nodes(tmp_path, settings, import_dir):
    """Two machines' import directories; requests and workers start on the first."""
    other = tmp_path / "other-node"
    other.mkdir()
    return import_dir, other


@pytest.fixture
def spool(tmp_path, settings):
    """Where uploads are analysed and exports copied from an object store for reading: empty once each is done."""
    path = tmp_path / "spool"
    path.mkdir()
    settings.FILE_UPLOAD_TEMP_DIR = str(path)
    return path


@pytest.fixture(params=sorted(SHARED))
def shared(request, settings, tmp_path, spool):
    settings.STORAGES = {**settings.STORAGES, "imports": SHARED[request.param](tmp_path)}
    return import_storage()


def posts_in(analysis: dict) -> int:
    return next(item["count"] for item in analysis["postTypes"] if item["name"] == "post")


def run_worker() -> None:
    for _ in range(100):
        if not jobs.run_queued():
            return


def test_an_import_uploaded_on_one_node_executes_on_another(admin_api, settings, nodes, shared, spool):
    first, second = nodes
    analysis = analyze(admin_api, THEME_PREVIEW)
    stored = ImportAnalysis.objects.get(pk=analysis["analysisId"]).file

    settings.CMS_IMPORT_DIR = second
    response = admin_api.post(EXECUTE, {"analysisId": analysis["analysisId"]}, format="json")

    assert response.status_code == 200, response.json()
    job = response.json()["data"]
    assert (job["state"], job["error"]) == ("completed", None), job["error"]
    assert len(all_entries(admin_api, "posts")) == posts_in(analysis) > 0
    # Neither node's own directory ever held the export: it lives in the shared storage only.
    assert list(first.iterdir()) == list(second.iterdir()) == list(spool.iterdir()) == []
    assert shared.exists(stored)


def test_a_worker_on_another_node_runs_a_queued_import(admin_api, settings, nodes, shared, spool):
    first, second = nodes
    settings.CMS_IMPORT_SYNC_MAX_BYTES = 0
    # The reader process gets the file the worker fetched from the storage (it cannot see this process's storage).
    settings.CMS_IMPORT_READ_AHEAD_BYTES = 0
    analysis = analyze(admin_api, THEME_PREVIEW)
    response = admin_api.post(EXECUTE, {"analysisId": analysis["analysisId"]}, format="json")
    assert response.status_code == 202
    job_id = response.json()["data"]["id"]

    settings.CMS_IMPORT_DIR = second
    run_worker()

    job = admin_api.get(job_url(job_id)).json()["data"]
    assert (job["state"], job["error"]) == ("completed", None), job["error"]
    assert len(all_entries(admin_api, "posts")) == posts_in(analysis) > 0
    assert list(first.iterdir()) == list(second.iterdir()) == list(spool.iterdir()) == []


def test_a_node_local_upload_is_missing_on_another_node_and_the_client_sees_no_path(
    admin_api, settings, nodes, tmp_path
):
    first, second = nodes
    analysis = analyze(admin_api, THEME_PREVIEW)
    assert [path.name for path in first.iterdir()] == [f"{analysis['analysisId']}.xml"]

    settings.CMS_IMPORT_DIR = second
    response = admin_api.post(EXECUTE, {"analysisId": analysis["analysisId"]}, format="json")

    assert response.status_code == 404
    assert response.json() == {
        "success": False,
        "error": {"code": "NOT_FOUND", "message": MISSING, "details": {}},
    }
    assert not ImportJob.objects.exists()


def test_a_job_whose_upload_is_on_another_node_fails_with_words_not_a_path(
    admin_api, settings, nodes, tmp_path
):
    _, second = nodes
    settings.CMS_IMPORT_SYNC_MAX_BYTES = 0
    analysis = analyze(admin_api, THEME_PREVIEW)
    job_id = admin_api.post(EXECUTE, {"analysisId": analysis["analysisId"]}, format="json").json()["data"][
        "id"
    ]

    settings.CMS_IMPORT_DIR = second
    run_worker()

    response = admin_api.get(job_url(job_id))
    job = response.json()["data"]
    assert job["state"] == "failed"
    assert job["error"] == {"code": "NOT_FOUND", "message": MISSING, "details": {}}
    assert str(tmp_path) not in response.content.decode()

    # The studio's job page and its status answer say the same.
    studio = Client()
    studio.force_login(ImportJob.objects.get(pk=job_id).created_by)
    page = studio.get(f"/_cms/admin/import/jobs/{job_id}/").content.decode()
    assert f"{MISSING} (NOT_FOUND)" in page
    assert str(tmp_path) not in page
    status = studio.get(f"/_cms/admin/import/jobs/{job_id}/status").content.decode()
    assert MISSING in status and str(tmp_path) not in status


def test_the_studio_refuses_to_start_an_import_whose_upload_is_gone(admin_api, settings, nodes, tmp_path):
    _, second = nodes
    analysis = analyze(admin_api, THEME_PREVIEW)
    studio = Client()
    studio.force_login(ImportAnalysis.objects.get(pk=analysis["analysisId"]).created_by)
    url = f"/_cms/admin/import/analysis/{analysis['analysisId']}/"

    settings.CMS_IMPORT_DIR = second
    response = studio.post(url, {"action": "start", "type-0-enabled": "on"})

    assert response.status_code == 404
    assert MISSING in response.content.decode()
    assert str(tmp_path) not in response.content.decode()
    assert not ImportJob.objects.exists()


def test_a_file_error_while_importing_is_worded_without_its_path(admin_api, monkeypatch):
    analysis = analyze(admin_api, THEME_PREVIEW)

    def unreadable(path, **kwargs):
        raise PermissionError(13, "Permission denied", "/srv/cms/var/imports/export.xml")
        yield  # a generator, as the reader is

    monkeypatch.setattr(wxr_source, "read_wxr", unreadable)
    response = admin_api.post(EXECUTE, {"analysisId": analysis["analysisId"]}, format="json")

    assert response.status_code == 200
    assert response.json()["data"]["error"] == {
        "code": "IMPORT_ERROR",
        "message": "The import stopped: a file could not be read (Permission denied).",
        "details": {},
    }
    assert "/srv/cms" not in response.content.decode()


def test_a_refused_upload_reaches_neither_the_storage_nor_stays_in_the_spool(admin_api, nodes, shared, spool):
    first, _ = nodes

    response = upload(admin_api, content=b"<rss><channel><item>")

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"
    assert list(stored_names()) == []
    assert list(first.iterdir()) == list(spool.iterdir()) == []


def stopped_s3() -> dict:
    """S3 storage at a local port nothing listens on, with short timeouts and no retries."""
    return {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": "imports",
            "endpoint_url": f"http://127.0.0.1:{closed_port()}",
            "region_name": "us-east-1",
            "access_key": "test",
            "secret_key": "test",
            "location": "_cms-imports",
            "client_config": Config(connect_timeout=0.2, read_timeout=0.2, retries={"total_max_attempts": 1}),
        },
    }


STORAGE_DOWN = {
    "success": False,
    "error": {
        "code": "SERVICE_UNAVAILABLE",
        "message": "The import storage is not reachable: nothing was stored or changed. Retry shortly.",
        "details": {"retryAfter": 5},
    },
}


def test_an_unreachable_import_storage_is_503_with_retry_after(admin_api, settings, spool):
    stored_before = analyze(admin_api, THEME_PREVIEW)
    settings.STORAGES = {**settings.STORAGES, "imports": stopped_s3()}

    response = upload(admin_api, THEME_PREVIEW)
    assert (response.status_code, response["Retry-After"], response.json()) == (503, "5", STORAGE_DOWN)
    assert ImportAnalysis.objects.count() == 1
    assert list(spool.iterdir()) == []

    response = admin_api.post(EXECUTE, {"analysisId": stored_before["analysisId"]}, format="json")
    assert (response.status_code, response["Retry-After"], response.json()) == (503, "5", STORAGE_DOWN)
    assert not ImportJob.objects.exists()


def test_a_worker_that_cannot_reach_the_import_storage_fails_the_job_resumably(admin_api, settings, spool):
    settings.CMS_IMPORT_SYNC_MAX_BYTES = 0
    analysis = analyze(admin_api, THEME_PREVIEW)
    job_id = admin_api.post(EXECUTE, {"analysisId": analysis["analysisId"]}, format="json").json()["data"][
        "id"
    ]
    working = settings.STORAGES
    settings.STORAGES = {**working, "imports": stopped_s3()}

    run_worker()

    job = admin_api.get(job_url(job_id)).json()["data"]
    assert (job["state"], job["error"]) == ("failed", STORAGE_DOWN["error"])
    assert list(spool.iterdir()) == []

    # The storage is back: the job resumes and completes.
    settings.STORAGES = working
    assert admin_api.post(f"{job_url(job_id)}/resume").status_code == 202
    run_worker()
    job = admin_api.get(job_url(job_id)).json()["data"]
    assert (job["state"], job["error"]) == ("completed", None)


def test_import_cleanup_prunes_the_shared_storage(admin_api, settings, nodes, tmp_path, spool):
    first, _ = nodes
    settings.STORAGES = {**settings.STORAGES, "imports": SHARED["shared-directory"](tmp_path)}
    shared = tmp_path / "shared"
    old = analyze(admin_api, THEME_PREVIEW)
    fresh = analyze(admin_api, THEME_PREVIEW)
    ImportAnalysis.objects.filter(pk=old["analysisId"]).update(created_at=now() - timedelta(days=10))
    (shared / "stray.xml").write_bytes(b"<rss/>")
    (shared / "recent.xml").write_bytes(b"<rss/>")
    ten_days_ago = (now() - timedelta(days=10)).timestamp()
    os.utime(shared / "stray.xml", (ten_days_ago, ten_days_ago))
    # This node's own directory is not the import storage: what is there is not the cleanup's business.
    (first / "unrelated.xml").write_bytes(b"<rss/>")

    out = io.StringIO()
    call_command("import_cleanup", "--days", "7", stdout=out)

    assert out.getvalue() == "Removed 1 stored export(s) and 1 orphaned file(s).\n"
    assert sorted(path.name for path in shared.iterdir()) == sorted(
        [f"{fresh['analysisId']}.xml", "recent.xml"]
    )
    assert [path.name for path in first.iterdir()] == ["unrelated.xml"]


# --- the startup check ---------------------------------------------------------------------------------------------

S3 = {
    "BACKEND": "storages.backends.s3.S3Storage",
    "OPTIONS": {"bucket_name": "cms-imports", "location": "_cms-imports"},
}


def check_output() -> str:
    out = io.StringIO()
    call_command("check", stdout=out, stderr=out)
    return out.getvalue()


def test_several_nodes_with_a_node_local_import_storage_refuse_to_start(settings):
    settings.CMS_MULTI_NODE = True

    with pytest.raises(CommandError) as refused:
        check_output()

    assert "importer.E001" in str(refused.value)
    assert checks.import_storage_shared() == [
        Error(
            "CMS_MULTI_NODE is set but uploaded imports are kept on this machine's disk: an import uploaded to one "
            "node cannot be executed on another.",
            hint="Set CMS_IMPORT_STORAGE=s3 (with CMS_IMPORT_S3_BUCKET or the media bucket), or mount one shared "
            "directory on every node as CMS_IMPORT_DIR and set CMS_IMPORT_DIR_SHARED=true.",
            id="importer.E001",
        )
    ]


@pytest.mark.parametrize(
    "multi_node, storage, dir_shared",
    [(False, None, False), (True, S3, False), (True, None, True)],
    ids=["one-node", "several-nodes-on-s3", "several-nodes-on-a-shared-mount"],
)
def test_the_check_passes_when_imports_are_reachable_from_every_node(
    settings, multi_node, storage, dir_shared
):
    settings.CMS_MULTI_NODE = multi_node
    settings.CMS_IMPORT_DIR_SHARED = dir_shared
    if storage:
        settings.STORAGES = {**settings.STORAGES, "imports": storage}

    assert checks.import_storage_shared() == []
    assert "importer." not in check_output()


def test_exports_in_the_media_bucket_need_a_prefix_of_their_own(settings):
    settings.CMS_MEDIA_STORAGE = settings.CMS_IMPORT_STORAGE = "s3"
    settings.CMS_IMPORT_S3_BUCKET = "cms"
    settings.CMS_IMPORT_S3_PREFIX = "media"
    media = {"BACKEND": S3["BACKEND"], "OPTIONS": {"bucket_name": "cms", "location": "media"}}
    settings.STORAGES = {**settings.STORAGES, "default": media, "imports": S3}

    assert [error.id for error in checks.import_prefix_apart_from_media()] == ["importer.E002"]

    settings.CMS_IMPORT_S3_PREFIX = "_cms-imports"
    assert checks.import_prefix_apart_from_media() == []


def test_a_media_key_never_names_an_export_in_a_shared_bucket(admin_api, settings):
    settings.CMS_MEDIA_RESERVED_KEY_PREFIXES = ["_cms-imports/"]

    response = admin_api.post(
        "/_cms/api/media", {"storageKey": "_cms-imports/01J0000000000000000000000.xml"}, format="json"
    )

    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "storageKey": "The key is reserved for the CMS's own files."
    }
