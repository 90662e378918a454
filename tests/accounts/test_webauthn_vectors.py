"""Our WebAuthn configuration against credentials recorded from real browsers (py-webauthn's test vectors).

The vectors were made for the relying party ``localhost`` at origin ``http://localhost:5000``, so these tests serve
from that base URL. They show that real attestations and assertions pass our checks, and that ours are stricter than
the library's defaults where we chose so (user verification is required).
"""

from __future__ import annotations

import hashlib
import json
from datetime import timedelta
from pathlib import Path

import pytest
from django.test import override_settings
from webauthn.helpers import base64url_to_bytes

from apps.accounts import webauthn_ceremony as ceremony
from apps.accounts.models import Passkey, Role, User, WebAuthnChallenge
from apps.core.timefmt import now
from tests.conftest import ApiClient
from tests.factories import make_user

DATA = Path(__file__).parent / "data" / "webauthn"
API = "/_cms/api"
pytestmark = pytest.mark.usefixtures("vector_origin")


@pytest.fixture
def vector_origin():
    with override_settings(CMS_BASE_URL="http://localhost:5000"):
        yield


def vector(name: str) -> dict:
    return json.loads((DATA / f"{name}.json").read_text())


def raw(value: dict) -> bytes:
    return base64url_to_bytes(value["base64url"])


def seed_challenge(challenge: bytes, purpose: str, **fields) -> None:
    WebAuthnChallenge.objects.create(
        challenge_hash=hashlib.sha256(challenge).hexdigest(),
        purpose=purpose,
        expires_at=now() + timedelta(minutes=5),
        **fields,
    )


def test_a_recorded_registration_creates_the_first_admin():
    kwargs = vector("reg__verifies_none_attestation_response")["kwargs"]
    seed_challenge(
        raw(kwargs["expected_challenge"]),
        "setup",
        data={"userId": "01ARZ3NDEKTSV4RRFFQ69G5FAV", "email": "owner@example.com", "name": "Owner"},
    )
    response = ApiClient().post(f"{API}/setup/passkey/verify", kwargs["credential"], format="json")
    assert response.status_code == 201
    passkey = Passkey.objects.get()
    assert passkey.user == User.objects.get(pk="01ARZ3NDEKTSV4RRFFQ69G5FAV")
    expected = vector("reg__verifies_none_attestation_response")["expected_result"]
    assert passkey.credential_id == expected["credential_id"]["base64url"]
    assert bytes(passkey.public_key) == raw(expected["credential_public_key"])
    assert passkey.sign_count == expected["sign_count"]


def test_a_recorded_registration_from_another_origin_is_refused():
    kwargs = vector("reg__verifies_none_attestation_response")["kwargs"]
    with (
        override_settings(CMS_BASE_URL="https://localhost"),
        pytest.raises(ceremony.CeremonyError) as refused,
    ):
        ceremony.verify_registration(
            credential=kwargs["credential"], challenge=raw(kwargs["expected_challenge"])
        )
    assert (
        str(refused.value)
        == 'Unexpected client data origin "http://localhost:5000", expected "https://localhost"'
    )


def test_a_recorded_user_verified_assertion_verifies():
    kwargs = vector("auth__verify_authentication_response_with_RSA_public_key")["kwargs"]
    verified = ceremony.verify_authentication(
        credential=kwargs["credential"],
        challenge=raw(kwargs["expected_challenge"]),
        public_key=raw(kwargs["credential_public_key"]),
        sign_count=kwargs["credential_current_sign_count"],
    )
    assert verified.new_sign_count == 1 and verified.user_verified is True


@pytest.mark.parametrize(
    "name",
    [
        "auth__verify_authentication_response_with_EC2_public_key",
        "auth__verify_authentication_response_with_OKP_public_key",
    ],
)
def test_recorded_assertions_without_user_verification_are_refused(name):
    kwargs = vector(name)["kwargs"]
    with pytest.raises(ceremony.CeremonyError) as refused:
        ceremony.verify_authentication(
            credential=kwargs["credential"],
            challenge=raw(kwargs["expected_challenge"]),
            public_key=raw(kwargs["credential_public_key"]),
            sign_count=kwargs["credential_current_sign_count"],
        )
    assert str(refused.value) == (
        "User verification is required but user was not verified during authentication"
    )


def _enroll(kwargs: dict, user: User) -> None:
    Passkey.objects.create(
        user=user,
        name="Recorded",
        credential_id=kwargs["credential"]["id"],
        public_key=raw(kwargs["credential_public_key"]),
        sign_count=kwargs["credential_current_sign_count"],
    )
    seed_challenge(raw(kwargs["expected_challenge"]), "sign_in")


def test_a_recorded_assertion_without_user_verification_does_not_sign_in():
    kwargs = vector("auth__raises_exception_on_uv_required_but_false")["kwargs"]
    _enroll(kwargs, make_user(Role.EDITOR))
    response = ApiClient().post(f"{API}/auth/passkey/verify", kwargs["credential"], format="json")
    assert response.status_code == 401
    assert response.json()["error"]["message"] == (
        "The passkey could not be verified: User verification is required but user was not verified during "
        "authentication"
    )


def test_a_recorded_assertion_for_another_users_handle_does_not_sign_in():
    kwargs = vector("auth__verify_authentication_response_with_RSA_public_key")["kwargs"]
    _enroll(kwargs, make_user(Role.EDITOR))
    response = ApiClient().post(f"{API}/auth/passkey/verify", kwargs["credential"], format="json")
    assert response.status_code == 401
    assert response.json()["error"]["message"] == (
        "The passkey could not be verified: The assertion's user handle does not belong to this passkey."
    )
