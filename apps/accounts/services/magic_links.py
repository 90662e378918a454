"""Magic links: a sign-in link by mail, single use, valid for ten minutes, only its SHA-256 stored.

Asking for a link answers the same whatever the address (SPEC §4.9): the same checks run, a token is generated either
way, and mail leaves after the request (apps/accounts/mail.py), so neither the answer nor its timing tells whether an
account exists. Opening the link shows a page whose button POSTs the token; only that POST consumes it, so mail
scanners that fetch links neither use nor burn them. Consuming is one conditional UPDATE, so of two simultaneous
uses exactly one signs in.
"""

from __future__ import annotations

import secrets
from datetime import timedelta

from django.conf import settings
from django.db import transaction

from apps.accounts import mail
from apps.accounts.errors import LinkUnusable
from apps.accounts.fields import sha256_hex
from apps.accounts.models import MagicLink, User, normalize_email
from apps.core.timefmt import now

MAGIC_LINK_LIFETIME = timedelta(minutes=10)

MESSAGES = {
    "unknown": "This sign-in link is not valid. Check that you copied all of it, or ask for a new one.",
    "used": "This sign-in link has already been used. Ask for a new one if you need to sign in again.",
    "expired": "This sign-in link has expired (links last 10 minutes). Ask for a new one.",
    "disabled": "The account this link belongs to is disabled.",
}


def magic_link_url(token: str) -> str:
    return f"{settings.CMS_BASE_URL}{settings.CMS_API_PREFIX}/auth/magic-link/verify?token={token}"


def _storable_next(next_url: str) -> str:
    # The caller has checked that it is a path on this site. One too long to store is dropped: the person then lands
    # on the account page after signing in, which is better than a cut-off address.
    return next_url if len(next_url) <= MagicLink._meta.get_field("next_url").max_length else ""


def magic_link_create(*, user: User, next_url: str = "") -> str:
    """A new link for ``user`` (in the caller's transaction), mailed after commit; returns the raw token.

    ``next_url`` is where the user goes once the link has signed them in (a path on this site the caller checked)."""
    token = secrets.token_urlsafe(32)
    current = now()
    MagicLink.objects.filter(expires_at__lte=current - MAGIC_LINK_LIFETIME).delete()
    MagicLink.objects.create(
        user=user,
        token_hash=token,
        expires_at=current + MAGIC_LINK_LIFETIME,
        next_url=_storable_next(next_url),
    )
    mail.send_later(
        to=user.email,
        subject=f"Sign in to {settings.CMS_SITE_NAME}",
        template="cms/mail/magic_link.txt",
        context={"user": user, "url": magic_link_url(token), "minutes": 10},
    )
    return token


@transaction.atomic
def magic_link_request(*, email: str, next_url: str = "") -> None:
    """Mail a sign-in link to ``email`` if it belongs to an active user; otherwise do the same work and send nothing.

    ``next_url``: where to go after signing in, a path on this site the caller has checked (``sessions.safe_next``)."""
    user = User.objects.filter(email=normalize_email(email), is_active=True).first()
    if user is None:
        sha256_hex(secrets.token_urlsafe(32))  # the token work the other branch does, so both cost the same
        return
    magic_link_create(user=user, next_url=next_url)


def magic_link_status(*, token: str) -> tuple[str, MagicLink | None]:
    """("valid" | "unknown" | "used" | "expired" | "disabled", link) without consuming anything (the GET page)."""
    link = MagicLink.objects.select_related("user").filter(token_hash=token).first() if token else None
    if link is None:
        return "unknown", None
    if link.used_at is not None:
        return "used", link
    if link.expires_at <= now():
        return "expired", link
    if not link.user.is_active:
        return "disabled", link
    return "valid", link


@transaction.atomic
def magic_link_consume(*, token: str) -> MagicLink:
    """Use the link once and return it (with its user, and where they were going); LinkUnusable says why it cannot
    be used."""
    state, link = magic_link_status(token=token)
    if state != "valid":
        raise LinkUnusable(state, MESSAGES[state])
    used = MagicLink.objects.filter(pk=link.pk, used_at__isnull=True, expires_at__gt=now()).update(
        used_at=now()
    )
    if used != 1:
        raise LinkUnusable("used", MESSAGES["used"])
    return link
