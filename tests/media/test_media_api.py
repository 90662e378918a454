"""Media over HTTP (SPEC §4.3): uploads (type from the bytes, dimensions, deduplication, limits), records of files
already in storage, listing, metadata edits with own/any rules, deletion of records and files."""

from __future__ import annotations

import io
from urllib.parse import urlsplit

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings

from apps.accounts.models import Role
from apps.media.models import MediaItem
from tests.factories import PDF_BYTES, make_media, make_user, png_bytes

MEDIA = "/_cms/api/media"


def upload(client, content: bytes, name: str = "photo.png", **fields):
    return client.post(MEDIA, {"file": SimpleUploadedFile(name, content), **fields}, format="multipart")


def render_base(media_id: str) -> str:
    return f"http://localhost:8000/_cms/api/media/{media_id}/render"


def renditions_of(media_id: str) -> dict:
    """The default presets' URLs; the square crop's carries the version of "no focal point"."""
    base = render_base(media_id)
    return {
        "thumbnail": f"{base}/thumbnail?v=0f92dddc",
        **{name: f"{base}/{name}" for name in ("small", "medium", "large")},
    }


def files_under(root) -> list:
    return sorted(path for path in root.rglob("*") if path.is_file())


def download(client, url: str):
    response = client.get(urlsplit(url).path)
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return response, body


def test_upload_stores_the_bytes_and_answers_the_item(admin_api, admin_user, media_root):
    content = png_bytes(size=(40, 30))
    response = upload(admin_api, content, "Holiday Photo.PNG", alt="A beach", caption="Summer")
    assert response.status_code == 201
    data = response.json()["data"]
    key = data["storageKey"]
    assert key.endswith(f"{data['id'].lower()}-holiday-photo.png")
    assert data == {
        "id": data["id"],
        "filename": "Holiday Photo.PNG",
        "mimeType": "image/png",
        "size": len(content),
        "width": 40,
        "height": 30,
        "url": f"http://localhost:8000/_cms/api/media/file/{key}",
        "storageKey": key,
        "alt": "A beach",
        "caption": "Summer",
        "authorId": admin_user.pk,
        "focalPoint": None,
        "renditions": renditions_of(data["id"]),
        # Never wider than the image: its own 40 pixels, signed (tests/media/test_renditions.py).
        "srcset": [{"width": 40, "url": data["srcset"][0]["url"]}],
        "createdAt": data["createdAt"],
        "updatedAt": data["updatedAt"],
        "deduplicated": False,
    }
    assert data["srcset"][0]["url"].startswith(
        f"{render_base(data['id'])}?w=40&fit=cover&format=webp&q=80&s="
    )
    assert files_under(media_root) == [media_root / key]
    assert (media_root / key).read_bytes() == content


def test_a_file_uploaded_downloads_byte_identical_from_its_url(admin_api, api):
    content = png_bytes(size=(300, 200))
    url = upload(admin_api, content).json()["data"]["url"]
    response, body = download(api, url)
    assert response.status_code == 200
    assert body == content
    assert response["Content-Type"] == "image/png"
    assert response["Content-Length"] == str(len(content))


def test_the_same_bytes_twice_give_the_existing_item_and_one_file(admin_api, media_root):
    content = png_bytes()
    first = upload(admin_api, content, "a.png").json()["data"]
    again = upload(admin_api, content, "renamed.png", alt="ignored")
    assert again.status_code == 200
    assert again.json() == {"success": True, "data": {**first, "deduplicated": True}}
    assert len(files_under(media_root)) == 1
    assert MediaItem.objects.count() == 1


def test_different_bytes_are_different_items(admin_api, media_root):
    upload(admin_api, png_bytes(color=(1, 2, 3)))
    assert upload(admin_api, png_bytes(color=(3, 2, 1))).status_code == 201
    assert len(files_under(media_root)) == 2


def test_a_hash_match_is_confirmed_byte_for_byte(admin_api, media_root):
    """xxHash64 can collide: a record with the same hash and size but other bytes is not taken for the upload."""
    content = png_bytes()
    first = upload(admin_api, content).json()["data"]
    other = png_bytes(color=(9, 9, 9))
    assert len(other) == len(content)
    (media_root / first["storageKey"]).write_bytes(other)
    response = upload(admin_api, content)
    assert response.status_code == 201
    assert response.json()["data"]["id"] != first["id"]


def test_a_pdf_is_accepted_without_dimensions(admin_api):
    response = upload(admin_api, PDF_BYTES, "report.pdf")
    assert response.status_code == 201
    data = response.json()["data"]
    assert (data["mimeType"], data["width"], data["height"]) == ("application/pdf", None, None)
    assert data["storageKey"].endswith("-report.pdf")


