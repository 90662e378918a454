"""Magic links: a sign-in link by mail, single use, valid for ten minutes, only its SHA-256 stored.

Asking for a link answers the same whatever the address (SPEC §4.9), and does the same work: the same queries run,
a link row is written (without a user for an address that has no active account: its token is never sent and signs
nobody in), the mail is rendered and handed over to the delivery thread, which drops it instead of sending it; mail
leaves after the request (apps/accounts/mail.py). So neither the answer nor its timing tells whether an account
exists. Opening the link shows a page whose button POSTs the token; only that POST consumes it, so mail scanners that
fetch links neither use nor burn them. Consuming is one conditional UPDATE, so of two simultaneous
uses exactly one signs in.
"""

from __future__ import annotations

import secrets
from datetime import timedelta

from django.conf import settings
from django.db import transaction

from apps.accounts import mail
from apps.accounts.errors import LinkUnusable
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


def _link_mail(*, email: str, user: User | None, next_url: str):
    """Write a link row for ``user`` (None: an address without an account) and render its mail; (token, message)."""
    token = secrets.token_urlsafe(32)
    current = now()
    MagicLink.objects.filter(expires_at__lte=current - MAGIC_LINK_LIFETIME).delete()
    MagicLink.objects.create(
        user=user,
        token_hash=token,
        expires_at=current + MAGIC_LINK_LIFETIME,
        next_url=_storable_next(next_url),
    )
    message = mail.prepare(
        to=email,
        subject=f"Sign in to {settings.CMS_SITE_NAME}",
        template="cms/mail/magic_link.txt",
        context={"user": user, "url": magic_link_url(token), "minutes": 10},
    )
    return token, message


def magic_link_create(*, user: User, next_url: str = "") -> str:
    """A new link for ``user`` (in the caller's transaction), mailed after commit; returns the raw token.

    ``next_url`` is where the user goes once the link has signed them in (a path on this site the caller checked)."""
    token, message = _link_mail(email=user.email, user=user, next_url=next_url)
    mail.send_after_commit(message)
    return token


@transaction.atomic
def magic_link_request(*, email: str, next_url: str = "") -> None:
    """Mail a sign-in link to ``email`` if it belongs to an active user; otherwise do the same work and send nothing.

    ``next_url``: where to go after signing in, a path on this site the caller has checked (``sessions.safe_next``)."""
    email = normalize_email(email)
    user = User.objects.filter(email=email, is_active=True).first()
    # The same row write, rendering and hand-over for an unknown address; only the mail server never sees it.
    _, message = _link_mail(email=email, user=user, next_url=next_url)
    mail.send_after_commit(message, deliver=user is not None)


def magic_link_status(*, token: str) -> tuple[str, MagicLink | None]:
    """("valid" | "unknown" | "used" | "expired" | "disabled", link) without consuming anything (the GET page)."""
    link = MagicLink.objects.select_related("user").filter(token_hash=token).first() if token else None
    if link is None or link.user is None:
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
