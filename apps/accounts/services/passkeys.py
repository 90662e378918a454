"""Passkeys: the challenges of both WebAuthn ceremonies, registration, sign-in, rename, removal, first-admin setup.

A challenge is stored (as its SHA-256) with the purpose it was issued for and, for registration, the user or the
invitation it belongs to. Finishing a ceremony deletes the challenge row in one statement *before* the credential is
verified, and the delete commits on its own: a challenge can be presented once, whether the attempt succeeds or not,
so a captured assertion cannot be replayed (Web Authentication §13.4.3). Challenges expire after five minutes.

On sign-in the stored sign counter must grow when either side is non-zero (§6.1.1, a cloned authenticator shows an
old count) and the new count is stored. A user has at most ``CMS_MAX_PASSKEYS_PER_USER`` passkeys, and cannot remove
the last one (magic links depend on working mail, so they do not count as a way back in).
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from webauthn.helpers import bytes_to_base64url

from apps.accounts import webauthn_ceremony as ceremony
from apps.accounts.errors import PasskeyRejected
from apps.accounts.models import (
    ChallengePurpose,
    InstanceSetup,
    Invitation,
    Passkey,
    Role,
    User,
    WebAuthnChallenge,
    normalize_email,
)
from apps.accounts.permissions import Actor, authorize
from apps.core.errors import Conflict, Forbidden, NotFound, ValidationError
from apps.core.ids import new_id
from apps.core.timefmt import now

CHALLENGE_LIFETIME = timedelta(seconds=ceremony.TIMEOUT_SECONDS)
SETUP_CLOSED = "Setup is complete: this service already has users. Sign in instead."


def _challenge_hash(challenge: bytes) -> str:
    return hashlib.sha256(challenge).hexdigest()


def challenge_issue(
    *,
    purpose: str,
    user: User | None = None,
    invitation: Invitation | None = None,
    data: dict | None = None,
) -> bytes:
    """A new random challenge, remembered for five minutes for ``purpose``."""
    current = now()
    # Expired challenges are useless; clearing them here keeps the table at the size of the last five minutes.
    WebAuthnChallenge.objects.filter(expires_at__lte=current).delete()
    challenge = secrets.token_bytes(32)
    WebAuthnChallenge.objects.create(
        challenge_hash=_challenge_hash(challenge),
        purpose=purpose,
        user=user,
        invitation=invitation,
        data=data or {},
        expires_at=current + CHALLENGE_LIFETIME,
    )
    return challenge


def challenge_consume(*, credential: dict, purpose: str) -> tuple[WebAuthnChallenge, bytes]:
    """Delete the challenge this credential answers and return it with its bytes; CeremonyError when there is none.

    The delete is its own statement, outside any caller's transaction when called from a request, so a failed
    verification afterwards does not give the challenge back.
    """
    challenge = ceremony.client_challenge(credential)
    row = WebAuthnChallenge.objects.filter(challenge_hash=_challenge_hash(challenge), purpose=purpose).first()
    # Two requests with the same challenge both find the row; only the one whose delete removes it goes on.
    if row is None or WebAuthnChallenge.objects.filter(pk=row.pk).delete()[0] != 1:
        raise ceremony.CeremonyError(
            "This challenge is unknown or was already used; request new options and try again."
        )
    if row.expires_at <= now():
        raise ceremony.CeremonyError("This challenge expired (they last five minutes); request new options.")
    return row, challenge


def _user_handle(user_id: str) -> bytes:
    # The WebAuthn user handle is the user's ULID: stable, unique, and no personal data (§14.6.1).
    return user_id.encode()


def _registration_invalid(message: str) -> ValidationError:
    return ValidationError(f"The passkey could not be registered: {message}", details={"credential": message})


def verify_new_passkey(*, credential: dict, purpose: str, **binding) -> tuple[WebAuthnChallenge, object]:
    """Consume the challenge, check it was issued for the same user/invitation, and verify the attestation."""
    try:
        row, challenge = challenge_consume(credential=credential, purpose=purpose)
        for name, expected in binding.items():
            if getattr(row, f"{name}_id") != expected:
                raise ceremony.CeremonyError(f"This challenge was issued for another {name}.")
        return row, ceremony.verify_registration(credential=credential, challenge=challenge)
    except ceremony.CeremonyError as exc:
        raise _registration_invalid(str(exc)) from exc


def _own_user(actor: Actor) -> User:
    if actor.user is None:
        raise ValidationError("Passkeys belong to a user; this actor has none.", details={})
    return actor.user


def passkey_store(*, user: User, verified, credential: dict, name: str | None) -> Passkey:
    """Save a verified new passkey for ``user`` (in the caller's transaction), within the per-user limit."""
    User.objects.select_for_update().filter(pk=user.pk).first()  # one registration per user at a time
    count = Passkey.objects.filter(user=user).count()
    limit = settings.CMS_MAX_PASSKEYS_PER_USER
    if count >= limit:
        raise Conflict(f"You already have {limit} passkeys, the most allowed; remove one first.")
    credential_id = bytes_to_base64url(verified.credential_id)
    if Passkey.objects.filter(credential_id=credential_id).exists():
        raise _registration_invalid("This passkey is already registered.")
    transports = (credential.get("response") or {}).get("transports") or credential.get("transports") or []
    return Passkey.objects.create(
        user=user,
        name=(name or "").strip()[:100] or f"Passkey {count + 1}",
        credential_id=credential_id,
        public_key=verified.credential_public_key,
        sign_count=verified.sign_count,
        transports=[t for t in transports if isinstance(t, str)][:10],
        aaguid=str(verified.aaguid or ""),
        backed_up=bool(verified.credential_backed_up),
        device_type=str(getattr(verified.credential_device_type, "value", "") or ""),
    )


# --- Sign-in --------------------------------------------------------------------------------------------------------


def passkey_sign_in_begin() -> dict:
    return ceremony.authentication_options(challenge=challenge_issue(purpose=ChallengePurpose.SIGN_IN))


def passkey_sign_in_finish(*, credential: dict) -> User:
    """The user whose passkey produced this assertion, after every check of §7.2; PasskeyRejected otherwise."""
    try:
        _, challenge = challenge_consume(credential=credential, purpose=ChallengePurpose.SIGN_IN)
    except ceremony.CeremonyError as exc:
        raise PasskeyRejected(str(exc)) from exc
    passkey = (
        Passkey.objects.select_related("user").filter(credential_id=str(credential.get("id", ""))).first()
    )
    if passkey is None:
        raise PasskeyRejected("This passkey is not registered here; sign in another way and add it.")
    try:
        handle = ceremony.user_handle_of(credential)
        if handle is not None and handle != _user_handle(passkey.user_id):
            raise ceremony.CeremonyError("The assertion's user handle does not belong to this passkey.")
        verified = ceremony.verify_authentication(
            credential=credential,
            challenge=challenge,
            public_key=bytes(passkey.public_key),
            sign_count=passkey.sign_count,
        )
    except ceremony.CeremonyError as exc:
        raise PasskeyRejected(f"The passkey could not be verified: {exc}") from exc
    if not passkey.user.is_active:
        raise PasskeyRejected("This account is disabled.")
    Passkey.objects.filter(pk=passkey.pk).update(backed_up=verified.credential_backed_up, last_used_at=now())
    # Only ever forward: of two sign-ins verified at the same time, the higher count is the one that stays.
    Passkey.objects.filter(pk=passkey.pk, sign_count__lt=verified.new_sign_count).update(
        sign_count=verified.new_sign_count
    )
    return passkey.user


# --- A signed-in user's passkeys ------------------------------------------------------------------------------------


def passkey_register_begin(*, actor: Actor) -> dict:
    authorize(actor, "account.manage")
    user = _own_user(actor)
    existing = list(Passkey.objects.filter(user=user).values_list("credential_id", "transports"))
    if len(existing) >= settings.CMS_MAX_PASSKEYS_PER_USER:
        raise Conflict(
            f"You already have {settings.CMS_MAX_PASSKEYS_PER_USER} passkeys, the most allowed; remove one first."
        )
    challenge = challenge_issue(purpose=ChallengePurpose.REGISTER, user=user)
    return ceremony.registration_options(
        challenge=challenge,
        user_handle=_user_handle(user.pk),
        user_name=user.email,
        display_name=user.name,
        exclude=existing,
    )


def passkey_register_finish(*, actor: Actor, credential: dict, name: str | None = None) -> Passkey:
    authorize(actor, "account.manage")
    user = _own_user(actor)
    _, verified = verify_new_passkey(credential=credential, purpose=ChallengePurpose.REGISTER, user=user.pk)
    with transaction.atomic():
        return passkey_store(user=user, verified=verified, credential=credential, name=name)


def _own_passkey(actor: Actor, passkey_id: str) -> Passkey:
    passkey = Passkey.objects.filter(pk=passkey_id, user=_own_user(actor)).first()
    if passkey is None:
        raise NotFound(f"You have no passkey with id {passkey_id}.")
    return passkey


@transaction.atomic
def passkey_rename(*, actor: Actor, passkey_id: str, name: str) -> Passkey:
    authorize(actor, "account.manage")
    passkey = _own_passkey(actor, passkey_id)
    name = name.strip()
    if not name:
        raise ValidationError(details={"name": "Give the passkey a name, e.g. 'Laptop'."})
    passkey.name = name[:100]
    passkey.save(update_fields=["name"])
    return passkey


@transaction.atomic
def passkey_delete(*, actor: Actor, passkey_id: str) -> None:
    authorize(actor, "account.manage")
    User.objects.select_for_update().filter(pk=_own_user(actor).pk).first()
    passkey = _own_passkey(actor, passkey_id)
    if Passkey.objects.filter(user_id=passkey.user_id).count() <= 1:
        raise Conflict(
            "This is your only passkey; add another one before removing it, so you can still sign in."
        )
    passkey.delete()


# --- First admin through the setup page -----------------------------------------------------------------------------


def setup_is_open() -> bool:
    return not User.objects.exists()


def setup_begin(*, email: str, name: str = "") -> dict:
    """Registration options for the first admin, while the service has no user at all."""
    if not setup_is_open():
        raise Forbidden(SETUP_CLOSED)
    user_id = new_id()
    email = normalize_email(email)
    name = name.strip() or "Admin"
    challenge = challenge_issue(
        purpose=ChallengePurpose.SETUP, data={"userId": user_id, "email": email, "name": name}
    )
    return ceremony.registration_options(
        challenge=challenge, user_handle=_user_handle(user_id), user_name=email, display_name=name, exclude=[]
    )


def setup_finish(*, credential: dict, passkey_name: str | None = None) -> User:
    """Create the first admin with this passkey. Only one setup can ever succeed, even when two race."""
    if not setup_is_open():
        raise Forbidden(SETUP_CLOSED)
    row, verified = verify_new_passkey(credential=credential, purpose=ChallengePurpose.SETUP)
    try:
        with transaction.atomic():
            # The fixed primary key makes a concurrent second setup wait here and then fail.
            InstanceSetup.objects.create(id=1)
            if User.objects.exists():
                raise Forbidden(SETUP_CLOSED)
            user = create_user(
                user_id=row.data["userId"], email=row.data["email"], name=row.data["name"], role=Role.ADMIN
            )
            passkey_store(user=user, verified=verified, credential=credential, name=passkey_name)
            InstanceSetup.objects.filter(id=1).update(admin=user)
            return user
    except IntegrityError as exc:
        raise Forbidden(SETUP_CLOSED) from exc


def create_user(*, user_id: str, email: str, name: str, role: int) -> User:
    user = User(id=user_id, email=normalize_email(email), name=name, role=role)
    user.set_unusable_password()
    user.save(force_insert=True)
    return user
