"""What entry answers resolve: image and file values naming a media item become {id, url, alt, width, height} and
{id, url, filename, mimeType, size} (SPEC §2.6), and terms are grouped by taxonomy, each loaded once per page."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.models import TextField
from django.db.models.functions import Cast
from django.test.utils import CaptureQueriesContext

from apps.accounts.models import Role
from apps.accounts.permissions import Actor
from apps.content.models import Entry
from apps.media.models import MediaItem
from apps.media.storage import media_url
from apps.taxonomy import services as taxonomy_services
from tests.factories import PDF_BYTES, make_collection, make_entry, make_media, png_bytes

CONTENT = "/_cms/api/content/posts"


@pytest.fixture
def posts():
    return make_collection("posts", fields=(("title", "string"), ("cover", "image"), ("attachment", "file")))


@pytest.fixture
def photo():
    return make_media(content=png_bytes(size=(640, 480)), filename="photo.png", alt="A lake")


@pytest.fixture
def report():
    return make_media(content=PDF_BYTES, filename="report.pdf")


def test_image_and_file_values_are_resolved(admin_api, posts, photo, report):
    response = admin_api.post(
        CONTENT,
        {"data": {"title": "Hello", "cover": photo.pk, "attachment": {"id": report.pk}}},
        format="json",
    )
    assert response.status_code == 201
    data = response.json()["data"]["item"]["data"]
    expected = {
        "title": "Hello",
        "cover": {
            "id": photo.pk,
            "url": media_url(photo.storage_key),
            "alt": "A lake",
            "width": 640,
            "height": 480,
        },
        "attachment": {
            "id": report.pk,
            "url": media_url(report.storage_key),
            "filename": "report.pdf",
            "mimeType": "application/pdf",
            "size": len(PDF_BYTES),
        },
    }
    assert data == expected
    entry_id = response.json()["data"]["item"]["id"]
    assert admin_api.get(f"{CONTENT}/{entry_id}").json()["data"]["item"]["data"] == expected
    assert admin_api.get(CONTENT).json()["data"]["items"][0]["data"] == expected


def test_alt_and_caption_given_where_the_image_is_used_win(admin_api, posts, photo):
    entry = make_entry(
        posts, {"title": "T", "cover": {"id": photo.pk, "alt": "Here", "caption": "Taken at dawn"}}
    )
    cover = admin_api.get(f"{CONTENT}/{entry.pk}").json()["data"]["item"]["data"]["cover"]
    assert cover == {
        "id": photo.pk,
        "url": media_url(photo.storage_key),
        "alt": "Here",
        "width": 640,
        "height": 480,
        "caption": "Taken at dawn",
    }


def test_unknown_media_and_external_urls_are_shown_as_stored(admin_api, posts, report):
    entry = make_entry(
        posts,
        {
            "title": "T",
            "cover": {"url": "https://cdn.example.com/a.jpg", "alt": "x"},
            "attachment": report.pk,
        },
    )
    # A media item gone since the entry was saved (its record removed without the service).
    MediaItem.objects.filter(pk=report.pk).delete()
    data = admin_api.get(f"{CONTENT}/{entry.pk}").json()["data"]["item"]["data"]
    assert data["cover"] == {"url": "https://cdn.example.com/a.jpg", "alt": "x"}
    assert data["attachment"] == {"id": report.pk}


@pytest.mark.parametrize("method", ["post", "patch"])
def test_image_and_file_values_naming_no_media_item_are_refused(admin_api, posts, photo, method):
    entry = make_entry(posts, {"title": "T"})
    url = CONTENT if method == "post" else f"{CONTENT}/{entry.pk}"
    missing = "01ARZ3NDEKTSV4RRFFQ69G5FAV"
    data = {"title": "T", "cover": {"id": missing, "alt": "x"}, "attachment": missing}
    response = getattr(admin_api, method)(url, {"data": data}, format="json")
    assert response.status_code == 400
    problem = f"No media item {missing}; give the id of an uploaded media item or an external url."
    assert response.json() == {
        "success": False,
        "error": {
            "code": "VALIDATION_ERROR",
            "message": f"/data/cover: {problem} (and 1 more problem; see details)",
            "details": {"cover": problem, "attachment": problem},
            "pointers": {"cover": "/data/cover", "attachment": "/data/attachment"},
        },
    }
    assert Entry.objects.filter(collection=posts).count() == 1
    assert Entry.objects.get(pk=entry.pk).data == {"title": "T"}
    # The same value naming an item that exists is taken.
    kept = getattr(admin_api, method)(
        url, {"data": {**data, "cover": photo.pk, "attachment": None}}, format="json"
    )
    assert kept.status_code == (201 if method == "post" else 200)


def test_readers_of_published_entries_see_the_published_version_resolved(client_for, posts, photo):
    entry = make_entry(posts, {"title": "Live", "cover": photo.pk}, status="published")
    admin = client_for(Role.ADMIN)
    admin.patch(f"{CONTENT}/{entry.pk}", {"data": {"cover": None}}, format="json")
    reader = client_for(Role.SUBSCRIBER, ["content:read"])
    item = reader.get(f"{CONTENT}/{entry.pk}").json()["data"]["item"]
    assert item["data"]["cover"]["url"] == media_url(photo.storage_key)
    # Editors see the working copy, and the published version beside it, both resolved.
    edited = admin.get(f"{CONTENT}/{entry.pk}").json()["data"]["item"]
    assert "cover" not in edited["data"]
    assert edited["liveData"]["cover"]["width"] == 640


def test_deleting_the_media_leaves_the_stored_reference(admin_api, posts, photo):
    entry = make_entry(posts, {"title": "T", "cover": photo.pk})
    admin_api.delete(f"/_cms/api/media/{photo.pk}")
    assert admin_api.get(f"{CONTENT}/{entry.pk}").json()["data"]["item"]["data"]["cover"] == {"id": photo.pk}


def _fill(posts, count: int, category, tag):
    actor = Actor.system()
    for number in range(count):
        image = make_media(content=png_bytes(color=(number, 1, 2)), filename=f"p{number}.png")
        pdf = make_media(content=PDF_BYTES + str(number).encode(), filename=f"d{number}.pdf")
        entry = make_entry(posts, {"title": f"E{number}", "cover": image.pk, "attachment": pdf.pk})
        term = taxonomy_services.term_create(actor=actor, taxonomy=category, label=f"C{number}")
        taxonomy_services.entry_terms_set(actor=actor, entry=entry, taxonomy=category, term_ids=[term.pk])
        taxonomy_services.entry_terms_set(actor=actor, entry=entry, taxonomy=tag, term_ids=[])


def _queries(client, path: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(path)
    assert response.status_code == 200
    return len(captured)


def test_a_list_page_costs_the_same_queries_whatever_its_size(admin_api, posts):
    actor = Actor.system()
    category = taxonomy_services.taxonomy_create(
        actor=actor, name="category", label="C", collections=["posts"]
    )
    tag = taxonomy_services.taxonomy_create(actor=actor, name="tag", label="T", collections=["posts"])
    _fill(posts, 2, category, tag)
    admin_api.get(CONTENT)  # warm the per-process caches (schema, plugin state)
    small = _queries(admin_api, CONTENT)
    _fill(posts, 6, category, tag)
    admin_api.get(CONTENT)
    large = _queries(admin_api, CONTENT)
    items = admin_api.get(CONTENT).json()["data"]["items"]
    assert len(items) == 8
    assert all(item["data"]["cover"]["url"] and len(item["terms"]["category"]) == 1 for item in items)
    assert large == small
    filtered = _queries(admin_api, f"{CONTENT}?terms[category]=c1")
    assert filtered <= small + 1


def _stored_text(entry_id: str, column: str) -> bytes:
    """The column's JSON as the database renders it: what the unparsed path splices into answers."""
    text = (
        Entry.objects.filter(pk=entry_id)
        .annotate(text=Cast(column, TextField()))
        .values_list("text", flat=True)
    )
    return text.get().encode()


