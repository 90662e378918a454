"""Passkeys over HTTP: registration, sign-in, and the attacks the ceremony must stop (Web Authentication §7, §13)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings

from apps.accounts.models import Passkey, Role, WebAuthnChallenge
from apps.core.timefmt import now
from tests.accounts.authenticator import SoftAuthenticator, b64url
from tests.accounts.passkey_helpers import API, register_passkey, sign_in, sign_in_options
from tests.conftest import ApiClient
from tests.factories import make_token, make_user


@pytest.fixture
def authenticator() -> SoftAuthenticator:
    return SoftAuthenticator(origin=settings.CMS_BASE_URL)


@pytest.fixture
def member():
    return make_user(Role.AUTHOR, email="member@example.com", name="Member")


@pytest.fixture
def member_session(member) -> ApiClient:
    client = ApiClient()
    client.force_login(member)
    return client


@pytest.fixture
def enrolled(member_session, authenticator):
    """The member has one passkey, held by ``authenticator``."""
    assert register_passkey(member_session, authenticator, name="Laptop").status_code == 201
    return authenticator


def test_registration_options_ask_for_a_discoverable_user_verified_passkey(member_session, member):
    response = member_session.post(f"{API}/auth/passkey/register/options", {}, format="json")
    assert response.status_code == 200
    options = response.json()["data"]
    assert options == {
        "rp": {"name": "CMS", "id": "localhost"},
        "user": {"id": b64url(member.pk.encode()), "name": "member@example.com", "displayName": "Member"},
        "challenge": options["challenge"],
        "pubKeyCredParams": [
            {"type": "public-key", "alg": -8},
            {"type": "public-key", "alg": -7},
            {"type": "public-key", "alg": -257},
        ],
        "timeout": 300000,
        "excludeCredentials": [],
        "authenticatorSelection": {
            "residentKey": "required",
            "requireResidentKey": True,
            "userVerification": "required",
        },
        "attestation": "none",
    }
    assert len(options["challenge"]) == 43  # 32 random bytes
    # Only the challenge's hash is stored.
    stored = WebAuthnChallenge.objects.get()
    assert (
        stored.purpose == "register"
        and stored.user == member
        and options["challenge"] not in stored.challenge_hash
    )


def test_register_then_list_rename_and_the_passkeys_in_the_exclude_list(
    member_session, authenticator, member
):
    response = register_passkey(member_session, authenticator, name="Laptop")
    assert response.status_code == 201
    item = response.json()["data"]["item"]
    assert item == {
        "id": item["id"],
        "name": "Laptop",
        "createdAt": item["createdAt"],
        "lastUsedAt": None,
        "backedUp": False,
    }
    stored = Passkey.objects.get(pk=item["id"])
    assert stored.credential_id == b64url(authenticator.passkeys[0].credential_id)
    assert stored.transports == ["internal"] and stored.sign_count == 0

    second = register_passkey(member_session, authenticator)
    assert second.json()["data"]["item"]["name"] == "Passkey 2"
    options = member_session.post(f"{API}/auth/passkey/register/options", {}, format="json").json()["data"]
    assert [entry["id"] for entry in options["excludeCredentials"]] == [
        b64url(p.credential_id) for p in authenticator.passkeys
    ]

    listing = member_session.get(f"{API}/auth/passkey")
    assert listing.status_code == 200
    assert [p["name"] for p in listing.json()["data"]["items"]] == ["Laptop", "Passkey 2"]

    renamed = member_session.patch(f"{API}/auth/passkey/{item['id']}", {"name": "Work laptop"}, format="json")
    assert renamed.status_code == 200
    assert renamed.json()["data"]["item"]["name"] == "Work laptop"


def test_sign_in_with_a_passkey_starts_a_session(enrolled, member):
    client = ApiClient()
    options = sign_in_options(client)
    assert options == {
        "challenge": options["challenge"],
        "timeout": 300000,
        "rpId": "localhost",
        "allowCredentials": [],
        "userVerification": "required",
    }
    response = client.post(f"{API}/auth/passkey/verify", enrolled.get(options), format="json")
    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "data": {"user": {"id": member.pk, "email": member.email, "name": "Member", "role": 30}},
    }
    assert response.cookies["sessionid"]["httponly"] is True
    assert response.cookies["sessionid"]["samesite"] == "Lax"
    me = client.get(f"{API}/auth/me")
    assert me.status_code == 200
    assert me.json()["data"]["authenticatedBy"] == "session"
    stored = Passkey.objects.get()
    assert stored.sign_count == 1 and stored.last_used_at is not None


def test_a_replayed_assertion_is_refused(enrolled):
    client = ApiClient()
    assertion = enrolled.get(sign_in_options(client))
    assert client.post(f"{API}/auth/passkey/verify", assertion, format="json").status_code == 200
    replay = ApiClient().post(f"{API}/auth/passkey/verify", assertion, format="json")
    assert replay.status_code == 401
    assert replay.json()["error"] == {
        "code": "UNAUTHORIZED",
        "message": "This challenge is unknown or was already used; request new options and try again.",
        "details": {},
    }


def test_a_failed_attempt_still_uses_up_the_challenge(enrolled):
    client = ApiClient()
    options = sign_in_options(client)
    wrong = enrolled.get(options, origin="https://evil.example")
    assert client.post(f"{API}/auth/passkey/verify", wrong, format="json").status_code == 401
    right = enrolled.get(options)
    response = client.post(f"{API}/auth/passkey/verify", right, format="json")
    assert response.status_code == 401
    assert "unknown or was already used" in response.json()["error"]["message"]


def test_an_assertion_made_for_another_origin_is_refused(enrolled):
    response = sign_in(ApiClient(), enrolled, origin="https://cms.example.evil")
    assert response.status_code == 401
    assert response.json()["error"]["message"] == (
        "The passkey could not be verified: Unexpected client data origin "
        '"https://cms.example.evil", expected "http://localhost:8000"'
    )


def test_an_assertion_for_another_relying_party_is_refused(member_session, member):
    elsewhere = SoftAuthenticator(origin=settings.CMS_BASE_URL)
    # A passkey scoped to another RP id, registered here by mistake, must not sign anyone in.
    options = member_session.post(f"{API}/auth/passkey/register/options", {}, format="json").json()["data"]
    refused = member_session.post(
        f"{API}/auth/passkey/register/verify", elsewhere.create(options, rp_id="example.org"), format="json"
    )
    assert refused.status_code == 400
    assert refused.json()["error"]["details"] == {"credential": "Unexpected RP ID hash"}


def test_user_verification_is_required(enrolled, member_session):
    response = sign_in(ApiClient(), enrolled, user_verified=False)
    assert response.status_code == 401
    assert response.json()["error"]["message"] == (
        "The passkey could not be verified: User verification is required but user was not verified during "
        "authentication"
    )
    options = member_session.post(f"{API}/auth/passkey/register/options", {}, format="json").json()["data"]
    unverified = SoftAuthenticator(origin=settings.CMS_BASE_URL).create(options, user_verified=False)
    refused = member_session.post(f"{API}/auth/passkey/register/verify", unverified, format="json")
    assert refused.status_code == 400
    assert refused.json()["error"]["details"] == {
        "credential": "User verification is required but user was not verified during attestation"
    }


def test_the_sign_counter_must_grow(enrolled):
    assert sign_in(ApiClient(), enrolled, sign_count=5).status_code == 200
    assert Passkey.objects.get().sign_count == 5
    cloned = sign_in(ApiClient(), enrolled, sign_count=5)
    assert cloned.status_code == 401
    assert cloned.json()["error"]["message"] == (
        "The passkey could not be verified: Response sign count of 5 was not greater than current count of 5"
    )
    assert sign_in(ApiClient(), enrolled, sign_count=9).status_code == 200


def test_an_expired_challenge_is_refused(enrolled):
    client = ApiClient()
    options = sign_in_options(client)
    WebAuthnChallenge.objects.update(expires_at=now() - timedelta(seconds=1))
    response = client.post(f"{API}/auth/passkey/verify", enrolled.get(options), format="json")
    assert response.status_code == 401
    assert response.json()["error"]["message"] == (
        "This challenge expired (they last five minutes); request new options."
    )
    assert WebAuthnChallenge.objects.count() == 0


def test_a_challenge_serves_only_its_own_purpose_and_user(enrolled, member_session):
    # A sign-in challenge cannot complete a registration …
    options = sign_in_options(ApiClient())
    registration = SoftAuthenticator(origin=settings.CMS_BASE_URL).create(
        {"rp": {"id": "localhost"}, "user": {"id": "dXNlcg"}, "challenge": options["challenge"]}
    )
    refused = member_session.post(f"{API}/auth/passkey/register/verify", registration, format="json")
    assert refused.status_code == 400
    assert "unknown or was already used" in refused.json()["error"]["details"]["credential"]
    # … and one user's registration challenge cannot add a passkey to another account.
    other = ApiClient()
    other.force_login(make_user(Role.EDITOR))
    theirs = member_session.post(f"{API}/auth/passkey/register/options", {}, format="json").json()["data"]
    stolen = SoftAuthenticator(origin=settings.CMS_BASE_URL).create(theirs)
    response = other.post(f"{API}/auth/passkey/register/verify", stolen, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "credential": "This challenge was issued for another user."
    }


def test_unknown_passkeys_and_foreign_user_handles_are_refused(enrolled):
    stranger = SoftAuthenticator(origin=settings.CMS_BASE_URL)
    stranger.create({"rp": {"id": "localhost"}, "user": {"id": "eA"}, "challenge": "eA"})
    unknown = sign_in(ApiClient(), stranger)
    assert unknown.status_code == 401
    assert unknown.json()["error"]["message"] == (
        "This passkey is not registered here; sign in another way and add it."
    )
    forged = sign_in(ApiClient(), enrolled, user_handle=b"someone-else")
    assert forged.status_code == 401
    assert forged.json()["error"]["message"] == (
        "The passkey could not be verified: The assertion's user handle does not belong to this passkey."
    )


def test_a_disabled_user_cannot_sign_in(enrolled, member):
    member.is_active = False
    member.save()
    response = sign_in(ApiClient(), enrolled)
    assert response.status_code == 401
    assert response.json()["error"]["message"] == "This account is disabled."


def test_a_passkey_cannot_be_registered_twice(member_session, member):
    authenticator = SoftAuthenticator(origin=settings.CMS_BASE_URL)
    options = member_session.post(f"{API}/auth/passkey/register/options", {}, format="json").json()["data"]
    credential = authenticator.create(options)
    assert (
        member_session.post(f"{API}/auth/passkey/register/verify", credential, format="json").status_code
        == 201
    )
    again = member_session.post(f"{API}/auth/passkey/register/options", {}, format="json").json()["data"]
    same_id = authenticator.create(again, credential_id=authenticator.passkeys[0].credential_id)
    response = member_session.post(f"{API}/auth/passkey/register/verify", same_id, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {"credential": "This passkey is already registered."}
    assert Passkey.objects.filter(user=member).count() == 1


def test_at_most_ten_passkeys(member_session, member):
    for number in range(settings.CMS_MAX_PASSKEYS_PER_USER):
        Passkey.objects.create(
            user=member, name=f"Key {number}", credential_id=f"id{number}", public_key=b"x"
        )
    response = member_session.post(f"{API}/auth/passkey/register/options", {}, format="json")
    assert response.status_code == 409
    assert response.json()["error"] == {
        "code": "CONFLICT",
        "message": "You already have 10 passkeys, the most allowed; remove one first.",
        "details": {},
    }


def test_the_last_passkey_cannot_be_removed(enrolled, member_session, member):
    only = Passkey.objects.get(user=member)
    response = member_session.delete(f"{API}/auth/passkey/{only.pk}")
    assert response.status_code == 409
    assert response.json()["error"]["message"] == (
        "This is your only passkey; add another one before removing it, so you can still sign in."
    )
    register_passkey(member_session, enrolled, name="Phone")
    removed = member_session.delete(f"{API}/auth/passkey/{only.pk}")
    assert removed.status_code == 200
    assert removed.json() == {"success": True, "data": {"success": True}}
    assert list(Passkey.objects.filter(user=member).values_list("name", flat=True)) == ["Phone"]


def test_other_peoples_passkeys_are_not_found(enrolled, member):
    passkey = Passkey.objects.get(user=member)
    intruder = ApiClient()
    intruder.force_login(make_user(Role.ADMIN))
    assert intruder.patch(f"{API}/auth/passkey/{passkey.pk}", {"name": "x"}, format="json").status_code == 404
    response = intruder.delete(f"{API}/auth/passkey/{passkey.pk}")
    assert response.status_code == 404
    assert response.json()["error"]["message"] == f"You have no passkey with id {passkey.pk}."


@pytest.mark.parametrize(("scopes", "status"), [(["admin"], 200), (["content:read", "content:write"], 403)])
def test_managing_passkeys_with_a_token_needs_the_admin_scope(scopes, status):
    user = make_user(Role.ADMIN)
    _, raw = make_token(user, scopes)
    assert ApiClient().as_token(raw).get(f"{API}/auth/passkey").status_code == status


def test_passkey_endpoints_need_a_signed_in_user(api):
    for method, path in [
        ("get", f"{API}/auth/passkey"),
        ("post", f"{API}/auth/passkey/register/options"),
        ("post", f"{API}/auth/passkey/register/verify"),
    ]:
        assert getattr(api, method)(path, {}, format="json").status_code == 401


def test_a_malformed_credential_is_refused_key_by_key(member_session):
    response = member_session.post(
        f"{API}/auth/passkey/register/verify",
        {
            "id": "a",
            "rawId": "",
            "response": "signed",
            "type": "password",
            "transports": ["usb", "x" * 33],
            "nickname": "Laptop",
        },
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "nickname": "Unknown field; allowed: authenticatorAttachment, clientExtensionResults, id, name, rawId, "
        "response, transports, type."
    }
    response = member_session.post(
        f"{API}/auth/passkey/register/verify",
        {"id": "a", "rawId": "", "response": "signed", "type": "password", "transports": ["usb", "x" * 33]},
        format="json",
    )
    assert response.json()["error"]["details"] == {
        "rawId": "This field may not be blank.",
        "response": 'Expected a dictionary of items but got type "str".',
        "type": '"password" is not a valid choice.',
        "transports.1": "Ensure this field has no more than 32 characters.",
    }
    assert Passkey.objects.count() == 0