def test_the_type_comes_from_the_bytes_not_the_name(admin_api, media_root):
    response = upload(admin_api, b"<html><script>alert(1)</script></html>", "cat.jpg")
    assert response.status_code == 415
    assert response.json() == {
        "success": False,
        "error": {
            "code": "UNSUPPORTED_MEDIA_TYPE",
            "message": "The file's content is not a recognised file type; allowed types: image/*, video/*, "
            "audio/*, application/pdf.",
            "details": {
                "file": "Content detected as not a recognised file type; allowed: image/*, video/*, audio/*, "
                "application/pdf."
            },
        },
    }
    assert files_under(media_root) == []


def test_a_png_named_like_a_pdf_is_stored_as_png(admin_api):
    data = upload(admin_api, png_bytes(), "invoice.pdf").json()["data"]
    assert data["mimeType"] == "image/png"
    assert data["storageKey"].endswith("-invoice.png")


@override_settings(CMS_MEDIA_ALLOWED_TYPES=["application/pdf"])
def test_the_allow_list_is_configurable(admin_api):
    response = upload(admin_api, png_bytes())
    assert response.status_code == 415
    assert response.json()["error"]["details"] == {
        "file": "Content detected as image/png; allowed: application/pdf."
    }
    assert upload(admin_api, PDF_BYTES, "a.pdf").status_code == 201


@override_settings(CMS_MAX_UPLOAD_BYTES=50)
def test_a_file_over_the_limit_is_413_and_nothing_is_stored(admin_api, media_root):
    content = png_bytes(size=(20, 20))
    assert len(content) > 50
    response = upload(admin_api, content)
    assert response.status_code == 413
    assert response.json() == {
        "success": False,
        "error": {
            "code": "PAYLOAD_TOO_LARGE",
            "message": "The upload exceeds the limit of 50 bytes.",
            "details": {"file": "At most 50 bytes."},
        },
    }
    assert files_under(media_root) == []
    assert MediaItem.objects.count() == 0


@override_settings(CMS_MAX_UPLOAD_BYTES=1000)
def test_a_declared_length_far_over_the_limit_is_refused_before_reading(admin_api):
    response = upload(admin_api, b"\0" * 200_000, "big.bin")
    assert response.status_code == 413
    error = response.json()["error"]
    assert error["code"] == "PAYLOAD_TOO_LARGE"
    assert error["message"].endswith("files may have at most 1000 bytes.")


def test_an_empty_file_is_refused(admin_api):
    response = upload(admin_api, b"", "empty.png")
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {"file": "The submitted file is empty."}


def test_a_multipart_body_without_a_file_is_refused(admin_api):
    response = admin_api.post(MEDIA, {"alt": "x"}, format="multipart")
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {"file": "No file was submitted."}


def test_other_content_types_are_refused(admin_api):
    response = admin_api.post(MEDIA, b"raw", content_type="application/octet-stream")
    assert response.status_code == 415
    assert response.json()["error"]["code"] == "UNSUPPORTED_MEDIA_TYPE"


# --- files already in storage (JSON) ----------------------------------------------------------------------------------


@pytest.fixture
def stored_png(media_root):
    content = png_bytes(size=(12, 8))
    path = media_root / "imports" / "logo.png"
    path.parent.mkdir()
    path.write_bytes(content)
    return content


def test_recording_a_file_already_in_storage(admin_api, admin_user, stored_png):
    response = admin_api.post(
        MEDIA, {"storageKey": "imports/logo.png", "mimeType": "image/png", "alt": "Logo"}, format="json"
    )
    assert response.status_code == 201
    data = response.json()["data"]
    assert data == {
        "id": data["id"],
        "filename": "logo.png",
        "mimeType": "image/png",
        "size": len(stored_png),
        "width": 12,
        "height": 8,
        "url": "http://localhost:8000/_cms/api/media/file/imports/logo.png",
        "storageKey": "imports/logo.png",
        "alt": "Logo",
        "caption": "",
        "authorId": admin_user.pk,
        "focalPoint": None,
        "renditions": renditions_of(data["id"]),
        "srcset": [{"width": 12, "url": data["srcset"][0]["url"]}],
        "createdAt": data["createdAt"],
        "updatedAt": data["updatedAt"],
        "deduplicated": False,
    }
    again = admin_api.post(MEDIA, {"storageKey": "imports/logo.png"}, format="json")
    assert again.status_code == 200
    assert again.json()["data"] == {**data, "deduplicated": True}


def test_recorded_metadata_must_match_the_bytes(admin_api, stored_png):
    response = admin_api.post(
        MEDIA, {"storageKey": "imports/logo.png", "mimeType": "image/jpeg", "size": 3}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "mimeType": "The file's content is image/png, not image/jpeg.",
        "size": f"The file has {len(stored_png)} bytes, not 3.",
    }


