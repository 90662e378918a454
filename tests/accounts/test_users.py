"""Users over HTTP (SPEC §4.8 /admin/users): listing with filters and pages, reading, name and role changes,
enabling and disabling, and the rules that keep the site administrable."""

from __future__ import annotations

import pytest

from apps.accounts import services
from apps.accounts.models import Role, User
from apps.accounts.permissions import Actor
from apps.core.errors import ValidationError
from tests.conftest import ApiClient
from tests.factories import make_token, make_user

USERS = "/_cms/api/admin/users"


def test_get_a_user(admin_api):
    editor = make_user(Role.EDITOR, email="ed@example.com", name="Ed")
    response = admin_api.get(f"{USERS}/{editor.pk}")
    assert response.status_code == 200
    data = response.json()["data"]
    assert data == {
        "id": editor.pk,
        "email": "ed@example.com",
        "name": "Ed",
        "role": 40,
        "roleName": "editor",
        "active": True,
        "lastLoginAt": None,
        "createdAt": data["createdAt"],
        "updatedAt": data["updatedAt"],
    }
    assert admin_api.get(f"{USERS}/nobody").json()["error"] == {
        "code": "NOT_FOUND",
        "message": "No user with id nobody.",
        "details": {},
    }


def test_list_by_email_with_filters_and_pages(admin_api, admin_user):
    make_user(Role.AUTHOR, email="bob@example.com", name="Bob Stone")
    make_user(Role.AUTHOR, email="carol@example.com", name="Carol")
    make_user(Role.EDITOR, email="dave@example.com", name="Dave Stone")
    everyone = admin_api.get(USERS).json()["data"]
    assert [u["email"] for u in everyone["items"]] == sorted(
        [admin_user.email, "bob@example.com", "carol@example.com", "dave@example.com"]
    )
    authors = admin_api.get(USERS, {"role": 30}).json()["data"]["items"]
    assert [u["email"] for u in authors] == ["bob@example.com", "carol@example.com"]
    stones = admin_api.get(USERS, {"search": "stone"}).json()["data"]["items"]
    assert [u["name"] for u in stones] == ["Bob Stone", "Dave Stone"]
    assert [u["email"] for u in admin_api.get(USERS, {"search": "CAROL@"}).json()["data"]["items"]] == [
        "carol@example.com"
    ]
    first = admin_api.get(USERS, {"limit": 2}).json()["data"]
    rest = admin_api.get(USERS, {"limit": 2, "cursor": first["nextCursor"]}).json()["data"]
    assert [u["id"] for u in first["items"] + rest["items"]] == [u["id"] for u in everyone["items"]]
    bad = admin_api.get(USERS, {"role": 35})
    assert bad.status_code == 400
    assert bad.json()["error"]["details"] == {"role": '"35" is not a valid choice.'}


def test_change_name_and_role(admin_api):
    author = make_user(Role.AUTHOR)
    response = admin_api.patch(f"{USERS}/{author.pk}", {"name": "  Ann Author ", "role": 40}, format="json")
    assert response.status_code == 200
    assert (response.json()["data"]["name"], response.json()["data"]["role"]) == ("Ann Author", 40)
    assert response.json()["data"]["roleName"] == "editor"
    unknown = admin_api.patch(f"{USERS}/{author.pk}", {"role": 45}, format="json")
    assert unknown.status_code == 400
    assert unknown.json()["error"]["details"] == {"role": '"45" is not a valid choice.'}
    cleared = admin_api.patch(f"{USERS}/{author.pk}", {"role": None}, format="json")
    assert cleared.json()["error"]["details"] == {"role": "This field may not be null."}
    extra = admin_api.patch(f"{USERS}/{author.pk}", {"email": "x@example.com"}, format="json")
    assert extra.json()["error"]["details"] == {"email": "Unknown field; allowed: name, role."}


