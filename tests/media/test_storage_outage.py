"""Object storage that is stopped or hung (issue 24): 503 with Retry-After in the envelope instead of a 500 or a
request held until the server kills its worker, no media record left behind, and deletes that still answer.

The storage is django-storages' S3 backend, as settings configure it for CMS_MEDIA_STORAGE=s3, pointed at a local
port nothing listens on (stopped) or at a server that accepts connections and never answers (hung), with
timeouts of a fraction of a second and no retries, so that each call the service makes is one connection."""

from __future__ import annotations

import base64
import io
import logging
import os
import subprocess
import sys

import pytest
from botocore.config import Config
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from PIL import Image

from apps.media.models import MediaItem
from tests.factories import make_media, make_token, png_bytes
from tests.faults import HungServer, closed_port
from tests.mcp.wire import McpClient

MEDIA = "/_cms/api/media"
UNAVAILABLE = {
    "success": False,
    "error": {
        "code": "SERVICE_UNAVAILABLE",
        "message": "The media storage is not reachable: nothing was stored or changed. Retry shortly.",
        "details": {"retryAfter": 5},
    },
}


def s3_at(port: int) -> override_settings:
    return override_settings(
        STORAGES={
            **settings.STORAGES,
            "default": {
                "BACKEND": "storages.backends.s3.S3Storage",
                "OPTIONS": {
                    "bucket_name": "media",
                    "endpoint_url": f"http://127.0.0.1:{port}",
                    "region_name": "us-east-1",
                    "access_key": "test",
                    "secret_key": "test",
                    "file_overwrite": False,
                    "client_config": Config(
                        connect_timeout=0.2, read_timeout=0.2, retries={"total_max_attempts": 1}
                    ),
                },
            },
        }
    )


def upload(client, content: bytes, name: str = "photo.png"):
    return client.post(MEDIA, {"file": SimpleUploadedFile(name, content)}, format="multipart")


def assert_unavailable(response) -> None:
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert response.json() == UNAVAILABLE


def test_an_upload_to_a_stopped_storage_is_503_and_records_nothing(admin_api):
    with s3_at(closed_port()):
        response = upload(admin_api, png_bytes(size=(40, 30)))

    assert_unavailable(response)
    assert MediaItem.objects.count() == 0
    # The storage is back (here: local disk again): the same upload works.
    assert upload(admin_api, png_bytes(size=(40, 30))).status_code == 201


def test_an_upload_to_a_hung_storage_is_503_after_its_timeouts_and_records_nothing(admin_api, caplog):
    with HungServer() as s3, s3_at(s3.port), caplog.at_level(logging.WARNING):
        response = upload(admin_api, png_bytes(size=(40, 30)))

        assert_unavailable(response)
        assert MediaItem.objects.count() == 0
        # One look for a free key, which timed out; one delete of whatever that key might hold, which did too and
        # was logged with the key for the operator. No retries beyond what the client configuration allows.
        assert s3.accepted() == 2
    [lost] = [
        record for record in caplog.records if record.getMessage().startswith("could not delete media file")
    ]
    assert lost.levelno == logging.WARNING
    assert lost.key.endswith("-photo.png")
    assert not [record for record in caplog.records if record.exc_info]


def test_recording_a_stored_file_while_the_storage_is_down_is_503(admin_api):
    with s3_at(closed_port()):
        response = admin_api.post(MEDIA, {"storageKey": "2026/01/photo.png"}, format="json")

    assert_unavailable(response)
    assert MediaItem.objects.count() == 0


def test_a_rendition_while_the_storage_hangs_is_503(api, db):
    out = io.BytesIO()
    Image.new("RGB", (60, 40), (20, 120, 200)).save(out, "JPEG")
    image = make_media(content=out.getvalue(), filename="photo.jpg")
    with HungServer() as s3, s3_at(s3.port):
        response = api.get(f"{MEDIA}/{image.pk}/render/thumbnail")

        assert_unavailable(response)
        # The stored rendition was looked for; the source was not read once that failed.
        assert s3.accepted() == 1


def test_a_delete_while_the_storage_is_down_answers_and_logs_the_file_left(
    admin_api, caplog, django_capture_on_commit_callbacks
):
    item = make_media(content=png_bytes(size=(40, 30)))
    # The file and the renditions are deleted once the record's deletion commits.
    with (
        s3_at(closed_port()),
        caplog.at_level(logging.WARNING),
        django_capture_on_commit_callbacks(execute=True) as callbacks,
    ):
        response = admin_api.delete(f"{MEDIA}/{item.pk}")

    assert response.status_code == 200
    assert response.json() == {"success": True, "data": {"success": True}}
    assert len(callbacks) == 2
    assert MediaItem.objects.count() == 0
    messages = [record.getMessage() for record in caplog.records if record.name == "cms.media"]
    assert "could not delete media file: the storage is unavailable" in messages
    assert "could not delete renditions: the storage is unavailable" in messages
    assert not [record for record in caplog.records if record.exc_info]


def test_an_mcp_upload_while_the_storage_is_down_is_a_tool_failure_with_the_wait(admin_user):
    mcp = McpClient(make_token(admin_user, ["admin"])[1])
    with s3_at(closed_port()):
        text, error = mcp.fails(
            "media_upload", {"data": base64.b64encode(png_bytes(size=(40, 30))).decode(), "filename": "a.png"}
        )

    assert error == UNAVAILABLE["error"]
    assert text.startswith("[SERVICE_UNAVAILABLE] The media storage is not reachable")
    assert MediaItem.objects.count() == 0


@pytest.mark.parametrize(
    ("environment", "expected"),
    [
        ({}, (2.0, 10.0, 2)),
        (
            {"CMS_S3_CONNECT_TIMEOUT": "0.5", "CMS_S3_READ_TIMEOUT": "3", "CMS_S3_MAX_ATTEMPTS": "1"},
            (0.5, 3.0, 1),
        ),
    ],
)
def test_settings_bound_the_s3_client(environment, expected):
    script = (
        "from django.conf import settings; c = settings.STORAGES['default']['OPTIONS']['client_config']; "
        "print(c.connect_timeout, c.read_timeout, c.retries['total_max_attempts'], c.retries['mode'])"
    )
    env = {**os.environ, "CMS_MEDIA_STORAGE": "s3", "CMS_S3_BUCKET": "media", **environment}
    for name in ("CMS_S3_CONNECT_TIMEOUT", "CMS_S3_READ_TIMEOUT", "CMS_S3_MAX_ATTEMPTS"):
        if name not in environment:
            env.pop(name, None)
    found = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {script}"],
        env={**env, "DJANGO_SETTINGS_MODULE": "cms_project.settings"},
        capture_output=True,
        text=True,
        check=True,
        cwd=settings.BASE_DIR,
    ).stdout.split()
    connect, read, attempts = expected
    assert found == [str(connect), str(read), str(attempts), "standard"]
