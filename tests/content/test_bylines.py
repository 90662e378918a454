"""Bylines and credits (SPEC §2.1 authorId, primaryBylineId; §4.10 rule 6): byline records over HTTP, ordered credits
on entries with the first as the primary byline, and unknown bylines refused."""

from __future__ import annotations

import pytest

from apps.accounts.models import Role
from apps.content.models import Byline, Entry
from apps.core.timefmt import iso
from tests.content.conftest import POSTS, entry_url, error_of
from tests.factories import make_byline, make_entry, make_user

BYLINES = "/_cms/api/bylines"


def byline_body(byline: Byline, **overrides) -> dict:
    byline.refresh_from_db()
    return {
        "id": byline.pk,
        "displayName": byline.display_name,
        "slug": byline.slug,
        "userId": byline.user_id,
        "isGuest": byline.is_guest,
        "bio": byline.bio,
        "email": byline.email,
        "createdAt": iso(byline.created_at),
        "updatedAt": iso(byline.updated_at),
        **overrides,
    }


def credit(byline: Byline, role_label: str = "") -> dict:
    return {
        "bylineId": byline.pk,
        "displayName": byline.display_name,
        "roleLabel": role_label,
        "userId": byline.user_id,
        "isGuest": byline.is_guest,
    }


# --- byline records -------------------------------------------------------------------------------------------------


def test_create_a_guest_byline(admin_api):
    response = admin_api.post(BYLINES, {"displayName": "  Ada Lovelace ", "bio": "Analyst"}, format="json")
    assert response.status_code == 201
    byline = Byline.objects.get()
    assert response.json() == {
        "success": True,
        "data": byline_body(
            byline,
            displayName="Ada Lovelace",
            slug="ada-lovelace",
            userId=None,
            isGuest=True,
            bio="Analyst",
            email="",
        ),
    }


def test_create_a_byline_linked_to_a_user(admin_api):
    writer = make_user(Role.AUTHOR)
    response = admin_api.post(BYLINES, {"displayName": "Ada Lovelace", "userId": writer.pk}, format="json")
    assert response.status_code == 201
    assert (response.json()["data"]["userId"], response.json()["data"]["isGuest"]) == (writer.pk, False)
    # The same name again gets its own slug.
    again = admin_api.post(BYLINES, {"displayName": "Ada Lovelace"}, format="json")
    assert again.json()["data"]["slug"] == "ada-lovelace-2"


def test_byline_input_is_checked(admin_api):
    response = admin_api.post(BYLINES, {"displayName": " "}, format="json")
    assert response.status_code == 400
    assert error_of(response)["details"] == {"displayName": "Required."}
    response = admin_api.post(BYLINES, {"displayName": "X", "userId": "nobody"}, format="json")
    assert response.status_code == 400
    assert error_of(response)["details"] == {"userId": "No user with id nobody."}
    assert not Byline.objects.exists()


def test_list_get_update_and_delete_bylines(admin_api):
    grace, ada = make_byline("Grace Hopper"), make_byline("Ada Lovelace")
    response = admin_api.get(BYLINES)
    assert response.json() == {
        "success": True,
        "data": {"items": [byline_body(ada), byline_body(grace)], "nextCursor": None},
    }
    assert admin_api.get(f"{BYLINES}/{ada.pk}").json() == {"success": True, "data": byline_body(ada)}
    response = admin_api.patch(
        f"{BYLINES}/{ada.pk}", {"displayName": "Countess Lovelace", "email": "ada@example.com"}, format="json"
    )
    assert response.json() == {
        "success": True,
        "data": byline_body(
            ada, displayName="Countess Lovelace", email="ada@example.com", slug="ada-lovelace"
        ),
    }
    assert admin_api.delete(f"{BYLINES}/{ada.pk}").json() == {"success": True, "data": {"success": True}}
    assert admin_api.get(f"{BYLINES}/{ada.pk}").status_code == 404


@pytest.mark.parametrize(
    ("role", "status"), [(Role.EDITOR, 201), (Role.AUTHOR, 403), (Role.CONTRIBUTOR, 403)]
)
def test_managing_bylines_needs_an_editor(client_for, role, status):
    client = client_for(role=role, scopes=["content:read", "content:write"])
    assert client.post(BYLINES, {"displayName": "X"}, format="json").status_code == status
    # Reading them is for anyone who reads content.
    assert client.get(BYLINES).status_code == 200


# --- credits --------------------------------------------------------------------------------------------------------


@pytest.fixture
def writers():
    return make_byline("Ada Lovelace"), make_byline("Grace Hopper"), make_byline("Alan Turing")


