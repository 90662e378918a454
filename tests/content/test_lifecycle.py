"""Every transition of SPEC §3 through HTTP, with its acceptance and its refusals (INVALID_TRANSITION, 400):
create, update with status, publish, unpublish, schedule and its cancellation, discard draft, trash, restore,
permanent delete, duplicate, restore revision."""

from __future__ import annotations

from datetime import timedelta

import pytest

from apps.accounts.models import Role
from apps.content.models import Entry, Revision
from apps.core.timefmt import iso, now
from tests.content.conftest import POSTS, entry_url, error_of, item_body, written
from tests.factories import make_byline, make_collection, make_entry


def actions(entry) -> list[tuple[str, str]]:
    """The entry's revisions, oldest first, as (action, status)."""
    return list(
        Revision.objects.filter(entry_id=entry.pk)
        .order_by("created_at", "id")
        .values_list("action", "status")
    )


def invalid(response, message: str, state: str, action: str) -> None:
    assert response.status_code == 400
    assert error_of(response) == {
        "code": "INVALID_TRANSITION",
        "message": message,
        "details": {"state": state, "action": action},
    }


# --- create ---------------------------------------------------------------------------------------------------------


def test_create_without_status_is_a_draft_and_with_published_is_published(admin_api, posts_collection):
    draft = admin_api.post(POSTS, {"data": {"title": "A"}}, format="json").json()["data"]["item"]
    live = admin_api.post(POSTS, {"data": {"title": "B"}, "status": "published"}, format="json").json()[
        "data"
    ]["item"]
    assert (draft["status"], draft["publishedAt"]) == ("draft", None)
    assert (live["status"], live["publishedAt"]) == ("published", live["createdAt"])


# --- update with status ---------------------------------------------------------------------------------------------


def test_update_with_status_published_publishes_the_merged_data(admin_api, draft_entry):
    rev = draft_entry.rev
    response = admin_api.patch(
        entry_url(draft_entry),
        {"data": {"body": "Now live"}, "status": "published", "_rev": rev},
        format="json",
    )
    assert response.status_code == 200
    data = {"title": "Hello world", "views": 1, "body": "Now live"}
    assert response.json() == written(draft_entry, status="published", data=data, version=2)
    stored = Entry.objects.get(pk=draft_entry.pk)
    assert stored.live_data == data
    assert stored.created_at < stored.published_at <= stored.updated_at
    assert actions(draft_entry) == [("create", "draft"), ("publish", "published")]


def test_update_with_status_draft_unpublishes_keeping_the_content(admin_api, published_entry):
    response = admin_api.put(entry_url(published_entry), {"status": "draft"}, format="json")
    assert response.status_code == 200
    assert response.json() == written(
        published_entry, status="draft", data={"title": "Live post", "views": 10}
    )
    stored = Entry.objects.get(pk=published_entry.pk)
    assert stored.live_data == {"title": "Live post", "views": 10}
    assert actions(published_entry) == [("publish", "published"), ("unpublish", "draft")]


def test_update_with_a_scheduled_status_is_refused(admin_api, draft_entry):
    response = admin_api.patch(entry_url(draft_entry), {"status": "scheduled"}, format="json")
    assert response.status_code == 400
    assert error_of(response)["details"] == {"status": '"scheduled" is not a valid choice.'}


# --- publish --------------------------------------------------------------------------------------------------------


def test_publish_a_draft_creates_a_published_revision(admin_api, draft_entry):
    response = admin_api.post(entry_url(draft_entry, "/publish"), {}, format="json")
    assert response.status_code == 200
    assert response.json() == written(draft_entry, status="published", version=2)
    stored = Entry.objects.get(pk=draft_entry.pk)
    assert stored.created_at < stored.published_at <= stored.updated_at
    assert stored.live_data == stored.data == {"title": "Hello world", "views": 1}
    revision = Revision.objects.filter(entry_id=draft_entry.pk).order_by("-created_at").first()
    assert (revision.action, revision.status, revision.data) == ("publish", "published", stored.data)


