"""Personal access tokens: creation, hashing, listing, revocation, expiry, scopes and roles, through HTTP."""

import hashlib
from datetime import timedelta

import pytest
from django.db import connection

from apps.accounts.models import ApiToken, Role
from apps.core.timefmt import iso, now
from tests.conftest import ApiClient
from tests.factories import make_token, make_user

TOKENS = "/_cms/api/admin/api-tokens"


def test_create_returns_the_token_once_and_stores_only_its_hash(admin_api, admin_user):
    response = admin_api.post(
        TOKENS, {"name": "deploy", "scopes": ["content:read", "content:write"]}, format="json"
    )
    assert response.status_code == 201
    data = response.json()["data"]
    raw = data["token"]
    assert raw.startswith("ec_pat_") and len(raw) == 7 + 43
    item = data["item"]
    assert item == {
        "id": item["id"],
        "name": "deploy",
        "prefix": raw[:11],
        "scopes": ["content:read", "content:write"],
        "expiresAt": None,
        "lastUsedAt": None,
        "revokedAt": None,
        "createdAt": item["createdAt"],
        "user": {"id": admin_user.pk, "email": admin_user.email, "name": admin_user.name, "role": 50},
    }
    stored = ApiToken.objects.get(pk=item["id"])
    assert stored.token_hash == hashlib.sha256(raw.encode()).hexdigest()
    # The secret appears nowhere in the row, in any column.
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM accounts_apitoken WHERE id = %s", [item["id"]])
        row = cursor.fetchone()
    assert not any(raw in str(value) or raw[11:] in str(value) for value in row)
    # The token works, and listing never shows it again.
    assert ApiClient().as_token(raw).get(TOKENS).status_code == 403  # content scopes only: no admin
    listing = admin_api.get(TOKENS).content.decode()
    assert raw not in listing and raw[11:] not in listing


def test_a_token_for_another_user_acts_as_that_user(admin_api):
    author = make_user(Role.AUTHOR)
    response = admin_api.post(
        TOKENS, {"name": "author bot", "scopes": ["content:write"], "userId": author.pk}, format="json"
    )
    assert response.status_code == 201
    assert response.json()["data"]["item"]["user"]["id"] == author.pk


def test_scopes_beyond_the_users_role_are_refused(admin_api):
    editor = make_user(Role.EDITOR)
    response = admin_api.post(
        TOKENS, {"name": "x", "scopes": ["schema:read", "schema:write"], "userId": editor.pk}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {"scopes": "The role editor (40) cannot use: schema:write."}


def test_unknown_user_is_a_validation_error(admin_api):
    response = admin_api.post(TOKENS, {"name": "x", "scopes": ["admin"], "userId": "nobody"}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {"userId": "No user with id nobody."}


def test_expiry_must_be_in_the_future(admin_api):
    past = iso(now() - timedelta(minutes=1))
    response = admin_api.post(TOKENS, {"name": "x", "scopes": ["admin"], "expiresAt": past}, format="json")
    assert response.status_code == 400
    assert list(response.json()["error"]["details"]) == ["expiresAt"]


def test_revoked_token_stops_working_at_once(admin_api, admin_user):
    token, raw = make_token(admin_user, ["admin"])
    client = ApiClient().as_token(raw)
    assert client.get(TOKENS).status_code == 200
    response = admin_api.delete(f"{TOKENS}/{token.pk}")
    assert response.status_code == 200
    assert response.json() == {"success": True, "data": {"success": True}}
    refused = client.get(TOKENS)
    assert refused.status_code == 401
    assert refused.json()["error"]["message"] == "This token has been revoked."
    # Revoked tokens leave the listing.
    assert token.pk not in [item["id"] for item in admin_api.get(TOKENS).json()["data"]["items"]]


def test_expired_token_is_refused(admin_user):
    token, raw = make_token(admin_user, ["admin"], expires_at=now() + timedelta(hours=1))
    ApiToken.objects.filter(pk=token.pk).update(expires_at=now() - timedelta(seconds=1))
    response = ApiClient().as_token(raw).get(TOKENS)
    assert response.status_code == 401
    assert response.json()["error"]["message"].startswith("This token expired at ")


def test_disabled_users_tokens_stop_working(admin_user):
    _, raw = make_token(admin_user, ["admin"])
    admin_user.is_active = False
    admin_user.save()
    response = ApiClient().as_token(raw).get(TOKENS)
    assert response.status_code == 401
    assert response.json()["error"]["message"] == "The account this token belongs to is disabled."


def test_last_used_is_recorded(admin_user):
    token, raw = make_token(admin_user, ["admin"])
    ApiClient().as_token(raw).get(TOKENS)
    token.refresh_from_db()
    assert token.last_used_at is not None


@pytest.mark.parametrize(
    ("scopes", "status"),
    [
        (["admin"], 200),
        (["content:read"], 403),
        (["content:read", "content:write", "media:read", "media:write", "schema:read", "schema:write"], 403),
    ],
)
def test_scope_matrix_for_token_management(client_for, scopes, status):
    assert client_for(Role.ADMIN, scopes).get(TOKENS).status_code == status


@pytest.mark.parametrize(
    ("role", "status"),
    [
        (Role.SUBSCRIBER, 403),
        (Role.CONTRIBUTOR, 403),
        (Role.AUTHOR, 403),
        (Role.EDITOR, 403),
        (Role.ADMIN, 200),
    ],
)
def test_role_matrix_for_token_management(role, status):
    # The token carries `admin` from when its user was an admin; the role is checked on every request.
    user = make_user(Role.ADMIN)
    _, raw = make_token(user, ["admin"])
    user.role = role
    user.save()
    response = ApiClient().as_token(raw).get(TOKENS)
    assert response.status_code == status
    if status == 403:
        assert response.json()["error"]["message"] == (
            f"This requires the role admin (50) or higher; you are {Role(role).label} ({role})."
        )


def test_session_sign_in_has_the_roles_full_access_and_needs_csrf_for_writes(admin_user):
    client = ApiClient(enforce_csrf_checks=True)
    client.force_login(admin_user)
    assert client.get(TOKENS).status_code == 200
    refused = client.post(TOKENS, {"name": "x", "scopes": ["admin"]}, format="json")
    assert refused.status_code == 403
    assert refused.json()["error"]["message"].startswith("CSRF Failed")


def test_session_of_a_non_admin_is_refused_by_role():
    client = ApiClient()
    client.force_login(make_user(Role.EDITOR))
    assert client.get(TOKENS).status_code == 403
