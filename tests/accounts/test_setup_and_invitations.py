"""First-admin setup and invitations over HTTP."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import Client, override_settings

from apps.accounts.models import InstanceSetup, Invitation, Passkey, Role, User
from apps.accounts.permissions import RULES, Rule
from apps.core.timefmt import now
from tests.accounts.authenticator import SoftAuthenticator
from tests.accounts.passkey_helpers import sign_in
from tests.conftest import ApiClient
from tests.factories import make_token, make_user

API = "/_cms/api"


@pytest.fixture
def authenticator() -> SoftAuthenticator:
    return SoftAuthenticator(origin=settings.CMS_BASE_URL)


def setup_with_passkey(client, authenticator, email="owner@example.com", name="Owner"):
    options = client.post(f"{API}/setup/passkey/options", {"email": email, "name": name}, format="json")
    assert options.status_code == 200, options.json()
    credential = authenticator.create(options.json()["data"])
    return client.post(f"{API}/setup/passkey/verify", {**credential, "name": "Laptop"}, format="json")


# --- Setup ----------------------------------------------------------------------------------------------------------


def test_setup_status(api):
    assert api.get(f"{API}/setup/status").json() == {
        "success": True,
        "data": {"setupComplete": False, "hasUsers": False},
    }
    make_user(Role.EDITOR)
    assert api.get(f"{API}/setup/status").json()["data"] == {"setupComplete": False, "hasUsers": True}
    make_user(Role.ADMIN)
    assert api.get(f"{API}/setup/status").json()["data"] == {"setupComplete": True, "hasUsers": True}


def test_the_first_visitor_creates_the_admin_with_a_passkey(authenticator):
    client = ApiClient()
    assert Client().get("/_cms/admin/setup").status_code == 200
    response = setup_with_passkey(client, authenticator)
    assert response.status_code == 201
    user = User.objects.get()
    assert response.json() == {
        "success": True,
        "data": {"user": {"id": user.pk, "email": "owner@example.com", "name": "Owner", "role": 50}},
    }
    assert Passkey.objects.get(user=user).name == "Laptop"
    assert InstanceSetup.objects.get().admin == user
    assert client.get(f"{API}/auth/me").json()["data"]["authenticatedBy"] == "session"
    # The passkey signs in again later.
    assert sign_in(ApiClient(), authenticator).status_code == 200


def test_setup_closes_once_someone_exists(authenticator):
    client = ApiClient()
    leftover = client.post(
        f"{API}/setup/passkey/options", {"email": "late@example.com"}, format="json"
    ).json()["data"]
    assert setup_with_passkey(ApiClient(), SoftAuthenticator(origin=settings.CMS_BASE_URL)).status_code == 201
    closed = client.post(f"{API}/setup/passkey/options", {"email": "x@example.com"}, format="json")
    assert closed.status_code == 403
    assert (
        closed.json()["error"]["message"]
        == "Setup is complete: this service already has users. Sign in instead."
    )
    # A challenge fetched while setup was open does not reopen it.
    late = client.post(f"{API}/setup/passkey/verify", authenticator.create(leftover), format="json")
    assert late.status_code == 403
    assert User.objects.count() == 1
    page = Client().get("/_cms/admin/setup")
    assert page.status_code == 302 and page["Location"] == "/_cms/admin/login"


def test_setup_is_closed_after_the_command_line_setup(api):
    call_command("cms_setup", "--email", "ops@example.com", stdout=open("/dev/null", "w"))  # noqa: SIM115
    assert api.get(f"{API}/setup/status").json()["data"] == {"setupComplete": True, "hasUsers": True}
    assert (
        api.post(f"{API}/setup/passkey/options", {"email": "x@example.com"}, format="json").status_code == 403
    )


def test_setup_verification_needs_the_csrf_token(authenticator):
    client = ApiClient(enforce_csrf_checks=True)
    options = client.post(f"{API}/setup/passkey/options", {"email": "o@example.com"}, format="json").json()[
        "data"
    ]
    response = client.post(f"{API}/setup/passkey/verify", authenticator.create(options), format="json")
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "FORBIDDEN"
    assert not User.objects.exists()


# --- Invitations ----------------------------------------------------------------------------------------------------


@pytest.fixture
def admin_session():
    admin = make_user(Role.ADMIN, email="boss@example.com", name="Boss")
    client = ApiClient()
    client.force_login(admin)
    client.user = admin
    return client


def invite(client, delivered, email="new@example.com", role=Role.AUTHOR):
    with delivered() as outbox:
        response = client.post(f"{API}/auth/invite", {"email": email, "role": int(role)}, format="json")
    assert response.status_code == 201, response.json()
    token = response.json()["data"]["url"].rsplit("/", 1)[1]
    return response, token, outbox


def test_an_admin_invites_by_mail(admin_session, delivered):
    response, token, outbox = invite(admin_session, delivered, email="New@Example.com")
    data = response.json()["data"]
    item = data["item"]
    assert data == {
        "item": {
            "id": item["id"],
            "email": "new@example.com",
            "role": 30,
            "expiresAt": item["expiresAt"],
            "createdAt": item["createdAt"],
            "invitedBy": {
                "id": admin_session.user.pk,
                "email": "boss@example.com",
                "name": "Boss",
                "role": 50,
            },
        },
        "url": f"http://localhost:8000/_cms/admin/invite/{token}",
    }
    invitation = Invitation.objects.get()
    assert invitation.token_hash != token
    assert timedelta(days=6, hours=23) < invitation.expires_at - invitation.created_at <= timedelta(days=7)
    assert len(outbox) == 1 and outbox[0].to == ["new@example.com"]
    assert (
        data["url"] in outbox[0].body
        and "Boss invited you" in outbox[0].body
        and "as author" in outbox[0].body
    )


def test_inviting_is_for_admins(delivered):
    editor = make_user(Role.EDITOR)
    client = ApiClient()
    client.force_login(editor)
    response = client.post(f"{API}/auth/invite", {"email": "x@example.com", "role": 10}, format="json")
    assert response.status_code == 403
    _, raw = make_token(make_user(Role.ADMIN), ["content:read"])
    scoped = (
        ApiClient()
        .as_token(raw)
        .post(f"{API}/auth/invite", {"email": "x@example.com", "role": 10}, format="json")
    )
    assert scoped.status_code == 403


def test_a_role_above_the_inviters_is_refused(monkeypatch):
    # Only admins (the top role) may invite today; the rule still holds should editors ever be allowed to.
    monkeypatch.setitem(RULES, "users.invite", Rule("admin", Role.EDITOR))
    editor = make_user(Role.EDITOR)
    client = ApiClient()
    client.force_login(editor)
    response = client.post(f"{API}/auth/invite", {"email": "x@example.com", "role": 50}, format="json")
    assert response.status_code == 403
    assert (
        response.json()["error"]["message"]
        == "You cannot invite someone with a role (50) above your own (40)."
    )
    assert (
        client.post(f"{API}/auth/invite", {"email": "x@example.com", "role": 40}, format="json").status_code
        == 201
    )


def test_invitation_input_is_checked(admin_session):
    existing = make_user(Role.SUBSCRIBER, email="here@example.com")
    response = admin_session.post(f"{API}/auth/invite", {"email": existing.email, "role": 10}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {"email": "A user with this address already exists."}
    bad_role = admin_session.post(f"{API}/auth/invite", {"email": "x@example.com", "role": 60}, format="json")
    assert bad_role.status_code == 400
    assert list(bad_role.json()["error"]["details"]) == ["role"]


def test_accepting_with_a_passkey_creates_the_user_and_signs_in(admin_session, delivered, authenticator):
    _, token, _ = invite(admin_session, delivered, role=Role.EDITOR)
    page = Client().get(f"/_cms/admin/invite/{token}")
    assert page.status_code == 200
    assert "as <strong>editor</strong>" in page.content.decode()
    assert page["Referrer-Policy"] == "same-origin"

    invitee = ApiClient()
    options = invitee.post(
        f"{API}/auth/invite/accept/options", {"token": token, "name": "Ned"}, format="json"
    )
    assert options.status_code == 200
    assert options.json()["data"]["user"]["name"] == "new@example.com"
    response = invitee.post(
        f"{API}/auth/invite/accept/verify",
        {**authenticator.create(options.json()["data"]), "token": token},
        format="json",
    )
    assert response.status_code == 201
    user = User.objects.get(email="new@example.com")
    assert (user.role, user.name) == (40, "Ned")
    assert response.json()["data"]["user"] == {"id": user.pk, "email": user.email, "name": "Ned", "role": 40}
    assert invitee.get(f"{API}/auth/me").json()["data"]["user"]["id"] == user.pk
    assert sign_in(ApiClient(), authenticator).status_code == 200


def test_an_invitation_is_used_once(admin_session, delivered, authenticator):
    _, token, _ = invite(admin_session, delivered)
    first = ApiClient()
    options = first.post(f"{API}/auth/invite/accept/options", {"token": token}, format="json").json()["data"]
    second_options = (
        ApiClient().post(f"{API}/auth/invite/accept/options", {"token": token}, format="json").json()["data"]
    )
    assert (
        first.post(
            f"{API}/auth/invite/accept/verify",
            {**authenticator.create(options), "token": token},
            format="json",
        ).status_code
        == 201
    )
    # A second acceptance, even with a challenge fetched before the first one finished, is refused.
    other = SoftAuthenticator(origin=settings.CMS_BASE_URL)
    again = ApiClient().post(
        f"{API}/auth/invite/accept/verify", {**other.create(second_options), "token": token}, format="json"
    )
    assert again.status_code == 400
    assert again.json()["error"]["details"] == {
        "token": "This invitation has already been accepted. Sign in instead."
    }
    assert User.objects.filter(email="new@example.com").count() == 1
    page = Client().get(f"/_cms/admin/invite/{token}")
    assert page.status_code == 400
    assert "already been accepted" in page.content.decode()


def test_an_invitation_challenge_cannot_accept_another_invitation(admin_session, delivered, authenticator):
    _, first_token, _ = invite(admin_session, delivered, email="a@example.com")
    _, second_token, _ = invite(admin_session, delivered, email="b@example.com")
    options = (
        ApiClient()
        .post(f"{API}/auth/invite/accept/options", {"token": first_token}, format="json")
        .json()["data"]
    )
    response = ApiClient().post(
        f"{API}/auth/invite/accept/verify",
        {**authenticator.create(options), "token": second_token},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "credential": "This challenge was issued for another invitation."
    }


def test_accepting_with_a_magic_link(admin_session, delivered):
    _, token, _ = invite(admin_session, delivered, role=Role.CONTRIBUTOR)
    with delivered() as outbox:
        response = Client().post(f"/_cms/admin/invite/{token}", {"name": "Cora"})
    assert response.status_code == 200
    assert "A sign-in link is on its way to new@example.com" in response.content.decode()
    user = User.objects.get(email="new@example.com")
    assert (user.role, user.name) == (20, "Cora")
    link = re.search(r"(/_cms/api/auth/magic-link/verify\?token=[A-Za-z0-9_-]+)", outbox[-1].body).group(1)
    assert Client().get(link).status_code == 200
    again = ApiClient().post(f"{API}/auth/invite/accept/magic-link", {"token": token}, format="json")
    assert again.status_code == 400


def test_expired_and_replaced_invitations(admin_session, delivered):
    _, old_token, _ = invite(admin_session, delivered)
    _, new_token, _ = invite(admin_session, delivered)
    replaced = ApiClient().post(f"{API}/auth/invite/accept/options", {"token": old_token}, format="json")
    assert replaced.status_code == 400
    assert replaced.json()["error"]["details"] == {
        "token": "This invitation was replaced by a newer one or withdrawn. Use the newest invitation you received."
    }
    Invitation.objects.filter(revoked_at__isnull=True).update(expires_at=now() - timedelta(seconds=1))
    expired = ApiClient().post(f"{API}/auth/invite/accept/magic-link", {"token": new_token}, format="json")
    assert expired.status_code == 400
    assert expired.json()["error"]["details"] == {
        "token": "This invitation has expired (invitations last 7 days). Ask for a new one."
    }
    unknown = Client().get("/_cms/admin/invite/not-a-token")
    assert unknown.status_code == 400
    assert "This invitation link is not valid" in unknown.content.decode()


def test_the_invitation_page_is_rate_limited_with_retry_after(admin_session, delivered):
    _, token, _ = invite(admin_session, delivered)
    with override_settings(CMS_RATE_LIMITS={**settings.CMS_RATE_LIMITS, "auth": "1/m"}):
        # The page shares the sign-in endpoints' per-client limit: one passkey request uses it up.
        assert ApiClient().post(f"{API}/auth/passkey/options", {}, format="json").status_code == 200
        limited = Client().post(f"/_cms/admin/invite/{token}", {"name": "Cora"})
    assert limited.status_code == 429
    assert 1 <= int(limited["Retry-After"]) <= 60
    assert f"Too many requests; retry in {limited['Retry-After']} seconds." in limited.content.decode()
    assert not User.objects.filter(email="new@example.com").exists()