def test_credits_keep_their_order_and_the_first_is_primary(admin_api, admin_user, posts_collection, writers):
    ada, grace, alan = writers
    response = admin_api.post(
        POSTS,
        {
            "data": {"title": "Credited"},
            "bylines": [
                {"bylineId": grace.pk, "roleLabel": "Text"},
                {"bylineId": alan.pk},
                {"bylineId": ada.pk, "roleLabel": "Photos"},
            ],
        },
        format="json",
    )
    assert response.status_code == 201
    item = response.json()["data"]["item"]
    assert item["authorId"] == admin_user.pk
    assert item["primaryBylineId"] == grace.pk
    assert item["bylines"] == [credit(grace, "Text"), credit(alan), credit(ada, "Photos")]
    # A GET and a list answer the same.
    assert admin_api.get(entry_url(item["id"])).json()["data"]["item"]["bylines"] == item["bylines"]
    assert admin_api.get(POSTS).json()["data"]["items"][0]["bylines"] == item["bylines"]


def test_an_update_replaces_the_credits(admin_api, posts_collection, writers):
    ada, grace, alan = writers
    entry = make_entry(
        posts_collection, {"title": "x"}, bylines=[{"bylineId": ada.pk}, {"bylineId": grace.pk}]
    )
    response = admin_api.patch(
        entry_url(entry), {"bylines": [{"bylineId": alan.pk}, {"bylineId": ada.pk}]}, format="json"
    )
    item = response.json()["data"]["item"]
    assert (item["primaryBylineId"], item["bylines"]) == (alan.pk, [credit(alan), credit(ada)])
    # Updating data alone leaves the credits as they are.
    item = admin_api.patch(entry_url(entry), {"data": {"title": "y"}}, format="json").json()["data"]["item"]
    assert [c["bylineId"] for c in item["bylines"]] == [alan.pk, ada.pk]
    # An empty list removes them all.
    item = admin_api.patch(entry_url(entry), {"bylines": []}, format="json").json()["data"]["item"]
    assert (item["primaryBylineId"], item["bylines"]) == (None, [])


def test_unknown_or_repeated_bylines_are_refused(admin_api, posts_collection, writers):
    ada = writers[0]
    response = admin_api.post(
        POSTS,
        {
            "data": {"title": "x"},
            "bylines": [{"bylineId": ada.pk}, {"bylineId": "01HZZZZZZZZZZZZZZZZZZZZZZZ"}],
        },
        format="json",
    )
    assert response.status_code == 400
    assert error_of(response) == {
        "code": "VALIDATION_ERROR",
        "message": "bylines.1.bylineId: No byline 01HZZZZZZZZZZZZZZZZZZZZZZZ.",
        "details": {"bylines.1.bylineId": "No byline 01HZZZZZZZZZZZZZZZZZZZZZZZ."},
    }
    assert not Entry.objects.exists()
    response = admin_api.post(
        POSTS,
        {"data": {"title": "x"}, "bylines": [{"bylineId": ada.pk}, {"bylineId": ada.pk}]},
        format="json",
    )
    assert response.status_code == 400
    assert error_of(response)["details"] == {"bylines": "A byline may be credited once per entry."}
    response = admin_api.post(
        POSTS, {"data": {"title": "x"}, "bylines": [{"roleLabel": "Text"}]}, format="json"
    )
    assert response.status_code == 400
    # The parser's shape errors use the same dotted keys as the service's.
    assert error_of(response)["details"] == {"bylines.0.bylineId": "This field is required."}
    assert not Entry.objects.exists()


def test_an_update_with_an_unknown_byline_writes_nothing(admin_api, posts_collection, writers):
    ada = writers[0]
    entry = make_entry(posts_collection, {"title": "x"}, bylines=[{"bylineId": ada.pk}])
    response = admin_api.patch(
        entry_url(entry),
        {"data": {"title": "changed"}, "bylines": [{"bylineId": "01HZZZZZZZZZZZZZZZZZZZZZZZ"}]},
        format="json",
    )
    assert response.status_code == 400
    entry.refresh_from_db()
    assert (entry.data, entry.version, entry.primary_byline_id) == ({"title": "x"}, 1, ada.pk)


def test_deleting_a_byline_moves_the_primary_to_the_next_credit(admin_api, posts_collection, writers):
    ada, grace, _ = writers
    entry = make_entry(
        posts_collection, {"title": "x"}, bylines=[{"bylineId": ada.pk}, {"bylineId": grace.pk}]
    )
    admin_api.delete(f"{BYLINES}/{ada.pk}")
    item = admin_api.get(entry_url(entry)).json()["data"]["item"]
    assert (item["primaryBylineId"], item["bylines"]) == (grace.pk, [credit(grace)])
