"""``GET /_cms/api/media/<id>/usages`` and the ``media_usages`` tool: the entries whose image or file fields or
Portable Text reference a media item, confirmed on their data (a mention of the id in prose is not a use)."""

from __future__ import annotations

import pytest

from apps.accounts.models import Role
from apps.accounts.permissions import Actor
from apps.content import services as content_services
from tests.factories import make_collection, make_entry, make_media, png_bytes

pytestmark = pytest.mark.django_db


def paragraph(text: str) -> dict:
    return {
        "_type": "block",
        "_key": "p1",
        "style": "normal",
        "markDefs": [],
        "children": [{"_type": "span", "_key": "s1", "text": text, "marks": []}],
    }


@pytest.fixture
def site():
    photo = make_media(content=png_bytes(color=(1, 1, 1)), filename="harbour.png")
    other = make_media(content=png_bytes(color=(2, 2, 2)), filename="other.png")
    posts = make_collection(
        "posts",
        label="Posts",
        fields=[
            {"slug": "title", "type": "string"},
            {"slug": "hero", "type": "image"},
            {"slug": "body", "type": "portableText"},
        ],
    )
    pages = make_collection(
        "pages",
        label="Pages",
        fields=[{"slug": "name", "type": "string"}, {"slug": "attachment", "type": "file"}],
    )
    hero = make_entry(
        posts, {"title": "Hero post", "hero": {"id": photo.pk, "alt": "Boats"}}, slug="hero-post"
    )
    inline = make_entry(
        posts,
        {
            "title": "Gallery post",
            "body": [
                paragraph("Intro"),
                {
                    "_type": "gallery",
                    "_key": "g1",
                    "images": [{"_type": "image", "_key": "i1", "mediaId": photo.pk}],
                },
            ],
        },
        slug="gallery-post",
    )
    make_entry(
        posts, {"title": "Mentions it", "body": [paragraph(f"The id {photo.pk} in prose")]}, slug="prose"
    )
    make_entry(posts, {"title": "Other", "hero": {"id": other.pk}}, slug="other")
    attached = make_entry(pages, {"name": "Fees", "attachment": {"id": photo.pk}}, slug="fees")
    return {"photo": photo, "hero": hero, "inline": inline, "attached": attached, "other": other}


def usages(client, media_id: str, **query):
    return client.get(f"/_cms/api/media/{media_id}/usages", query)


def test_lists_the_entries_using_it_by_field_and_version(site, client_for):
    contributor = client_for(Role.CONTRIBUTOR, scopes=("content:read",))
    content_services.entry_publish(actor=Actor.system(), entry=site["hero"])
    response = usages(contributor, site["photo"].pk)
    assert response.status_code == 200
    data = response.json()["data"]
    assert data["truncated"] is False
    by_entry = {item["entryId"]: item for item in data["items"]}
    assert set(by_entry) == {site["hero"].pk, site["inline"].pk, site["attached"].pk}
    assert by_entry[site["hero"].pk] == {
        "entryId": site["hero"].pk,
        "collection": "posts",
        "collectionLabel": "Posts",
        "slug": "hero-post",
        "locale": by_entry[site["hero"].pk]["locale"],
        "title": "Hero post",
        "status": "published",
        "trashed": False,
        "fields": ["hero"],
        "versions": ["draft", "live"],
    }
    assert by_entry[site["inline"].pk]["fields"] == ["body"]
    assert by_entry[site["inline"].pk]["versions"] == ["draft"]
    assert (by_entry[site["attached"].pk]["title"], by_entry[site["attached"].pk]["fields"]) == (
        "Fees",
        ["attachment"],
    )
    other = usages(contributor, site["other"].pk).json()["data"]["items"]
    assert [item["slug"] for item in other] == ["other"]


def test_trashed_entries_are_marked_and_the_limit_truncates(site, client_for):
    content_services.entry_trash(actor=Actor.system(), entry=site["attached"])
    editor = client_for(Role.EDITOR, scopes=("content:read",))
    items = usages(editor, site["photo"].pk).json()["data"]["items"]
    assert {item["slug"]: item["trashed"] for item in items} == {
        "hero-post": False,
        "gallery-post": False,
        "fees": True,
    }
    limited = usages(editor, site["photo"].pk, limit=1).json()["data"]
    assert len(limited["items"]) == 1 and limited["truncated"] is True


def test_unknown_media_is_404_and_the_permission_table_decides(site, client_for):
    editor = client_for(Role.EDITOR, scopes=("content:read",))
    missing = usages(editor, "01ARZ3NDEKTSV4RRFFQ69G5FAV")
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "NOT_FOUND"
    subscriber = usages(client_for(Role.SUBSCRIBER, scopes=("content:read",)), site["photo"].pk)
    assert subscriber.status_code == 403
    media_only = usages(client_for(Role.EDITOR, scopes=("media:read",)), site["photo"].pk)
    assert media_only.status_code == 403
    assert media_only.json()["error"]["details"] == {"requiredScope": "content:read"}


def test_the_tool_answers_what_the_endpoint_answers(site, client_for):
    from tests.factories import make_token, make_user
    from tests.mcp.wire import McpClient

    _, raw = make_token(make_user(Role.EDITOR, email="agent@example.com"), ("content:read",))
    editor = client_for(Role.EDITOR, scopes=("content:read",))
    answer = McpClient(raw).ok("media_usages", {"id": site["photo"].pk})
    assert answer == usages(editor, site["photo"].pk).json()["data"]
    assert len(answer["items"]) == 3
