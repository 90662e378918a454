"""``GET /media/file/:key``: raw bytes with type, length, ETag and caching; conditional and range requests; keys
that could leave the media root, or name files no record knows, are 404 in the envelope."""

from __future__ import annotations

import pytest

from apps.media.models import MediaItem
from tests.factories import PDF_BYTES, make_media, png_bytes, wav_bytes

FILES = "/_cms/api/media/file/"
NOT_FOUND = {"success": False, "error": {"code": "NOT_FOUND", "message": "No such file.", "details": {}}}


def body_of(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


@pytest.fixture
def image():
    return make_media(content=png_bytes(size=(64, 48)), filename="cover image.png")


def test_download_headers(api, image):
    response = api.get(FILES + image.storage_key)
    assert response.status_code == 200
    assert body_of(response) == png_bytes(size=(64, 48))
    assert response["Content-Type"] == "image/png"
    assert response["Content-Length"] == str(image.size)
    assert response["ETag"] == f'"{image.content_hash}"'
    assert response["Cache-Control"] == "public, max-age=31536000, immutable"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Content-Security-Policy"] == "default-src 'none'; sandbox"
    assert response["Content-Disposition"] == 'inline; filename="cover image.png"'
    assert response["Accept-Ranges"] == "bytes"


SANDBOX = "default-src 'none'; sandbox"
PLAYABLE = "default-src 'none'; media-src 'self'; sandbox allow-same-origin"


@pytest.mark.parametrize(
    ("content", "filename", "mime", "disposition", "policy"),
    [
        (png_bytes(), "logo.png", "image/png", 'inline; filename="logo.png"', SANDBOX),
        (wav_bytes(), "jingle.wav", "audio/x-wav", 'inline; filename="jingle.wav"', PLAYABLE),
        # A document: its scripts and forms would run from the API's origin if a browser rendered it here.
        (PDF_BYTES, "report.pdf", "application/pdf", 'attachment; filename="report.pdf"', SANDBOX),
    ],
    ids=["image", "sound", "document"],
)
def test_every_file_is_sandboxed_and_documents_download(api, content, filename, mime, disposition, policy):
    item = make_media(content=content, filename=filename)
    for response in (api.get(FILES + item.storage_key), api.head(FILES + item.storage_key)):
        assert response.status_code == 200
        assert (
            response["Content-Type"],
            response["Content-Disposition"],
            response["Content-Security-Policy"],
            response["X-Content-Type-Options"],
        ) == (mime, disposition, policy, "nosniff")
    not_modified = api.get(FILES + item.storage_key, HTTP_IF_NONE_MATCH=f'"{item.content_hash}"')
    assert not_modified.status_code == 304
    assert (not_modified["Content-Disposition"], not_modified["Content-Security-Policy"]) == (
        disposition,
        policy,
    )


def test_types_served_inline_are_configurable(api, settings):
    item = make_media(content=PDF_BYTES, filename="report.pdf")
    settings.CMS_MEDIA_INLINE_TYPES = ["image/*", "application/pdf"]
    response = api.get(FILES + item.storage_key)
    assert (response["Content-Disposition"], response["Content-Security-Policy"]) == (
        'inline; filename="report.pdf"',
        SANDBOX,
    )
    settings.CMS_MEDIA_INLINE_TYPES = []
    image = make_media(content=png_bytes(), filename="logo.png")
    assert api.get(FILES + image.storage_key)["Content-Disposition"] == 'attachment; filename="logo.png"'


def test_a_current_etag_is_304_without_a_body(api, image):
    response = api.get(FILES + image.storage_key, HTTP_IF_NONE_MATCH=f'"{image.content_hash}"')
    assert response.status_code == 304
    assert response.content == b""
    assert response["ETag"] == f'"{image.content_hash}"'
    stale = api.get(FILES + image.storage_key, HTTP_IF_NONE_MATCH='"0000000000000000"')
    assert stale.status_code == 200


def test_a_byte_range_is_206(api, image):
    content = png_bytes(size=(64, 48))
    response = api.get(FILES + image.storage_key, HTTP_RANGE="bytes=10-19")
    assert response.status_code == 206
    assert body_of(response) == content[10:20]
    assert response["Content-Range"] == f"bytes 10-19/{len(content)}"
    assert response["Content-Length"] == "10"
    suffix = api.get(FILES + image.storage_key, HTTP_RANGE="bytes=-5")
    assert body_of(suffix) == content[-5:]
    open_ended = api.get(FILES + image.storage_key, HTTP_RANGE=f"bytes={len(content) - 3}-")
    assert body_of(open_ended) == content[-3:]


@pytest.mark.parametrize("header", ["bytes=50-10", "bytes=0-1,5-6", "items=0-1", "bytes=99999-"])
def test_ranges_we_do_not_serve_get_the_whole_file(api, image, header):
    response = api.get(FILES + image.storage_key, HTTP_RANGE=header)
    assert response.status_code == 200
    assert body_of(response) == png_bytes(size=(64, 48))


def test_head_gives_the_headers_only(api, image):
    response = api.head(FILES + image.storage_key)
    assert response.status_code == 200
    assert response.content == b""
    assert response["Content-Length"] == str(image.size)


@pytest.fixture
def secret(tmp_path):
    path = tmp_path / "secret.txt"
    path.write_text("top secret")
    return path


@pytest.mark.parametrize(
    "key",
    [
        "../secret.txt",
        "../../secret.txt",
        "%2e%2e/secret.txt",
        "..%2fsecret.txt",
        "2026/../../secret.txt",
        "/etc/passwd",
        "%2Fetc%2Fpasswd",
        "..\\secret.txt",
        "C:/secret.txt",
        "~/secret.txt",
        "a/./b.png",
        "a//b.png",
    ],
)
def test_keys_that_could_escape_the_media_root_are_404(api, secret, key):
    response = api.get(FILES + key)
    assert response.status_code == 404
    assert response.json() == NOT_FOUND
    assert b"top secret" not in response.content


def test_a_key_holding_nul_is_refused_before_any_lookup(api, secret):
    response = api.get(FILES + "%00.png")
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {"key": "Null characters are not allowed."}


def test_a_file_no_record_names_is_not_served(api, media_root):
    (media_root / "stray.png").write_bytes(png_bytes())
    response = api.get(FILES + "stray.png")
    assert response.status_code == 404
    assert response.json() == NOT_FOUND


def test_a_record_pointing_through_a_link_out_of_the_root_is_not_served(api, media_root, secret):
    (media_root / "linked").symlink_to(secret.parent)
    MediaItem.objects.create(
        filename="secret.txt",
        mime_type="image/png",
        size=10,
        storage_key="linked/secret.txt",
        content_hash="0",
    )
    response = api.get(FILES + "linked/secret.txt")
    assert response.status_code == 404
    assert b"top secret" not in response.content


def test_a_recorded_file_missing_from_disk_is_404(api, media_root, image):
    (media_root / image.storage_key).unlink()
    response = api.get(FILES + image.storage_key)
    assert response.status_code == 404
    assert response.json() == NOT_FOUND


def test_files_are_public_and_not_rate_limited(api, image, settings):
    settings.CMS_RATE_LIMITS = {**settings.CMS_RATE_LIMITS, "api": "1/m"}
    for _ in range(3):
        assert api.get(FILES + image.storage_key).status_code == 200