def test_edits_after_publishing_make_a_new_draft_while_the_live_version_stays(
    admin_api, client_for, published_entry
):
    reader = client_for(role=Role.SUBSCRIBER, scopes=["content:read"])
    first_published = Entry.objects.get(pk=published_entry.pk).published_at

    response = admin_api.patch(entry_url(published_entry), {"data": {"title": "Edited"}}, format="json")
    assert response.status_code == 200
    assert response.json() == written(
        published_entry,
        status="published",
        data={"title": "Edited", "views": 10},
        liveData={"title": "Live post", "views": 10},
    )
    assert reader.get(entry_url(published_entry)).json()["data"]["item"]["data"] == {
        "title": "Live post",
        "views": 10,
    }

    compare = admin_api.get(entry_url(published_entry, "/compare"))
    assert compare.status_code == 200
    assert compare.json() == {
        "success": True,
        "data": {
            "hasChanges": True,
            "live": {"title": "Live post", "views": 10},
            "draft": {"title": "Edited", "views": 10},
        },
    }

    # Publishing again makes the edit live; the first publication date is kept.
    response = admin_api.post(entry_url(published_entry, "/publish"), {}, format="json")
    assert response.json() == written(published_entry, data={"title": "Edited", "views": 10})
    assert "liveData" not in response.json()["data"]["item"]
    assert Entry.objects.get(pk=published_entry.pk).published_at == first_published
    assert reader.get(entry_url(published_entry)).json()["data"]["item"]["data"] == {
        "title": "Edited",
        "views": 10,
    }
    assert admin_api.get(entry_url(published_entry, "/compare")).json()["data"] == {
        "hasChanges": False,
        "live": {"title": "Edited", "views": 10},
        "draft": {"title": "Edited", "views": 10},
    }
    assert actions(published_entry) == [
        ("publish", "published"),
        ("update", "published"),
        ("publish", "published"),
    ]


def test_compare_of_a_never_published_entry(admin_api, draft_entry):
    response = admin_api.get(entry_url(draft_entry, "/compare"))
    assert response.json() == {
        "success": True,
        "data": {"hasChanges": True, "live": None, "draft": {"title": "Hello world", "views": 1}},
    }


def test_publish_can_backdate_but_not_postdate(admin_api, draft_entry):
    future = iso(now() + timedelta(hours=1))
    response = admin_api.post(entry_url(draft_entry, "/publish"), {"publishedAt": future}, format="json")
    assert response.status_code == 400
    assert error_of(response)["details"] == {
        "publishedAt": f"{future} is in the future; schedule the entry instead (…/schedule)."
    }
    assert Entry.objects.get(pk=draft_entry.pk).status == "draft"
    response = admin_api.post(
        entry_url(draft_entry, "/publish"), {"publishedAt": "2020-05-01T08:00:00Z"}, format="json"
    )
    assert response.status_code == 200
    assert response.json()["data"]["item"]["publishedAt"] == "2020-05-01T08:00:00.000Z"


def test_publish_a_trashed_entry_is_an_invalid_transition(admin_api, draft_entry):
    admin_api.delete(entry_url(draft_entry))
    response = admin_api.post(entry_url(draft_entry, "/publish"), {}, format="json")
    invalid(response, "Cannot publish an entry in the trash; restore it first.", "trashed", "publish")
    stored = Entry.objects.get(pk=draft_entry.pk)
    assert (stored.status, stored.live_data, stored.version) == ("draft", None, 2)


# --- unpublish ------------------------------------------------------------------------------------------------------


def test_unpublish_keeps_the_content(admin_api, published_entry):
    response = admin_api.post(entry_url(published_entry, "/unpublish"), {}, format="json")
    assert response.status_code == 200
    assert response.json() == written(
        published_entry, status="draft", data={"title": "Live post", "views": 10}
    )
    stored = Entry.objects.get(pk=published_entry.pk)
    assert stored.live_data == {"title": "Live post", "views": 10}
    assert stored.published_at is not None


def test_unpublish_a_draft_is_refused(admin_api, draft_entry):
    response = admin_api.post(entry_url(draft_entry, "/unpublish"), {}, format="json")
    invalid(response, "Only a published entry can be unpublished.", "draft", "unpublish")


# --- schedule -------------------------------------------------------------------------------------------------------


def test_schedule_in_the_future_and_cancel_it(admin_api, draft_entry):
    when = (now() + timedelta(days=1)).replace(microsecond=0)
    response = admin_api.post(entry_url(draft_entry, "/schedule"), {"scheduledAt": iso(when)}, format="json")
    assert response.status_code == 200
    assert response.json() == written(
        draft_entry, status="scheduled", scheduledAt=iso(when), publishedAt=None
    )

    response = admin_api.delete(entry_url(draft_entry, "/schedule"))
    assert response.status_code == 200
    assert response.json() == written(draft_entry, status="draft", scheduledAt=None)
    response = admin_api.delete(entry_url(draft_entry, "/schedule"))
    invalid(response, "The entry is not scheduled; there is nothing to cancel.", "draft", "unschedule")


