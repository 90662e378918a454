"""Image renditions over HTTP (issue 22): presets unsigned, other parameters only signed, refusals as envelopes with
exact statuses, the headers of an immutable image, one render per rendition (then storage), the focal point through
REST and MCP, `renditions` and `srcset` in media answers, and the fast path in front of Django."""

from __future__ import annotations

import io
import threading
from unittest import mock
from urllib.parse import parse_qsl, urlsplit

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

from apps.accounts.models import Role
from apps.media import renditions
from tests.factories import PDF_BYTES, make_media, make_token, png_bytes
from tests.mcp.wire import McpClient
from tests.wsgi import wsgi_call

MEDIA = "/_cms/api/media"


def photo(size=(400, 300), colour=(20, 120, 200)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, "JPEG", quality=90)
    return out.getvalue()


@pytest.fixture
def image(db):
    return make_media(content=photo(), filename="photo.jpg")


def path_of(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def sign(client, media_id: str, **params) -> str:
    response = client.post(f"{MEDIA}/{media_id}/render-url", params, format="json")
    assert response.status_code == 200, response.json()
    return response.json()["data"]["url"]


def rendition_files(media_root) -> list:
    return sorted(path for path in (media_root / "renditions").rglob("*") if path.is_file())


def test_a_preset_needs_no_signature_and_has_immutable_image_headers(api, image):
    response = api.get(f"{MEDIA}/{image.pk}/render/thumbnail")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/webp"
    assert response["Cache-Control"] == "public, max-age=31536000, immutable"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Content-Security-Policy"] == "default-src 'none'; sandbox"
    assert response["Content-Disposition"] == "inline"
    assert int(response["Content-Length"]) == len(response.content)
    with Image.open(io.BytesIO(response.content)) as picture:
        assert (picture.format, picture.size) == ("WEBP", (200, 200))
    again = api.get(f"{MEDIA}/{image.pk}/render/thumbnail", HTTP_IF_NONE_MATCH=response["ETag"])
    assert again.status_code == 304
    assert again.content == b""


def test_an_unknown_preset_is_404_and_a_preset_takes_no_parameters(api, image):
    missing = api.get(f"{MEDIA}/{image.pk}/render/huge")
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "NOT_FOUND"
    extra = api.get(f"{MEDIA}/{image.pk}/render/small?w=5000")
    assert extra.status_code == 400
    assert extra.json()["error"]["details"] == {"w": "Unknown query parameter; allowed: v."}


def test_unsigned_or_tampered_parameters_are_refused_with_403(api, admin_api, image):
    unsigned = api.get(f"{MEDIA}/{image.pk}/render?w=100&format=png")
    assert unsigned.status_code == 403
    assert unsigned.json()["error"]["code"] == "FORBIDDEN"
    assert "signed" in unsigned.json()["error"]["message"]
    url = sign(admin_api, image.pk, w=100, format="png")
    query = dict(parse_qsl(urlsplit(url).query))
    assert query == {"w": "100", "fit": "cover", "format": "png", "q": "80", "s": query["s"]}
    tampered = api.get(f"{MEDIA}/{image.pk}/render?w=101&fit=cover&format=png&q=80&s={query['s']}")
    assert tampered.status_code == 403
    assert tampered.json()["error"]["message"] == "The rendition signature does not match its parameters."
    other = make_media(content=photo(colour=(1, 2, 3)), filename="other.jpg")
    elsewhere = api.get(f"{MEDIA}/{other.pk}/render?w=100&fit=cover&format=png&q=80&s={query['s']}")
    assert elsewhere.status_code == 403
    signed = api.get(path_of(url))
    assert signed.status_code == 200
    assert signed["Content-Type"] == "image/png"
    with Image.open(io.BytesIO(signed.content)) as picture:
        assert picture.size == (100, 75)


def test_bad_parameters_are_400_with_each_problem(admin_api, api, image):
    response = admin_api.post(
        f"{MEDIA}/{image.pk}/render-url", {"w": 4001, "q": 0, "format": "gif"}, format="json"
    )
    assert response.status_code == 400
    assert set(response.json()["error"]["details"]) == {"w", "q", "format"}
    query = api.get(f"{MEDIA}/{image.pk}/render?w=10&w=20&s=x")
    assert query.status_code == 400
    assert query.json()["error"]["code"] == "VALIDATION_ERROR"


def test_avif_is_rendered_when_pillow_has_it_and_refused_with_400_otherwise(admin_api, api, image):
    url = sign(admin_api, image.pk, w=64, format="avif")
    response = api.get(path_of(url))
    assert response.status_code == 200
    assert response["Content-Type"] == "image/avif"
    with mock.patch("apps.media.renditions.avif_supported", return_value=False):
        refused = admin_api.post(f"{MEDIA}/{image.pk}/render-url", {"w": 64, "format": "avif"}, format="json")
        served = api.get(path_of(url))
    assert refused.status_code == 400
    assert "AVIF is not available" in refused.json()["error"]["details"]["format"]
    assert served.status_code == 400


def test_files_that_are_not_images_are_415(admin_api, api, db):
    pdf = make_media(content=PDF_BYTES, filename="paper.pdf")
    response = api.get(f"{MEDIA}/{pdf.pk}/render/small")
    assert response.status_code == 415
    assert response.json()["error"]["code"] == "UNSUPPORTED_MEDIA_TYPE"
    signing = admin_api.post(f"{MEDIA}/{pdf.pk}/render-url", {"w": 100}, format="json")
    assert signing.status_code == 415


def test_an_unknown_item_is_404(api, db):
    response = api.get(f"{MEDIA}/01HZZZZZZZZZZZZZZZZZZZZZZZ/render/small")
    assert response.status_code == 404


def test_a_rendition_is_rendered_once_then_served_from_storage(api, image, media_root):
    with mock.patch("apps.media.renditions.render", wraps=renditions.render) as render:
        first = api.get(f"{MEDIA}/{image.pk}/render/small")
        second = api.get(f"{MEDIA}/{image.pk}/render/small")
    assert first.status_code == second.status_code == 200
    assert first.content == second.content
    assert render.call_count == 1
    stored = rendition_files(media_root)
    assert len(stored) == 1
    assert stored[0].read_bytes() == first.content
    assert stored[0].relative_to(media_root).parts[:2] == ("renditions", image.content_hash)


def test_the_fast_path_serves_stored_renditions_before_django(api, image):
    call = wsgi_call
    first = api.get(f"{MEDIA}/{image.pk}/render/medium")
    status, headers, body = call(f"{MEDIA}/{image.pk}/render/medium")
    assert status == "200 OK"
    assert body == first.content
    # Django adds a request id to everything it answers; the fast path does not.
    assert "X-Request-ID" not in headers
    assert {
        name: headers[name] for name in ("Content-Type", "Cache-Control", "ETag", "X-Content-Type-Options")
    } == {name: first[name] for name in ("Content-Type", "Cache-Control", "ETag", "X-Content-Type-Options")}
    status, _, body = call(f"{MEDIA}/{image.pk}/render/medium", HTTP_IF_NONE_MATCH=first["ETag"])
    assert (status, body) == ("304 Not Modified", b"")
    # A cross-origin fetch is Django's, whose CORS middleware decides its headers.
    status, headers, body = call(f"{MEDIA}/{image.pk}/render/medium", HTTP_ORIGIN="https://site.example")
    assert (status, body) == ("200 OK", first.content)
    assert "X-Request-ID" in headers
    # Anything the fast path does not serve goes to Django: a refusal comes back as the envelope.
    status, headers, body = call(f"{MEDIA}/{image.pk}/render", "w=300&s=forged")
    assert status.startswith("403")
    assert "X-Request-ID" in headers
    # Not yet rendered: Django renders it.
    status, headers, body = call(f"{MEDIA}/{image.pk}/render/large")
    assert status == "200 OK", body
    assert "X-Request-ID" in headers


def test_a_moved_focal_point_is_never_answered_with_the_old_crop(admin_api, api, db):
    out = io.BytesIO()
    picture = Image.new("RGB", (400, 100), (255, 0, 0))
    picture.paste((0, 0, 255), (200, 0, 400, 100))
    picture.save(out, "PNG")
    item = make_media(content=out.getvalue(), filename="halves.png")

    def thumbnail():
        url = admin_api.get(f"{MEDIA}/{item.pk}").json()["data"]["renditions"]["thumbnail"]
        path, _, query = path_of(url).partition("?")
        status, _, body = wsgi_call(path, query)
        assert status == "200 OK"
        with Image.open(io.BytesIO(body)) as square:
            return square.convert("RGB").getpixel((50, 50))

    admin_api.patch(f"{MEDIA}/{item.pk}", {"focalPoint": {"x": 0.0, "y": 0.5}}, format="json")
    assert thumbnail()[0] > 200  # red, rendered by Django
    assert thumbnail()[0] > 200  # red, from the fast path, which now remembers the item
    admin_api.patch(f"{MEDIA}/{item.pk}", {"focalPoint": {"x": 1.0, "y": 0.5}}, format="json")
    assert thumbnail()[2] > 200  # blue: the new URL's version makes the fast path read the item again


def test_concurrent_saves_of_one_rendition_leave_one_whole_file(image, media_root):
    params = renditions.Params(w=50)
    key = renditions.storage_key(image.content_hash, params, None)
    data = [bytes([n]) * 200_000 for n in range(8)]
    threads = [threading.Thread(target=renditions.keep, args=(key, chunk)) for chunk in data]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    files = rendition_files(media_root)
    assert [path.name for path in files] == [key.rsplit("/", 1)[1]]
    assert files[0].read_bytes() in data


def test_renditions_are_deleted_with_the_last_item_of_their_bytes(
    admin_api, api, image, media_root, django_capture_on_commit_callbacks
):
    assert api.get(f"{MEDIA}/{image.pk}/render/small").status_code == 200
    assert rendition_files(media_root)
    with django_capture_on_commit_callbacks(execute=True):
        assert admin_api.delete(f"{MEDIA}/{image.pk}").status_code == 200
    assert rendition_files(media_root) == []
    assert api.get(f"{MEDIA}/{image.pk}/render/small").status_code == 404


# --- focal point and media answers --------------------------------------------------------------------------------


def test_the_focal_point_is_set_and_cleared_through_rest(admin_api, image):
    response = admin_api.patch(f"{MEDIA}/{image.pk}", {"focalPoint": {"x": 0.25, "y": 0.75}}, format="json")
    assert response.status_code == 200
    assert response.json()["data"]["focalPoint"] == {"x": 0.25, "y": 0.75}
    assert admin_api.get(f"{MEDIA}/{image.pk}").json()["data"]["focalPoint"] == {"x": 0.25, "y": 0.75}
    bad = admin_api.patch(f"{MEDIA}/{image.pk}", {"focalPoint": {"x": 1.5, "y": -1}}, format="json")
    assert bad.status_code == 400
    assert set(bad.json()["error"]["details"]) == {"focalPoint.x", "focalPoint.y"}
    cleared = admin_api.patch(f"{MEDIA}/{image.pk}", {"focalPoint": None}, format="json")
    assert cleared.json()["data"]["focalPoint"] is None


def test_the_focal_point_follows_the_media_update_rule(client_for, db):
    owner = client_for(Role.AUTHOR, scopes=("media:read", "media:write"))
    other = client_for(Role.AUTHOR, scopes=("media:read", "media:write"))
    item = make_media(author=owner.user, content=photo(), filename="mine.jpg")
    point = {"focalPoint": {"x": 0.5, "y": 0.5}}
    assert other.patch(f"{MEDIA}/{item.pk}", point, format="json").status_code == 403
    assert owner.patch(f"{MEDIA}/{item.pk}", point, format="json").status_code == 200


def test_the_focal_point_is_set_and_urls_are_signed_through_mcp(admin_user, api, image):
    mcp = McpClient(make_token(admin_user, ["admin"])[1])
    result = mcp.ok("media_update", {"id": image.pk, "focalPoint": {"x": 0.1, "y": 0.2}})
    assert result["focalPoint"] == {"x": 0.1, "y": 0.2}
    assert result["renditions"]["small"].endswith(f"/media/{image.pk}/render/small")
    url = mcp.ok("media_rendition_url", {"id": image.pk, "w": 120, "h": 90, "format": "jpeg"})["url"]
    response = api.get(path_of(url))
    assert response.status_code == 200
    assert response["Content-Type"] == "image/jpeg"
    with Image.open(io.BytesIO(response.content)) as picture:
        assert picture.size == (120, 90)


def test_media_answers_list_presets_and_srcset_widths(admin_api, api, image, settings):
    data = admin_api.get(f"{MEDIA}/{image.pk}").json()["data"]
    base = f"{settings.CMS_BASE_URL}{MEDIA}/{image.pk}/render"
    thumbnail = data["renditions"].pop("thumbnail")
    assert data["renditions"] == {name: f"{base}/{name}" for name in ("small", "medium", "large")}
    # The square crop depends on the focal point: its URL carries a version that changes with it.
    assert thumbnail.startswith(f"{base}/thumbnail?v=")
    admin_api.patch(f"{MEDIA}/{image.pk}", {"focalPoint": {"x": 0.2, "y": 0.2}}, format="json")
    moved = admin_api.get(f"{MEDIA}/{image.pk}").json()["data"]["renditions"]
    assert moved["thumbnail"].startswith(f"{base}/thumbnail?v=") and moved["thumbnail"] != thumbnail
    assert moved["small"] == f"{base}/small"
    assert api.get(path_of(moved["thumbnail"])).status_code == 200
    # Never wider than the image itself (400 pixels): the configured widths below it, then its own.
    assert [entry["width"] for entry in data["srcset"]] == [320, 400]
    for entry in data["srcset"]:
        response = api.get(path_of(entry["url"]))
        assert response.status_code == 200
        with Image.open(io.BytesIO(response.content)) as picture:
            assert picture.width == entry["width"]
    settings.CMS_RENDITION_PRESETS = {}
    settings.CMS_RENDITION_WIDTHS = []
    bare = admin_api.get(f"{MEDIA}/{image.pk}").json()["data"]
    assert (bare["renditions"], bare["srcset"]) == (None, None)


def test_other_files_have_no_renditions(admin_api, db):
    pdf = make_media(content=PDF_BYTES, filename="paper.pdf")
    data = admin_api.get(f"{MEDIA}/{pdf.pk}").json()["data"]
    assert (data["renditions"], data["srcset"], data["focalPoint"]) == (None, None, None)


def test_a_png_with_transparency_keeps_it_in_webp(api, db):
    out = io.BytesIO()
    Image.new("RGBA", (40, 40), (255, 0, 0, 0)).save(out, "PNG")
    item = make_media(content=out.getvalue(), filename="clear.png")
    response = api.get(f"{MEDIA}/{item.pk}/render/thumbnail")
    with Image.open(io.BytesIO(response.content)) as picture:
        assert picture.mode == "RGBA"
        assert picture.size == (40, 40)
        assert picture.getpixel((20, 20))[3] == 0


def test_small_pngs_render(api, db):
    item = make_media(content=png_bytes(size=(8, 6)), filename="tiny.png")
    response = api.get(f"{MEDIA}/{item.pk}/render/large")
    assert response.status_code == 200
    with Image.open(io.BytesIO(response.content)) as picture:
        assert picture.size == (8, 6)


# --- made ahead by a worker (issue 24) --------------------------------------------------------------------------------


def worker_pass(*queues: str) -> str:
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("worker", "--once", "--queues", ",".join(queues), stdout=out)
    return out.getvalue()


def test_a_worker_makes_every_offered_rendition_of_an_upload_before_anyone_asks(admin_api, api, media_root):
    upload = admin_api.post(
        f"{MEDIA}", {"file": SimpleUploadedFile("photo.jpg", photo((800, 600)))}, format="multipart"
    )
    assert upload.status_code == 201, upload.json()
    item = upload.json()["data"]
    offered = [*item["renditions"].values(), *(each["url"] for each in item["srcset"])]
    assert rendition_files(media_root) == []

    assert worker_pass("renditions") == f"make_renditions: {len(offered)}\n"

    assert len(rendition_files(media_root)) == len(offered)
    with mock.patch("apps.media.renditions.render", side_effect=AssertionError("rendered again")):
        for url in offered:
            assert api.get(path_of(url)).status_code == 200, url
    # Made once: another pass has nothing to render.
    assert worker_pass("renditions") == ""


def test_files_that_are_not_images_get_no_rendition_task(admin_api, media_root):
    from django_tasks_db.models import DBTaskResult

    upload = admin_api.post(f"{MEDIA}", {"file": SimpleUploadedFile("a.pdf", PDF_BYTES)}, format="multipart")
    assert upload.status_code == 201
    assert not DBTaskResult.objects.filter(queue_name="renditions").exists()