def test_an_admin_cannot_demote_or_disable_themselves(admin_api, admin_user):
    make_user(Role.ADMIN)  # not the last admin: the refusal is about acting on oneself
    demote = admin_api.patch(f"{USERS}/{admin_user.pk}", {"role": 40}, format="json")
    assert demote.status_code == 400
    assert demote.json()["error"] == {
        "code": "VALIDATION_ERROR",
        "message": "You cannot demote yourself; ask another admin.",
        "details": {"role": "You cannot demote yourself."},
    }
    disable = admin_api.post(f"{USERS}/{admin_user.pk}/disable")
    assert disable.status_code == 400
    assert disable.json()["error"]["details"] == {"active": "You cannot disable yourself."}
    # Renaming oneself is fine.
    assert admin_api.patch(f"{USERS}/{admin_user.pk}", {"name": "Me"}, format="json").status_code == 200


def test_admins_demote_each_other_until_one_is_left(admin_user):
    other = make_user(Role.ADMIN)
    _, raw = make_token(other, ["admin"])
    client = ApiClient().as_token(raw)
    assert client.patch(f"{USERS}/{admin_user.pk}", {"role": 40}, format="json").status_code == 200
    # A disabled admin does not count as one left: demoting them takes nothing away.
    User.objects.filter(pk=admin_user.pk).update(role=Role.ADMIN, is_active=False)
    assert client.patch(f"{USERS}/{admin_user.pk}", {"role": 30}, format="json").status_code == 200


def test_the_last_active_admin_cannot_be_demoted_or_disabled_even_by_the_system(admin_user):
    # Over HTTP only admins act and never on themselves, so the last admin is protected; the management commands act
    # as the system, and the same rule holds for them.
    retired = make_user(Role.ADMIN)
    User.objects.filter(pk=retired.pk).update(is_active=False)
    for change in (
        lambda: services.user_update(actor=Actor.system(), user=admin_user, role=Role.EDITOR),
        lambda: services.user_set_active(actor=Actor.system(), user=admin_user, active=False),
    ):
        with pytest.raises(ValidationError) as refused:
            change()
        assert (
            refused.value.message
            == f"{admin_user.email} is the last active admin; make someone else admin first."
        )
    admin_user.refresh_from_db()
    assert (admin_user.role, admin_user.is_active) == (Role.ADMIN, True)


def test_disabling_stops_tokens_and_sessions_at_once_and_enabling_restores_tokens(admin_api):
    editor = make_user(Role.EDITOR)
    _, raw = make_token(editor, ["content:read"])
    token_client = ApiClient().as_token(raw)
    session_client = ApiClient()
    session_client.force_login(editor)
    assert token_client.get("/_cms/api/taxonomies").status_code == 200
    assert session_client.get("/_cms/api/taxonomies").status_code == 200

    response = admin_api.post(f"{USERS}/{editor.pk}/disable")
    assert response.status_code == 200
    assert response.json()["data"]["active"] is False

    refused = token_client.get("/_cms/api/taxonomies")
    assert refused.status_code == 401
    assert refused.json()["error"]["message"] == "The account this token belongs to is disabled."
    assert session_client.get("/_cms/api/taxonomies").status_code == 401

    assert admin_api.post(f"{USERS}/{editor.pk}/enable").json()["data"]["active"] is True
    assert token_client.get("/_cms/api/taxonomies").status_code == 200


@pytest.mark.parametrize(
    ("role", "scopes"),
    [
        (Role.EDITOR, ["content:read", "content:write", "media:write", "schema:read"]),
        (Role.ADMIN, ["schema:write"]),
    ],
)
def test_only_admins_with_the_admin_scope_manage_users(client_for, role, scopes):
    client = client_for(role, scopes)
    target = make_user(Role.AUTHOR)
    assert client.get(USERS).status_code == 403
    assert client.post(f"{USERS}/{target.pk}/disable").status_code == 403
    assert client.patch(f"{USERS}/{target.pk}", {"role": 50}, format="json").status_code == 403