def test_schedule_accepts_an_offset_and_stores_utc(admin_api, draft_entry):
    response = admin_api.post(
        entry_url(draft_entry, "/schedule"), {"scheduledAt": "2099-06-01T10:00:00+02:00"}, format="json"
    )
    assert response.json()["data"]["item"]["scheduledAt"] == "2099-06-01T08:00:00.000Z"


@pytest.mark.parametrize("delta", [timedelta(minutes=-1), timedelta(0), timedelta(days=-400)])
def test_schedule_in_the_past_is_refused(admin_api, draft_entry, delta):
    when = iso(now() + delta)
    response = admin_api.post(entry_url(draft_entry, "/schedule"), {"scheduledAt": when}, format="json")
    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == "VALIDATION_ERROR"
    assert list(error["details"]) == ["scheduledAt"]
    assert error["details"]["scheduledAt"].startswith(f"{when} is not in the future (now ")
    assert Entry.objects.get(pk=draft_entry.pk).status == "draft"


def test_schedule_needs_a_datetime(admin_api, draft_entry):
    for body in ({}, {"scheduledAt": "tomorrow"}):
        response = admin_api.post(entry_url(draft_entry, "/schedule"), body, format="json")
        assert response.status_code == 400
        assert list(error_of(response)["details"]) == ["scheduledAt"]


def test_schedule_needs_a_collection_that_supports_it(admin_api):
    pages = make_collection("pages", supports=["drafts", "revisions"], fields=[{"slug": "title"}])
    entry = make_entry(pages, {"title": "x"})
    response = admin_api.post(
        f"/_cms/api/content/pages/{entry.pk}/schedule",
        {"scheduledAt": iso(now() + timedelta(days=1))},
        format="json",
    )
    assert response.status_code == 400
    assert error_of(response) == {
        "code": "VALIDATION_ERROR",
        "message": "The collection 'pages' does not support scheduling; add 'scheduling' to its supports.",
        "details": {"scheduledAt": "Scheduling is not enabled for this collection."},
    }


def test_a_published_entry_can_be_scheduled_and_is_then_not_public(admin_api, client_for, published_entry):
    reader = client_for(role=Role.SUBSCRIBER, scopes=["content:read"])
    when = iso(now() + timedelta(days=1))
    response = admin_api.post(entry_url(published_entry, "/schedule"), {"scheduledAt": when}, format="json")
    assert response.json()["data"]["item"]["status"] == "scheduled"
    assert reader.get(entry_url(published_entry)).status_code == 404


def test_schedule_a_trashed_entry_is_refused(admin_api, draft_entry):
    admin_api.delete(entry_url(draft_entry))
    response = admin_api.post(
        entry_url(draft_entry, "/schedule"), {"scheduledAt": iso(now() + timedelta(days=1))}, format="json"
    )
    invalid(response, "Cannot schedule an entry in the trash; restore it first.", "trashed", "schedule")


# --- discard draft --------------------------------------------------------------------------------------------------


def test_discard_draft_goes_back_to_the_published_version(admin_api, published_entry):
    admin_api.patch(entry_url(published_entry), {"data": {"title": "Edited", "body": "new"}}, format="json")
    response = admin_api.post(entry_url(published_entry, "/discard-draft"), {}, format="json")
    assert response.status_code == 200
    assert response.json() == written(
        published_entry, status="published", data={"title": "Live post", "views": 10}
    )
    assert "liveData" not in response.json()["data"]["item"]
    assert actions(published_entry)[-1] == ("discard_draft", "published")
    # Nothing to discard now: the answer is the entry unchanged.
    version = Entry.objects.get(pk=published_entry.pk).version
    response = admin_api.post(entry_url(published_entry, "/discard-draft"), {}, format="json")
    assert response.status_code == 200
    assert response.json()["data"]["item"]["version"] == version


def test_discard_draft_of_an_unpublished_entry_returns_to_its_last_published_version(
    admin_api, published_entry
):
    admin_api.post(entry_url(published_entry, "/unpublish"), {}, format="json")
    admin_api.patch(entry_url(published_entry), {"data": {"title": "Rewrite"}}, format="json")
    response = admin_api.post(entry_url(published_entry, "/discard-draft"), {}, format="json")
    assert response.json() == written(
        published_entry, status="draft", data={"title": "Live post", "views": 10}
    )