def test_a_list_resolves_the_entries_that_hold_media_and_splices_the_others(
    admin_api, client_for, posts, photo
):
    # Whether an entry holds a media value is decided per entry (issue 21), so the entries without one are passed
    # through as stored text, not parsed and rebuilt, while the others are resolved, at the same cost in queries.
    with_cover = make_entry(posts, {"title": "Covered", "cover": photo.pk})
    without = make_entry(posts, {"title": "Plain — é"})
    null_cover = make_entry(posts, {"title": "Null"})
    for entry in (with_cover, without, null_cover):
        assert admin_api.post(f"{CONTENT}/{entry.pk}/publish").status_code == 200
    # Writes leave out null values; data stored before that (or by hand) may still hold them.
    nulls = {"title": "Null", "cover": None, "attachment": None}
    Entry.objects.filter(pk=null_cover.pk).update(data=nulls, live_data=nulls)
    changed = admin_api.patch(f"{CONTENT}/{without.pk}", {"data": {"title": "Plain, edited"}}, format="json")
    assert changed.status_code == 200
    cover = {
        "id": photo.pk,
        "url": media_url(photo.storage_key),
        "alt": "A lake",
        "width": 640,
        "height": 480,
    }

    for client, drafts in ((admin_api, True), (client_for(Role.SUBSCRIBER, ["content:read"]), False)):
        response = client.get(CONTENT)
        assert _queries(client, CONTENT) == 3  # as many as before: the checks ride on the list query
        items = {item["id"]: item for item in response.json()["data"]["items"]}
        assert items[with_cover.pk]["data"] == {"title": "Covered", "cover": cover}
        assert items[null_cover.pk]["data"] == {"title": "Null", "cover": None, "attachment": None}
        for entry in (without, null_cover):
            assert _stored_text(entry.pk, "live_data") in response.content
        if drafts:
            assert items[without.pk]["data"] == {"title": "Plain, edited"}
            assert items[without.pk]["liveData"] == {"title": "Plain — é"}
            assert _stored_text(without.pk, "data") in response.content
        else:
            assert items[without.pk]["data"] == {"title": "Plain — é"}
