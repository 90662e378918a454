"""``publishedAt`` on ``content_update`` (and REST's PATCH, the same input) and ``content_publish`` (issue 23): the
date of a published entry, or of one the call publishes; never in the future; only for those who may publish."""

from __future__ import annotations

import pytest

from apps.accounts.models import Role
from apps.content.models import Entry
from tests.factories import make_collection, make_entry

PAST = "2024-03-01T09:30:00Z"
FUTURE = "2099-01-01T00:00:00Z"


@pytest.fixture
def articles():
    return make_collection(
        "articles", supports=["drafts", "revisions"], fields=[{"slug": "title", "type": "string"}]
    )


def test_update_changes_the_date_of_a_published_entry(admin_mcp, admin_api, articles):
    entry = make_entry(articles, {"title": "T"}, status="published")
    target = {"collection": "articles", "id": entry.pk}
    written = admin_mcp.ok("content_update", {**target, "publishedAt": PAST})
    assert (written["item"]["status"], written["item"]["publishedAt"]) == (
        "published",
        "2024-03-01T09:30:00.000Z",
    )
    read = admin_api.get(f"/_cms/api/content/articles/{entry.pk}").json()["data"]
    assert {key: value for key, value in read["item"].items() if key != "meta"} == written["item"]
    # REST's PATCH takes the same field.
    patched = admin_api.patch(
        f"/_cms/api/content/articles/{entry.pk}", {"publishedAt": "2023-01-02T03:04:05Z"}, format="json"
    )
    assert patched.status_code == 200
    assert patched.json()["data"]["item"]["publishedAt"] == "2023-01-02T03:04:05.000Z"


def test_update_publishing_a_draft_takes_the_date(admin_mcp, articles):
    entry = make_entry(articles, {"title": "T"})
    target = {"collection": "articles", "id": entry.pk}
    written = admin_mcp.ok("content_update", {**target, "status": "published", "publishedAt": PAST})
    assert (written["item"]["status"], written["item"]["publishedAt"]) == (
        "published",
        "2024-03-01T09:30:00.000Z",
    )
    published = admin_mcp.ok("content_publish", {**target, "publishedAt": "2024-04-01T00:00:00Z"})
    assert published["item"]["publishedAt"] == "2024-04-01T00:00:00.000Z"


def test_a_date_in_the_future_or_on_an_unpublished_entry_is_refused(admin_mcp, admin_api, articles):
    published = make_entry(articles, {"title": "P"}, status="published")
    draft = make_entry(articles, {"title": "D"})
    future = "2099-01-01T00:00:00.000Z is in the future; schedule the entry instead (…/schedule)."
    for name in ("content_update", "content_publish"):
        _, error = admin_mcp.fails(
            name, {"collection": "articles", "id": published.pk, "publishedAt": FUTURE}
        )
        assert error == {
            "code": "VALIDATION_ERROR",
            "message": f"publishedAt: {future}",
            "details": {"publishedAt": future},
        }
    unpublished = "Only a published entry has a publication date: send status 'published' with it, or publish the entry."
    for arguments in ({}, {"status": "draft"}):
        _, error = admin_mcp.fails(
            "content_update", {"collection": "articles", "id": draft.pk, "publishedAt": PAST, **arguments}
        )
        assert error["details"] == {"publishedAt": unpublished}
    _, error = admin_mcp.fails(
        "content_update",
        {"collection": "articles", "id": published.pk, "status": "draft", "publishedAt": PAST},
    )
    assert error["details"] == {"publishedAt": unpublished}
    refused = admin_api.patch(f"/_cms/api/content/articles/{draft.pk}", {"publishedAt": PAST}, format="json")
    assert refused.status_code == 400
    assert refused.json()["error"]["details"] == {"publishedAt": unpublished}
    _, error = admin_mcp.fails(
        "content_update", {"collection": "articles", "id": draft.pk, "publishedAt": "soon"}
    )
    assert list(error["details"]) == ["publishedAt"]
    assert Entry.objects.get(pk=published.pk).published_at == published.published_at
    assert Entry.objects.get(pk=draft.pk).published_at is None


def test_the_date_needs_the_right_to_publish(mcp_for, articles):
    contributor = mcp_for(Role.CONTRIBUTOR, ["content:read", "content:write"])
    entry = make_entry(articles, {"title": "Mine"}, status="published", author=contributor.user)
    target = {"collection": "articles", "id": entry.pk}
    # A contributor may edit their own entry, but not set when it was published.
    assert (
        contributor.ok("content_update", {**target, "data": {"title": "Edited"}})["item"]["data"]["title"]
        == "Edited"
    )
    assert contributor.refused("content_update", {**target, "publishedAt": PAST}) == {
        "code": -32600,
        "message": "Insufficient scope: This requires the role author (30) or higher; you are contributor (20).",
        "data": {"requiredRole": Role.AUTHOR},
    }
    assert Entry.objects.get(pk=entry.pk).published_at == entry.published_at
    author = mcp_for(Role.AUTHOR, ["content:write"])
    own = make_entry(articles, {"title": "Own"}, status="published", author=author.user)
    moved = author.ok("content_update", {"collection": "articles", "id": own.pk, "publishedAt": PAST})
    assert moved["item"]["publishedAt"] == "2024-03-01T09:30:00.000Z"
