"""``fields=`` on lists: each entry's data holds only the named fields (those it has), the published version beside it
too; system fields, bylines and terms stay; unknown fields are refused with the collection's fields named. REST and
MCP take the same projection."""

from __future__ import annotations

import pytest

from apps.accounts.permissions import Actor
from apps.content import services
from tests.content.conftest import POSTS, error_of
from tests.factories import make_collection, make_entry, make_media


@pytest.fixture
def stories():
    collection = make_collection(
        "stories",
        fields=[
            {"slug": "title", "type": "string", "required": True},
            {"slug": "summary", "type": "text"},
            {"slug": "body", "type": "portableText"},
            {"slug": "cover", "type": "image"},
        ],
        supports=["drafts", "revisions"],
    )
    body = [{"_type": "block", "_key": "a", "style": "normal", "markDefs": [],
             "children": [{"_type": "span", "_key": "s", "text": "Long text", "marks": []}]}]  # fmt: skip
    photo = make_media(alt="A photo")
    first = make_entry(
        collection,
        {"title": "First", "summary": "One", "body": body, "cover": {"id": photo.pk}},
        status="published",
    )
    # Published, then changed: the published version differs from the working copy.
    services.entry_update(actor=Actor.system(), entry=first, data={"title": "First, edited"})
    make_entry(collection, {"title": "Second", "body": body}, status="draft")
    return collection, photo


def test_a_list_answers_only_the_fields_asked_for(admin_api, stories):
    _, photo = stories
    full = admin_api.get("/_cms/api/content/stories").json()["data"]["items"]
    picked = admin_api.get("/_cms/api/content/stories", {"fields": "title,cover"}).json()["data"]["items"]

    assert [item["data"] for item in picked] == [
        {"title": "Second"},
        {"title": "First, edited", "cover": full[1]["data"]["cover"]},
    ]
    assert full[1]["data"]["cover"]["id"] == photo.pk and full[1]["data"]["cover"]["url"]
    assert picked[1]["liveData"] == {"title": "First", "cover": full[1]["data"]["cover"]}
    # Everything beside the data is as in the full answer.
    for whole, part in zip(full, picked, strict=True):
        assert {k: v for k, v in part.items() if k not in ("data", "liveData")} == {
            k: v for k, v in whole.items() if k not in ("data", "liveData")
        }
    assert len(admin_api.get("/_cms/api/content/stories", {"fields": "title"}).content) < len(
        admin_api.get("/_cms/api/content/stories").content
    )


def test_readers_of_published_content_get_the_projection_of_the_published_version(client_for, stories):
    from apps.accounts.models import Role

    reader = client_for(role=Role.SUBSCRIBER, scopes=["content:read"])
    items = reader.get("/_cms/api/content/stories", {"fields": "title,summary"}).json()["data"]["items"]

    assert [item["data"] for item in items] == [{"title": "First", "summary": "One"}]
    assert "liveData" not in items[0]


def test_later_pages_and_filtered_lists_take_the_projection_too(admin_api, stories):
    first = admin_api.get("/_cms/api/content/stories", {"fields": "title", "limit": 1}).json()["data"]
    second = admin_api.get(
        "/_cms/api/content/stories", {"fields": "title", "limit": 1, "cursor": first["nextCursor"]}
    ).json()["data"]

    assert [item["data"] for item in first["items"] + second["items"]] == [
        {"title": "Second"},
        {"title": "First, edited"},
    ]


def test_unknown_fields_are_refused_naming_the_collections_fields(admin_api, stories):
    response = admin_api.get("/_cms/api/content/stories", {"fields": "title,colour,size"})

    assert response.status_code == 400
    assert error_of(response)["details"] == {
        "fields": "No field 'colour', 'size' in 'stories'; its fields are: title, summary, body, cover."
    }


def test_an_empty_projection_is_refused(admin_api, posts_collection):
    response = admin_api.get(POSTS, {"fields": ""})

    assert response.status_code == 400
    assert "fields" in error_of(response)["details"]