def test_discard_draft_of_a_never_published_entry_is_refused(admin_api, draft_entry):
    response = admin_api.post(entry_url(draft_entry, "/discard-draft"), {}, format="json")
    invalid(
        response,
        "The entry was never published, so there is no published version to go back to.",
        "draft",
        "discard_draft",
    )


# --- trash and restore ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fixture", ["draft_entry", "published_entry"])
def test_restore_brings_the_entry_back_with_its_status(admin_api, request, fixture):
    entry = request.getfixturevalue(fixture)
    status = entry.status
    assert admin_api.delete(entry_url(entry)).status_code == 200
    assert Entry.objects.get(pk=entry.pk).deleted_at is not None
    response = admin_api.post(entry_url(entry, "/restore"), {}, format="json")
    assert response.status_code == 200
    assert response.json() == written(entry, status=status, deletedAt=None, slug=entry.slug)
    listed = [item["id"] for item in admin_api.get(POSTS).json()["data"]["items"]]
    assert entry.pk in listed
    assert admin_api.get(f"{POSTS}/trash").json()["data"]["items"] == []


def test_restore_gives_a_new_slug_when_another_entry_took_it(admin_api, draft_entry):
    admin_api.delete(entry_url(draft_entry))
    newcomer = admin_api.post(POSTS, {"data": {"title": "Hello world"}}, format="json").json()["data"]["item"]
    assert newcomer["slug"] == "hello-world"
    response = admin_api.post(entry_url(draft_entry, "/restore"), {}, format="json")
    assert response.status_code == 200
    assert response.json()["data"]["item"]["slug"] == "hello-world-2"
    assert admin_api.get(f"{POSTS}/hello-world").json()["data"]["item"]["id"] == newcomer["id"]


def test_restore_of_an_entry_not_in_the_trash_is_refused(admin_api, draft_entry):
    response = admin_api.post(entry_url(draft_entry, "/restore"), {}, format="json")
    invalid(response, "The entry is not in the trash.", "draft", "restore")


def test_a_trashed_entry_cannot_be_edited(admin_api, draft_entry):
    admin_api.delete(entry_url(draft_entry))
    response = admin_api.patch(entry_url(draft_entry), {"data": {"views": 3}}, format="json")
    invalid(response, "Cannot update an entry in the trash; restore it first.", "trashed", "update")


# --- permanent delete -----------------------------------------------------------------------------------------------


def test_permanent_delete_removes_a_trashed_entry_and_its_revisions(admin_api, draft_entry):
    admin_api.delete(entry_url(draft_entry))
    response = admin_api.delete(entry_url(draft_entry, "/permanent"))
    assert response.status_code == 200
    assert response.json() == {"success": True, "data": {"success": True}}
    assert not Entry.objects.filter(pk=draft_entry.pk).exists()
    assert not Revision.objects.filter(entry_id=draft_entry.pk).exists()
    assert admin_api.get(entry_url(draft_entry)).status_code == 404
    assert admin_api.delete(entry_url(draft_entry, "/permanent")).status_code == 404


def test_permanent_delete_needs_the_trash(admin_api, published_entry):
    response = admin_api.delete(entry_url(published_entry, "/permanent"))
    invalid(
        response,
        "Only entries in the trash can be deleted permanently; trash it first.",
        "published",
        "delete_permanent",
    )
    assert Entry.objects.filter(pk=published_entry.pk).exists()


@pytest.mark.parametrize("role", [Role.EDITOR, Role.AUTHOR])
def test_permanent_delete_needs_an_admin(admin_api, client_for, draft_entry, role):
    admin_api.delete(entry_url(draft_entry))
    client = client_for(role=role, scopes=["content:read", "content:write"])
    response = client.delete(entry_url(draft_entry, "/permanent"))
    assert response.status_code == 403
    assert error_of(response) == {
        "code": "FORBIDDEN",
        "message": f"This requires the role admin (50) or higher; you are {Role(role).label} ({int(role)}).",
        "details": {"requiredRole": 50},
    }
    assert Entry.objects.filter(pk=draft_entry.pk).exists()


# --- duplicate ------------------------------------------------------------------------------------------------------


