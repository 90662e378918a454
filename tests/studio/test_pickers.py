"""The JSON behind the studio's pickers: media to choose from, uploads from the media dialog, entries to reference;
and the media library's search box."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from apps.accounts.models import Role
from tests.factories import make_entry, make_media, make_token, make_user, png_bytes

pytestmark = pytest.mark.django_db
PICK_MEDIA = "/_cms/admin/pick/media"
UPLOAD = "/_cms/admin/pick/media/upload"
PICK_ENTRIES = "/_cms/admin/pick/entries"


def signed_in(role: int = Role.EDITOR, **options) -> Client:
    client = Client(**options)
    client.force_login(make_user(role, email=f"picker{role}@example.com"))
    return client


def ids(response) -> list[str]:
    return [item["id"] for item in response.json()["data"]["items"]]


@pytest.fixture
def library():
    return {
        "harbour": make_media(content=png_bytes(color=(1, 2, 3)), filename="harbour.png", alt="Boats"),
        "sunset": make_media(
            content=png_bytes(color=(4, 5, 6)), filename="b.png", caption="Sunset at the HARBOUR"
        ),
        "fees": make_media(
            content=b"%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n",
            filename="harbour-fees.pdf",
        ),
        "peak": make_media(content=png_bytes(color=(7, 8, 9)), filename="peak.png", alt="Mountain"),
    }


def test_media_search_and_type_filter(library):
    client = signed_in(Role.CONTRIBUTOR)
    response = client.get(PICK_MEDIA, {"q": "harbour"})
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert ids(response) == [library["fees"].pk, library["sunset"].pk, library["harbour"].pk]
    item = response.json()["data"]["items"][-1]
    assert (item["filename"], item["alt"], item["mimeType"]) == ("harbour.png", "Boats", "image/png")
    assert item["url"].endswith("-harbour.png") and "/_cms/api/media/file/" in item["url"]
    assert ids(client.get(PICK_MEDIA, {"q": "harbour", "type": "image"})) == [
        library["sunset"].pk,
        library["harbour"].pk,
    ]
    assert ids(client.get(PICK_MEDIA, {"type": "image"})) == [
        library["peak"].pk,
        library["sunset"].pk,
        library["harbour"].pk,
    ]
    refused = client.get(PICK_MEDIA, {"type": "spreadsheet"})
    assert refused.status_code == 400
    assert refused.json()["error"]["details"] == {"type": "One of: image, video, audio, application."}


def test_media_pages_continue_with_the_cursor(library, monkeypatch):
    from apps.studio.views import pickers

    monkeypatch.setattr(pickers, "MEDIA_PAGE", 3)
    client = signed_in()
    first = client.get(PICK_MEDIA).json()["data"]
    assert len(first["items"]) == 3
    second = client.get(PICK_MEDIA, {"cursor": first["nextCursor"]}).json()["data"]
    assert [item["id"] for item in second["items"]] == [library["harbour"].pk]
    assert second["nextCursor"] is None


def upload(client, content: bytes, name: str = "new.png", **headers):
    return client.post(UPLOAD, {"file": SimpleUploadedFile(name, content), "alt": "Alt text"}, **headers)


def test_upload_answers_the_item_and_deduplicates_the_same_bytes(admin_api):
    client = signed_in(Role.AUTHOR)
    first = upload(client, png_bytes(color=(9, 9, 9)))
    assert first.status_code == 201
    item = first.json()["data"]
    assert (item["filename"], item["alt"], item["deduplicated"]) == ("new.png", "Alt text", False)
    again = upload(client, png_bytes(color=(9, 9, 9)), name="again.png")
    assert again.status_code == 200
    assert (again.json()["data"]["id"], again.json()["data"]["deduplicated"]) == (item["id"], True)
    listed = admin_api.get("/_cms/api/media").json()["data"]["items"]
    assert [(entry["id"], entry["filename"]) for entry in listed] == [(item["id"], "new.png")]


def test_a_refused_type_gives_the_services_message_and_status_as_rest_does(admin_api):
    text = b"just some words, not an image\n" * 4
    author = signed_in(Role.AUTHOR)
    response = upload(author, text, name="notes.txt")
    rest = admin_api.post(
        "/_cms/api/media", {"file": SimpleUploadedFile("notes.txt", text)}, format="multipart"
    )
    assert rest.status_code == 415
    assert response.status_code == 415
    assert response.json()["error"] == rest.json()["error"]
    assert response.json()["error"]["message"].startswith(
        "The file's content is not a recognised file type; allowed"
    )
    empty = author.post(UPLOAD, {"alt": "nothing"})
    assert empty.status_code == 400
    rest_empty = admin_api.post("/_cms/api/media", {"alt": "nothing"}, format="multipart")
    assert empty.json()["error"] == rest_empty.json()["error"]
    assert admin_api.get("/_cms/api/media").json()["data"]["items"] == []


def test_upload_needs_the_csrf_token_and_takes_it_from_the_header():
    client = signed_in(Role.AUTHOR, enforce_csrf_checks=True)
    assert upload(client, png_bytes()).status_code == 403
    client.get("/_cms/admin/media/")  # sets the CSRF cookie, as the page holding the dialog does
    token = client.cookies["csrftoken"].value
    assert upload(client, png_bytes(), HTTP_X_CSRFTOKEN=token).status_code == 201


def test_uploading_needs_the_media_create_permission(admin_api):
    response = upload(signed_in(Role.CONTRIBUTOR), png_bytes())
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "FORBIDDEN"
    assert admin_api.get("/_cms/api/media").json()["data"]["items"] == []


def test_upload_over_the_size_limit_is_413(settings):
    settings.CMS_MAX_UPLOAD_BYTES = 100
    response = upload(signed_in(Role.AUTHOR), png_bytes(size=(64, 64)) + b"\0" * 200)
    assert response.status_code == 413
    assert response.json()["error"]["details"] == {"file": "At most 100 bytes."}
    # A declared length far over the limit is refused before the body is read (the CSRF check would read it).
    declared = signed_in(Role.EDITOR, enforce_csrf_checks=True).post(
        UPLOAD, b"--x--\r\n", content_type="multipart/form-data; boundary=x", CONTENT_LENGTH=str(10**9)
    )
    assert declared.status_code == 413
    assert (
        declared.json()["error"]["message"]
        == "The upload is 1000000000 bytes; files may have at most 100 bytes."
    )


@pytest.fixture
def entries(posts_collection):
    return {
        "pie": make_entry(posts_collection, {"title": "Apple pie"}),
        "tart": make_entry(posts_collection, {"title": "Apple tart"}, status="published"),
        "banana": make_entry(posts_collection, {"title": "Banana bread"}),
    }


def test_entries_are_searched_by_title_as_people_type(entries):
    client = signed_in(Role.CONTRIBUTOR)
    response = client.get(PICK_ENTRIES, {"collection": "posts", "q": "APPLE"})
    assert response.status_code == 200
    assert response.json()["data"] == {
        "collection": "posts",
        "items": [
            {
                "id": entries["tart"].pk,
                "title": "Apple tart",
                "slug": entries["tart"].slug,
                "status": "published",
                "changed": False,
            },
            {
                "id": entries["pie"].pk,
                "title": "Apple pie",
                "slug": entries["pie"].slug,
                "status": "draft",
                "changed": False,
            },
        ],
    }
    assert ids(client.get(PICK_ENTRIES, {"collection": "posts", "q": "bread"})) == [entries["banana"].pk]
    assert len(ids(client.get(PICK_ENTRIES, {"collection": "posts"}))) == 3
    named = client.get(
        PICK_ENTRIES, {"collection": "posts", "ids": f"{entries['banana'].pk},{entries['pie'].pk}"}
    )
    assert sorted(ids(named)) == sorted([entries["banana"].pk, entries["pie"].pk])


def test_entries_need_a_known_collection(posts_collection):
    client = signed_in()
    missing = client.get(PICK_ENTRIES, {"q": "x"})
    assert missing.status_code == 400
    assert missing.json()["error"]["details"] == {"collection": "Required: the collection to pick from."}
    unknown = client.get(PICK_ENTRIES, {"collection": "nope"})
    assert unknown.status_code == 404
    assert unknown.json()["error"]["code"] == "NOT_FOUND"


def test_subscribers_and_tokens_cannot_reach_the_pickers(entries, library):
    subscriber = signed_in(Role.SUBSCRIBER)
    for url, params in ((PICK_MEDIA, {}), (PICK_ENTRIES, {"collection": "posts"})):
        assert subscriber.get(url, params).status_code == 403
    assert upload(subscriber, png_bytes()).status_code == 403
    # The studio is for signed-in people: a bearer token, whatever its scopes, is sent to the sign-in page.
    _, raw = make_token(make_user(Role.SUBSCRIBER, email="token@example.com"), ["content:read", "media:read"])
    response = Client().get(PICK_MEDIA, HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert response.status_code == 302
    assert response["Location"].startswith("/_cms/admin/login?next=")


def test_the_media_library_page_searches(library):
    response = signed_in().get("/_cms/admin/media/", {"q": "harbour", "type": "image"})
    assert response.status_code == 200
    html = response.content.decode()
    assert '<input type="search" id="media-search" name="q" value="harbour"' in html
    assert '<span class="name">harbour.png</span>' in html
    assert '<span class="name">b.png</span>' in html
    assert "peak.png" not in html and "harbour-fees.pdf" not in html
    none = signed_in(Role.AUTHOR).get("/_cms/admin/media/", {"q": "zebra"}).content.decode()
    assert "No media matches “zebra”." in none


def test_studio_pages_load_the_pickers_script():
    html = signed_in().get("/_cms/admin/").content.decode()
    assert '<script src="/static/studio/pickers.js" defer></script>' in html
    assert '<meta name="cms-pick-media" content="/_cms/admin/pick/media">' in html
