"""Revisions (SPEC §2.3, §4.4): every save of a collection that supports them appends one, listed newest first with
``total``; only the newest 50 are kept; ``GET /revisions/:id``; none for collections without ``revisions``."""

from __future__ import annotations

import pytest

from apps.accounts.models import Role
from apps.content.models import Revision
from apps.core.timefmt import iso
from tests.content.conftest import POSTS, entry_url, error_of
from tests.factories import make_collection, make_entry


def revision_body(revision: Revision) -> dict:
    return {
        "id": revision.pk,
        "collection": revision.collection.slug,
        "entryId": revision.entry_id,
        "data": revision.data,
        "action": revision.action,
        "status": revision.status,
        "authorId": revision.author_id,
        "createdAt": iso(revision.created_at),
    }


def newest_first(entry_or_id) -> list[Revision]:
    entry_id = entry_or_id if isinstance(entry_or_id, str) else entry_or_id.pk
    return list(
        Revision.objects.filter(entry_id=entry_id).select_related("collection").order_by("-created_at", "-id")
    )


def test_every_save_appends_a_revision(admin_api, admin_user, posts_collection):
    entry_id = admin_api.post(POSTS, {"data": {"title": "One"}}, format="json").json()["data"]["item"]["id"]
    url = entry_url(entry_id)
    admin_api.patch(url, {"data": {"title": "Two"}}, format="json")
    admin_api.post(f"{url}/publish", {}, format="json")
    admin_api.put(url, {"data": {"title": "Three"}}, format="json")
    admin_api.post(f"{url}/discard-draft", {}, format="json")
    admin_api.post(f"{url}/unpublish", {}, format="json")
    admin_api.patch(url, {"data": {"views": 4}, "status": "published"}, format="json")

    response = admin_api.get(f"{url}/revisions")
    assert response.status_code == 200
    stored = newest_first(entry_id)
    assert response.json() == {
        "success": True,
        "data": {"items": [revision_body(revision) for revision in stored], "nextCursor": None, "total": 7},
    }
    assert [(item["action"], item["status"], item["data"]) for item in response.json()["data"]["items"]] == [
        ("publish", "published", {"title": "Two", "views": 4}),
        ("unpublish", "draft", {"title": "Two"}),
        ("discard_draft", "published", {"title": "Two"}),
        ("update", "published", {"title": "Three"}),
        ("publish", "published", {"title": "Two"}),
        ("update", "draft", {"title": "Two"}),
        ("create", "draft", {"title": "One"}),
    ]
    assert {item["authorId"] for item in response.json()["data"]["items"]} == {admin_user.pk}


def test_revisions_page_with_a_cursor(admin_api, draft_entry):
    for number in range(4):
        admin_api.patch(entry_url(draft_entry), {"data": {"views": number + 10}}, format="json")
    first = admin_api.get(entry_url(draft_entry, "/revisions"), {"limit": 3}).json()["data"]
    second = admin_api.get(
        entry_url(draft_entry, "/revisions"), {"limit": 3, "cursor": first["nextCursor"]}
    ).json()["data"]
    assert (first["total"], second["total"]) == (5, 5)
    assert second["nextCursor"] is None
    ids = [item["id"] for item in first["items"] + second["items"]]
    assert ids == [revision.pk for revision in newest_first(draft_entry)]


def test_only_the_newest_50_revisions_are_kept(admin_api, draft_entry):
    for number in range(55):
        assert (
            admin_api.patch(
                entry_url(draft_entry), {"data": {"views": number + 100}}, format="json"
            ).status_code
            == 200
        )
    response = admin_api.get(entry_url(draft_entry, "/revisions"), {"limit": 50})
    data = response.json()["data"]
    assert data["total"] == 50 and len(data["items"]) == 50
    # The newest is the last save; the oldest kept is the sixth update (the create and five updates were dropped).
    assert data["items"][0]["data"]["views"] == 154
    assert data["items"][-1]["data"]["views"] == 105
    assert Revision.objects.filter(entry_id=draft_entry.pk).count() == 50


def test_a_save_that_changes_nothing_adds_no_revision(admin_api, draft_entry):
    admin_api.patch(entry_url(draft_entry), {"data": {"views": 1}}, format="json")
    assert admin_api.get(entry_url(draft_entry, "/revisions")).json()["data"]["total"] == 1


def test_collections_without_revisions_record_none(admin_api):
    notes = make_collection("notes", supports=["drafts"], fields=[{"slug": "title"}])
    entry = make_entry(notes, {"title": "x"})
    admin_api.patch(f"/_cms/api/content/notes/{entry.pk}", {"data": {"title": "y"}}, format="json")
    admin_api.post(f"/_cms/api/content/notes/{entry.pk}/publish", {}, format="json")
    response = admin_api.get(f"/_cms/api/content/notes/{entry.pk}/revisions")
    assert response.json() == {"success": True, "data": {"items": [], "nextCursor": None, "total": 0}}


def test_get_one_revision(admin_api, draft_entry):
    revision = newest_first(draft_entry)[0]
    response = admin_api.get(f"/_cms/api/revisions/{revision.pk}")
    assert response.status_code == 200
    assert response.json() == {"success": True, "data": revision_body(revision)}
    assert response.json()["data"]["data"] == {"title": "Hello world", "views": 1}


def test_an_unknown_revision_is_404(admin_api, posts_collection):
    response = admin_api.get("/_cms/api/revisions/01HZZZZZZZZZZZZZZZZZZZZZZZ")
    assert response.status_code == 404
    assert error_of(response) == {
        "code": "NOT_FOUND",
        "message": "No revision 01HZZZZZZZZZZZZZZZZZZZZZZZ.",
        "details": {},
    }


def test_revisions_are_read_with_drafts_access(client_for, draft_entry):
    revision = newest_first(draft_entry)[0]
    reader = client_for(role=Role.SUBSCRIBER, scopes=["content:read"])
    assert reader.get(f"/_cms/api/revisions/{revision.pk}").status_code == 403
    contributor = client_for(role=Role.CONTRIBUTOR, scopes=["content:read"])
    assert contributor.get(f"/_cms/api/revisions/{revision.pk}").status_code == 200


@pytest.mark.parametrize("limit", [0, 101])
def test_the_revision_limit_is_bounded(admin_api, draft_entry, limit):
    response = admin_api.get(entry_url(draft_entry, "/revisions"), {"limit": limit})
    assert response.status_code == 400
    assert list(error_of(response)["details"]) == ["limit"]


def test_a_restored_revision_that_no_longer_fits_the_schema_is_refused_by_field(admin_api, draft_entry):
    old = newest_first(draft_entry)[0]
    admin_api.patch(
        "/_cms/api/schema/collections/posts/fields/views", {"validation": {"min": 5}}, format="json"
    )
    response = admin_api.post(f"/_cms/api/revisions/{old.pk}/restore", {}, format="json")
    assert response.status_code == 400
    assert error_of(response)["details"] == {"views": "Must be at least 5 (got 1)."}