def test_duplicate_makes_a_draft_copy(admin_api, admin_user, published_entry):
    byline = make_byline("Ada")
    admin_api.patch(
        entry_url(published_entry), {"bylines": [{"bylineId": byline.pk, "roleLabel": "Text"}]}, format="json"
    )
    response = admin_api.post(entry_url(published_entry, "/duplicate"), {}, format="json")
    assert response.status_code == 201
    copy = Entry.objects.exclude(pk=published_entry.pk).get()
    assert response.json() == written(
        copy,
        slug="live-post-copy",
        status="draft",
        data={"title": "Live post (Copy)", "views": 10},
        publishedAt=None,
        authorId=admin_user.pk,
        primaryBylineId=byline.pk,
        version=1,
    )
    assert response.json()["data"]["item"]["bylines"][0]["roleLabel"] == "Text"
    assert copy.live_data is None and copy.translation_group == copy.pk
    # A second copy gets its own slug.
    again = admin_api.post(entry_url(published_entry, "/duplicate"), {}, format="json").json()["data"]["item"]
    assert (again["slug"], again["data"]["title"]) == ("live-post-copy-2", "Live post (Copy)")


def test_duplicate_copies_the_working_copy_not_the_live_version(admin_api, published_entry):
    admin_api.patch(entry_url(published_entry), {"data": {"title": "Unpublished edit"}}, format="json")
    item = admin_api.post(entry_url(published_entry, "/duplicate"), {}, format="json").json()["data"]["item"]
    assert item["data"] == {"title": "Unpublished edit (Copy)", "views": 10}


# --- restore a revision ---------------------------------------------------------------------------------------------


def test_restoring_a_revision_writes_the_working_copy_and_does_not_publish(admin_api, published_entry):
    first = Revision.objects.get(entry_id=published_entry.pk)
    admin_api.patch(entry_url(published_entry), {"data": {"title": "Second", "body": "added"}}, format="json")
    admin_api.post(entry_url(published_entry, "/publish"), {}, format="json")
    admin_api.patch(entry_url(published_entry), {"data": {"title": "Third"}}, format="json")

    response = admin_api.post(f"/_cms/api/revisions/{first.pk}/restore", {}, format="json")
    assert response.status_code == 200
    assert response.json() == written(
        published_entry,
        status="published",
        data={"title": "Live post", "views": 10},
        liveData={"title": "Second", "views": 10, "body": "added"},
    )
    assert actions(published_entry)[-1] == ("restore", "published")
    newest = Revision.objects.filter(entry_id=published_entry.pk).order_by("-created_at", "-id").first()
    assert newest.data == {"title": "Live post", "views": 10}
    assert Revision.objects.filter(entry_id=published_entry.pk).count() == 5


def test_restoring_a_revision_of_a_trashed_entry_is_refused(admin_api, draft_entry):
    revision = Revision.objects.get(entry_id=draft_entry.pk)
    admin_api.delete(entry_url(draft_entry))
    response = admin_api.post(f"/_cms/api/revisions/{revision.pk}/restore", {}, format="json")
    invalid(
        response,
        "Cannot restore revision an entry in the trash; restore it first.",
        "trashed",
        "restore_revision",
    )


def test_restoring_an_unknown_revision_is_404(admin_api, posts_collection):
    response = admin_api.post("/_cms/api/revisions/01HZZZZZZZZZZZZZZZZZZZZZZZ/restore", {}, format="json")
    assert response.status_code == 404
    assert error_of(response)["message"] == "No revision 01HZZZZZZZZZZZZZZZZZZZZZZZ."


def test_item_body_helper_matches_a_plain_get(admin_api, draft_entry):
    # The helper the tests compare with is itself checked against the API once.
    assert admin_api.get(entry_url(draft_entry)).json()["data"]["item"] == item_body(draft_entry, meta=True)


def test_without_drafts_support_edits_of_a_published_entry_go_live_at_once(admin_api, client_for):
    make_collection("notices", supports=[], fields=[{"slug": "title"}])
    entry = admin_api.post(
        "/_cms/api/content/notices", {"data": {"title": "Open"}, "status": "published"}, format="json"
    ).json()["data"]["item"]
    response = admin_api.patch(
        f"/_cms/api/content/notices/{entry['id']}", {"data": {"title": "Closed"}}, format="json"
    )
    assert "liveData" not in response.json()["data"]["item"]
    reader = client_for(role=Role.SUBSCRIBER, scopes=["content:read"])
    live = reader.get(f"/_cms/api/content/notices/{entry['id']}").json()["data"]["item"]
    assert live["data"] == {"title": "Closed"}


def test_a_trashed_entry_can_be_duplicated(admin_api, draft_entry):
    admin_api.delete(entry_url(draft_entry))
    response = admin_api.post(entry_url(draft_entry, "/duplicate"), {}, format="json")
    assert response.status_code == 201
    item = response.json()["data"]["item"]
    assert (item["slug"], item["status"], item["deletedAt"]) == ("hello-world-copy", "draft", None)
