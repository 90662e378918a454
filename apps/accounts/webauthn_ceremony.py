"""The two WebAuthn ceremonies (W3C Web Authentication Level 3, §7) with py-webauthn, configured for this service.

The relying party id is the host of ``CMS_BASE_URL`` and the only accepted origin is its origin (§7.1 step 9, §7.2
step 13): a passkey created for this service cannot be exercised from any other site. User verification is required
in both ceremonies, passkeys are discoverable credentials (sign-in needs no user name), and attestation is not asked
for (``none``): we trust the key, not the authenticator's make. Challenges are 32 random bytes; the services store and
consume them (apps/accounts/services/passkeys.py).
"""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from django.conf import settings
from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import base64url_to_bytes, parse_client_data_json
from webauthn.helpers.exceptions import InvalidAuthenticationResponse, InvalidRegistrationResponse
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    AuthenticatorTransport,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

# How long the browser may take, and how long a challenge stays valid on our side.
TIMEOUT_SECONDS = 5 * 60


class CeremonyError(Exception):
    """The credential does not verify; the message says why, for the person and the log."""


def relying_party() -> tuple[str, str]:
    """(rp id, origin) from CMS_BASE_URL."""
    parts = urlsplit(settings.CMS_BASE_URL)
    return parts.hostname or "localhost", f"{parts.scheme}://{parts.netloc}"


def _descriptor(credential_id: str, transports: list[str]) -> PublicKeyCredentialDescriptor:
    known = {item.value for item in AuthenticatorTransport}
    return PublicKeyCredentialDescriptor(
        id=base64url_to_bytes(credential_id),
        transports=[AuthenticatorTransport(t) for t in transports if t in known] or None,
    )


def registration_options(
    *,
    challenge: bytes,
    user_handle: bytes,
    user_name: str,
    display_name: str,
    exclude: list[tuple[str, list[str]]],
) -> dict:
    """PublicKeyCredentialCreationOptions as JSON (§5.4); ``exclude`` lists (credential id, transports) the user
    already has, so an authenticator does not make a second passkey for the same account."""
    rp_id, _ = relying_party()
    options = generate_registration_options(
        rp_id=rp_id,
        rp_name=settings.CMS_SITE_NAME,
        user_id=user_handle,
        user_name=user_name,
        user_display_name=display_name or user_name,
        challenge=challenge,
        timeout=TIMEOUT_SECONDS * 1000,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED,
            user_verification=UserVerificationRequirement.REQUIRED,
        ),
        exclude_credentials=[_descriptor(cid, transports) for cid, transports in exclude],
    )
    return json.loads(options_to_json(options))


def authentication_options(*, challenge: bytes) -> dict:
    """PublicKeyCredentialRequestOptions as JSON (§5.5), with no allowCredentials: the authenticator offers the
    passkeys it holds for this relying party and the assertion names the one chosen."""
    rp_id, _ = relying_party()
    options = generate_authentication_options(
        rp_id=rp_id,
        challenge=challenge,
        timeout=TIMEOUT_SECONDS * 1000,
        user_verification=UserVerificationRequirement.REQUIRED,
    )
    return json.loads(options_to_json(options))


def client_challenge(credential: dict) -> bytes:
    """The challenge the browser put in clientDataJSON. Untrusted until the ceremony verifies: it only tells us which
    stored challenge to consume, and verification then checks the signature over the same clientDataJSON."""
    try:
        client_data = parse_client_data_json(base64url_to_bytes(credential["response"]["clientDataJSON"]))
    except Exception as exc:  # malformed JSON, bad base64, missing keys: all the same to the caller
        raise CeremonyError("The credential's clientDataJSON is missing or malformed.") from exc
    return client_data.challenge


def verify_registration(*, credential: dict, challenge: bytes):
    rp_id, origin = relying_party()
    try:
        return verify_registration_response(
            credential=credential,
            expected_challenge=challenge,
            expected_rp_id=rp_id,
            expected_origin=origin,
            require_user_verification=True,
        )
    except (InvalidRegistrationResponse, ValueError, KeyError, TypeError) as exc:
        raise CeremonyError(str(exc) or "The new passkey could not be verified.") from exc


def verify_authentication(*, credential: dict, challenge: bytes, public_key: bytes, sign_count: int):
    rp_id, origin = relying_party()
    try:
        return verify_authentication_response(
            credential=credential,
            expected_challenge=challenge,
            expected_rp_id=rp_id,
            expected_origin=origin,
            credential_public_key=public_key,
            credential_current_sign_count=sign_count,
            require_user_verification=True,
        )
    except (InvalidAuthenticationResponse, ValueError, KeyError, TypeError) as exc:
        raise CeremonyError(str(exc) or "The passkey could not be verified.") from exc


def user_handle_of(credential: dict) -> bytes | None:
    """The userHandle an assertion carries (set by discoverable credentials), or None."""
    handle = (credential.get("response") or {}).get("userHandle")
    if not handle:
        return None
    try:
        return base64url_to_bytes(handle)
    except Exception as exc:
        raise CeremonyError("The assertion's userHandle is not base64url.") from exc