@pytest.mark.parametrize(
    ("key", "problem"),
    [
        ("../outside.png", "A storage key has no empty, '.' or '..' segments."),
        ("imports/../../outside.png", "A storage key has no empty, '.' or '..' segments."),
        ("/etc/passwd", "A storage key is relative to the media root: no leading '/', '~' or drive letter."),
        (
            "C:/Windows/win.ini",
            "A storage key is relative to the media root: no leading '/', '~' or drive letter.",
        ),
        ("imports\\logo.png", "Control characters and backslashes are not allowed in a storage key."),
        ("imports//logo.png", "A storage key has no empty, '.' or '..' segments."),
        ("imports/missing.png", "No file 'imports/missing.png' in the media storage."),
    ],
)
def test_bad_storage_keys_are_refused(admin_api, stored_png, key, problem):
    response = admin_api.post(MEDIA, {"storageKey": key}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {"storageKey": problem}


def test_a_key_through_a_link_out_of_the_media_root_is_refused(admin_api, media_root, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.png").write_bytes(png_bytes())
    (media_root / "linked").symlink_to(outside)
    response = admin_api.post(MEDIA, {"storageKey": "linked/secret.png"}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {"storageKey": "The key points outside the media root."}


def test_json_and_multipart_bodies_are_each_checked_for_unknown_keys(admin_api, stored_png):
    response = admin_api.post(MEDIA, {"storageKey": "imports/logo.png", "path": "x"}, format="json")
    assert response.status_code == 400
    assert list(response.json()["error"]["details"]) == ["path"]
    response = upload(admin_api, png_bytes(), storageKey="imports/logo.png")
    assert response.status_code == 400
    assert list(response.json()["error"]["details"]) == ["storageKey"]


# --- reading ----------------------------------------------------------------------------------------------------------


def test_list_newest_first_with_prefix_filter_and_pages(admin_api):
    image_a = make_media(content=png_bytes(color=(1, 1, 1)))
    pdf = make_media(content=PDF_BYTES, filename="a.pdf")
    image_b = make_media(content=png_bytes(color=(2, 2, 2)))
    listing = admin_api.get(MEDIA).json()["data"]
    assert [item["id"] for item in listing["items"]] == [image_b.pk, pdf.pk, image_a.pk]
    assert listing["nextCursor"] is None
    images = admin_api.get(MEDIA, {"mimeType": "image/"}).json()["data"]["items"]
    assert [item["id"] for item in images] == [image_b.pk, image_a.pk]
    first = admin_api.get(MEDIA, {"limit": 2}).json()["data"]
    second = admin_api.get(MEDIA, {"limit": 2, "cursor": first["nextCursor"]}).json()["data"]
    assert [item["id"] for item in first["items"] + second["items"]] == [image_b.pk, pdf.pk, image_a.pk]
    assert second["nextCursor"] is None


def test_search_finds_words_of_filename_alt_or_caption_in_any_case(admin_api):
    harbour = make_media(content=png_bytes(color=(3, 3, 3)), filename="harbour.png")
    alt = make_media(content=png_bytes(color=(4, 4, 4)), filename="a.png", alt="Sunset over the HARBOUR")
    caption = make_media(content=PDF_BYTES, filename="b.pdf", caption="Harbour fees 2026")
    make_media(content=png_bytes(color=(5, 5, 5)), filename="mountain.png", alt="Peak")
    found = admin_api.get(MEDIA, {"search": "harbour"}).json()["data"]
    assert [item["id"] for item in found["items"]] == [caption.pk, alt.pk, harbour.pk]
    images = admin_api.get(MEDIA, {"search": "Harbour", "mimeType": "image/"}).json()["data"]["items"]
    assert [item["id"] for item in images] == [alt.pk, harbour.pk]
    assert admin_api.get(MEDIA, {"search": "nothing-like-it"}).json()["data"]["items"] == []
    # A cursor continues the search it came from, and no other.
    first = admin_api.get(MEDIA, {"search": "harbour", "limit": 2}).json()["data"]
    second = admin_api.get(MEDIA, {"search": "harbour", "limit": 2, "cursor": first["nextCursor"]})
    assert [item["id"] for item in second.json()["data"]["items"]] == [harbour.pk]
    other = admin_api.get(MEDIA, {"search": "peak", "limit": 2, "cursor": first["nextCursor"]})
    assert other.status_code == 400


def test_get_one_and_unknown(admin_api):
    item = make_media()
    response = admin_api.get(f"{MEDIA}/{item.pk}")
    assert response.status_code == 200
    assert response.json()["data"]["id"] == item.pk
    missing = admin_api.get(f"{MEDIA}/01ARZ3NDEKTSV4RRFFQ69G5FAV")
    assert missing.status_code == 404
    assert missing.json()["error"] == {
        "code": "NOT_FOUND",
        "message": "No media item 01ARZ3NDEKTSV4RRFFQ69G5FAV.",
        "details": {},
    }


def test_reading_needs_media_read(client_for, api):
    make_media()
    assert api.get(MEDIA).status_code == 401
    assert client_for(Role.SUBSCRIBER, ["media:read"]).get(MEDIA).status_code == 200
    refused = client_for(Role.SUBSCRIBER, ["content:read"]).get(MEDIA)
    assert refused.status_code == 403
    assert refused.json()["error"]["message"] == "Insufficient scope: requires media:read."


def test_uploading_needs_media_write_and_the_author_role(client_for):
    refused = upload(client_for(Role.ADMIN, ["media:read", "content:write"]), png_bytes())
    assert refused.status_code == 403
    assert refused.json()["error"]["message"] == "Insufficient scope: requires media:write."
    assert upload(client_for(Role.AUTHOR, ["media:write"]), png_bytes()).status_code == 201


# --- editing and deleting -----------------------------------------------------------------------------------------


def test_authors_edit_their_own_media_editors_anyones(client_for):
    owner = client_for(Role.AUTHOR, ["media:write", "media:read"])
    item_id = upload(owner, png_bytes()).json()["data"]["id"]
    changed = owner.patch(f"{MEDIA}/{item_id}", {"alt": "New alt", "caption": "New caption"}, format="json")
    assert changed.status_code == 200
    assert (changed.json()["data"]["alt"], changed.json()["data"]["caption"]) == ("New alt", "New caption")

    other_author = client_for(Role.AUTHOR, ["media:write"])
    refused = other_author.patch(f"{MEDIA}/{item_id}", {"alt": "Mine now"}, format="json")
    assert refused.status_code == 403
    assert refused.json()["error"] == {
        "code": "FORBIDDEN",
        "message": "Only editor (40) or higher may do this to items that belong to someone else.",
        "details": {"requiredRole": 40},
    }
    assert other_author.delete(f"{MEDIA}/{item_id}").status_code == 403

    editor = client_for(Role.EDITOR, ["media:write"])
    assert (
        editor.patch(f"{MEDIA}/{item_id}", {"alt": "Edited"}, format="json").json()["data"]["alt"] == "Edited"
    )
    assert MediaItem.objects.get(pk=item_id).alt == "Edited"


def test_patch_refuses_other_keys(admin_api):
    item = make_media()
    response = admin_api.patch(f"{MEDIA}/{item.pk}", {"filename": "x.png"}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "filename": "Unknown field; allowed: alt, caption, focalPoint, height, width."
    }


def test_delete_removes_the_record_and_the_file(admin_api, media_root, django_capture_on_commit_callbacks):
    item = make_media()
    path = media_root / item.storage_key
    assert path.exists()
    # The file goes once the deletion commits.
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_api.delete(f"{MEDIA}/{item.pk}")
    assert response.status_code == 200
    assert response.json() == {"success": True, "data": {"success": True}}
    assert not path.exists()
    assert admin_api.get(f"{MEDIA}/{item.pk}").status_code == 404


def test_a_file_named_by_another_record_is_kept(admin_api, media_root, django_capture_on_commit_callbacks):
    item = make_media()
    twin = MediaItem.objects.create(
        filename="twin.png",
        mime_type=item.mime_type,
        size=item.size,
        storage_key=item.storage_key,
        content_hash=item.content_hash,
    )
    with django_capture_on_commit_callbacks(execute=True):
        admin_api.delete(f"{MEDIA}/{item.pk}")
    assert (media_root / item.storage_key).exists()
    with django_capture_on_commit_callbacks(execute=True):
        admin_api.delete(f"{MEDIA}/{twin.pk}")
    assert not (media_root / item.storage_key).exists()


def test_uploads_by_the_admin_form_go_through_the_service(media_root):
    from django.test import Client

    admin = make_user(Role.ADMIN)
    client = Client()
    client.force_login(admin)
    content = png_bytes(color=(5, 6, 7))
    response = client.post(
        "/django-admin/media/mediaitem/add/",
        {"upload": SimpleUploadedFile("from-admin.png", content), "alt": "Admin", "caption": ""},
    )
    assert response.status_code == 302
    item = MediaItem.objects.get()
    assert (item.mime_type, item.width, item.author_id, item.alt) == ("image/png", 4, admin.pk, "Admin")
    assert (media_root / item.storage_key).read_bytes() == content
    listing = client.get("/django-admin/media/mediaitem/")
    assert listing.status_code == 200
    assert f'src="http://localhost:8000/_cms/api/media/file/{item.storage_key}"' in listing.content.decode()


def test_bytes_stream_helper_reads_to_the_end():
    from apps.media.analysis import analyse

    stream = io.BytesIO(png_bytes(size=(7, 5)))
    analysis = analyse(stream)
    assert (analysis.mime_type, analysis.width, analysis.height, stream.tell()) == ("image/png", 7, 5, 0)
