"""Draft preview tokens: signed, expiring, scoped to one entry and locale.

A token is ``django.core.signing`` over ``{e: entry id, l: locale, x: expiry (Unix seconds)}`` with a dedicated salt,
keyed by Django's SECRET_KEY together with the site's preview secret (``PreviewSecret``): saving a new secret revokes
every token issued before, without touching sessions or anything else SECRET_KEY signs. The expiry is inside the
signed payload and compared with ``now()`` here, so tests move this module's clock instead of sleeping.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.core import signing

from apps.core.errors import Unauthorized
from apps.core.timefmt import now
from apps.delivery.models import PreviewSecret

SALT = "cms.delivery.preview"


@dataclass(frozen=True)
class Grant:
    entry_id: str
    locale: str
    expires_at: datetime


def preview_secret() -> str:
    """The current secret, made on first use (a race between two first uses keeps one of them)."""
    row = PreviewSecret.objects.filter(pk=1).values_list("secret", flat=True).first()
    if row is None:
        PreviewSecret.objects.get_or_create(
            pk=1, defaults={"secret": secrets.token_urlsafe(32), "rotated_at": now()}
        )
        row = PreviewSecret.objects.values_list("secret", flat=True).get(pk=1)
    return row


def _key() -> str:
    return f"{settings.SECRET_KEY}:{preview_secret()}"


def token_mint(*, entry_id: str, locale: str) -> tuple[str, Grant]:
    expires_at = (now() + timedelta(seconds=settings.CMS_PREVIEW_TOKEN_SECONDS)).replace(microsecond=0)
    payload = {"e": entry_id, "l": locale, "x": int(expires_at.timestamp())}
    return signing.dumps(payload, key=_key(), salt=SALT, compress=True), Grant(entry_id, locale, expires_at)


def token_verify(token: str) -> Grant:
    """The grant a token carries; Unauthorized when it is malformed, signed with another secret, or expired."""
    try:
        payload = signing.loads(token, key=_key(), salt=SALT)
        grant = Grant(payload["e"], payload["l"], datetime.fromtimestamp(payload["x"], tz=UTC))
    except (signing.BadSignature, KeyError, TypeError, ValueError, OverflowError):
        raise Unauthorized(
            "Invalid preview token: it was not issued here, or the preview secret was saved anew since "
            "(mint a new one with POST …/preview)."
        ) from None
    if grant.expires_at <= now():
        raise Unauthorized("The preview token has expired; mint a new one with POST …/preview.")
    return grant
