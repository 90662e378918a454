"""Invitations: an admin invites an address with a role; the invitee accepts once, within seven days, by registering
a passkey or by asking for a sign-in link, and the user is created with that role.

Only the SHA-256 of the invitation token is stored. A newer invitation for the same address revokes the older one.
Accepting locks the invitation row, so two acceptances racing each other create one user.
"""

from __future__ import annotations

import secrets
from datetime import timedelta

from django.conf import settings
from django.db import transaction

from apps.accounts import mail
from apps.accounts.errors import LinkUnusable
from apps.accounts.models import ChallengePurpose, Invitation, Role, User, normalize_email
from apps.accounts.permissions import Actor, authorize
from apps.accounts.services import passkeys
from apps.accounts.services.magic_links import magic_link_create
from apps.accounts.webauthn_ceremony import registration_options
from apps.core.errors import Forbidden, ValidationError
from apps.core.ids import new_id
from apps.core.timefmt import now

INVITATION_LIFETIME = timedelta(days=7)

MESSAGES = {
    "unknown": "This invitation link is not valid. Check that you copied all of it, or ask for a new invitation.",
    "used": "This invitation has already been accepted. Sign in instead.",
    "expired": "This invitation has expired (invitations last 7 days). Ask for a new one.",
    "revoked": "This invitation was replaced by a newer one or withdrawn. Use the newest invitation you received.",
    "exists": "An account with this address already exists. Sign in instead.",
}


def invitation_url(token: str) -> str:
    return f"{settings.CMS_BASE_URL}/_cms/admin/invite/{token}"


@transaction.atomic
def invitation_create(*, actor: Actor, email: str, role: int) -> tuple[Invitation, str]:
    """Invite ``email`` as ``role`` and mail the link; returns the invitation and its raw token (shown once)."""
    authorize(actor, "users.invite")
    if role not in Role.values:
        raise ValidationError(
            details={"role": f"Unknown role {role}; use one of {', '.join(map(str, Role.values))}."}
        )
    if role > actor.role:
        raise Forbidden(f"You cannot invite someone with a role ({role}) above your own ({actor.role}).")
    email = normalize_email(email)
    if User.objects.filter(email=email).exists():
        raise ValidationError(details={"email": "A user with this address already exists."})
    current = now()
    Invitation.objects.filter(email=email, accepted_at__isnull=True, revoked_at__isnull=True).update(
        revoked_at=current
    )
    token = secrets.token_urlsafe(32)
    invitation = Invitation.objects.create(
        email=email,
        role=role,
        token_hash=token,
        invited_by=actor.user,
        expires_at=current + INVITATION_LIFETIME,
    )
    mail.send_later(
        to=email,
        subject=f"You are invited to {settings.CMS_SITE_NAME}",
        template="cms/mail/invitation.txt",
        context={
            "url": invitation_url(token),
            "role_name": Role(role).label,
            "inviter": (actor.user.name or actor.user.email) if actor.user else settings.CMS_SITE_NAME,
            "days": INVITATION_LIFETIME.days,
        },
    )
    return invitation, token


def _state(invitation: Invitation | None) -> str:
    if invitation is None:
        return "unknown"
    if invitation.accepted_at is not None:
        return "used"
    if invitation.revoked_at is not None:
        return "revoked"
    if invitation.expires_at <= now():
        return "expired"
    return "pending"


def invitation_check(*, token: str) -> Invitation:
    """The pending invitation for ``token``; LinkUnusable says why there is none."""
    invitation = (
        Invitation.objects.select_related("invited_by").filter(token_hash=token).first() if token else None
    )
    state = _state(invitation)
    if state != "pending":
        raise LinkUnusable(state, MESSAGES[state])
    return invitation


def _accept(invitation: Invitation, *, user_id: str, name: str) -> User:
    """Mark the invitation accepted and create its user, in the caller's transaction, exactly once."""
    locked = Invitation.objects.select_for_update().get(pk=invitation.pk)
    state = _state(locked)
    if state != "pending":
        raise LinkUnusable(state, MESSAGES[state])
    if User.objects.filter(email=locked.email).exists():
        raise LinkUnusable("exists", MESSAGES["exists"])
    user = passkeys.create_user(user_id=user_id, email=locked.email, name=name.strip(), role=locked.role)
    locked.accepted_at = now()
    locked.accepted_user = user
    locked.save(update_fields=["accepted_at", "accepted_user"])
    return user


def invitation_accept_begin(*, token: str, name: str = "") -> dict:
    """Registration options for the invitee's first passkey."""
    invitation = invitation_check(token=token)
    user_id = new_id()
    challenge = passkeys.challenge_issue(
        purpose=ChallengePurpose.INVITE, invitation=invitation, data={"userId": user_id, "name": name.strip()}
    )
    return registration_options(
        challenge=challenge,
        user_handle=user_id.encode(),
        user_name=invitation.email,
        display_name=name.strip() or invitation.email,
        exclude=[],
    )


def invitation_accept_finish(*, token: str, credential: dict, passkey_name: str | None = None) -> User:
    """Create the invited user with the passkey just made; the invitation cannot be used again."""
    invitation = invitation_check(token=token)
    row, verified = passkeys.verify_new_passkey(
        credential=credential, purpose=ChallengePurpose.INVITE, invitation=invitation.pk
    )
    with transaction.atomic():
        user = _accept(invitation, user_id=row.data["userId"], name=row.data.get("name", ""))
        passkeys.passkey_store(user=user, verified=verified, credential=credential, name=passkey_name)
        return user


@transaction.atomic
def invitation_accept_with_magic_link(*, token: str, name: str = "") -> User:
    """Create the invited user without a passkey and mail them a sign-in link (which proves the mailbox)."""
    invitation = invitation_check(token=token)
    user = _accept(invitation, user_id=new_id(), name=name)
    magic_link_create(user=user)
    return user
