"""Writes for personal access tokens, and the first admin created from the command line.

A personal access token is ``ec_pat_`` followed by 32 random bytes in base64url (256 bits). Only its SHA-256 digest
and a short display prefix are stored: a database leak reveals no usable token, and with this much entropy a fast hash
is as safe as a slow one (nobody can guess candidates to try). The raw token is returned once, at creation.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta

from django.db import transaction

from apps.accounts.errors import ScopeNotAllowed
from apps.accounts.models import ApiToken, Role, User, normalize_email
from apps.accounts.permissions import SCOPES, Actor, allowed_scopes, authorize
from apps.core.db.prepared import PreparedQuery
from apps.core.db.request_scalars import keep_request_scalars, request_scalar_annotations
from apps.core.errors import NotFound, Unauthorized, ValidationError
from apps.core.timefmt import iso, now

TOKEN_PREFIX = "ec_pat_"  # noqa: S105 (a prefix, not a secret)
# Writing last_used_at on every request would turn reads into writes; once a minute is precise enough to audit.
LAST_USED_RESOLUTION = timedelta(seconds=60)


def hash_token(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


@transaction.atomic
def admin_setup(*, email: str, name: str = "Admin") -> tuple[User, bool]:
    """Create the first admin. Returns (admin, created); when an admin exists already, nothing changes."""
    existing = User.objects.filter(role__gte=Role.ADMIN, is_active=True).order_by("created_at").first()
    if existing is not None:
        return existing, False
    user, _ = User.objects.get_or_create(
        email=normalize_email(email), defaults={"name": name, "role": Role.ADMIN}
    )
    if user.role < Role.ADMIN or not user.is_active:
        user.role, user.is_active = Role.ADMIN, True
        user.save(update_fields=["role", "is_active", "updated_at"])
    return user, True


def _validate_scopes(user: User, scopes: list[str]) -> list[str]:
    unknown = [scope for scope in scopes if scope not in SCOPES]
    if unknown:
        raise ValidationError(
            details={"scopes": f"Unknown scope(s) {', '.join(unknown)}; allowed: {', '.join(SCOPES)}."}
        )
    if not scopes:
        raise ValidationError(details={"scopes": "Give at least one scope."})
    beyond = sorted(set(scopes) - allowed_scopes(user.role))
    if beyond:
        raise ScopeNotAllowed(
            details={"scopes": f"The role {user.role_name} ({user.role}) cannot use: {', '.join(beyond)}."}
        )
    # Keep the caller's order, without repeats.
    return list(dict.fromkeys(scopes))


@transaction.atomic
def api_token_create(
    *, actor: Actor, user: User, name: str, scopes: list[str], expires_at: datetime | None = None
) -> tuple[ApiToken, str]:
    """Create a token for ``user``; returns the record and the raw token, which is not stored and not shown again."""
    authorize(actor, "tokens.manage")
    scopes = _validate_scopes(user, scopes)
    if expires_at is not None and expires_at <= now():
        raise ValidationError(details={"expiresAt": f"Must be in the future (now is {iso(now())})."})
    if not user.is_active:
        raise ValidationError(details={"userId": "The user is disabled."})
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user,
        name=name.strip(),
        token_hash=hash_token(raw),
        prefix=raw[: len(TOKEN_PREFIX) + 4],
        scopes=scopes,
        expires_at=expires_at,
    )
    return token, raw


@transaction.atomic
def api_token_revoke(*, actor: Actor, token_id: str) -> ApiToken:
    authorize(actor, "tokens.manage")
    token = ApiToken.objects.select_for_update().filter(pk=token_id).first()
    if token is None:
        raise NotFound(f"No API token with id {token_id}.")
    if token.revoked_at is None:
        token.revoked_at = now()
        token.save(update_fields=["revoked_at"])
    return token


# Every API request looks its token up: compiled once (see PreparedQuery). It also carries the values other apps
# check on every request (apps.core.db.request_scalars.register_request_scalar), saving each its own round trip.
_TOKEN_BY_HASH = PreparedQuery(
    lambda token_hash: (
        ApiToken.objects.select_related("user")
        .filter(token_hash=token_hash)
        .annotate(**request_scalar_annotations())[:1]
    ),
    "token_hash",
)


def api_token_authenticate(raw: str) -> ApiToken:
    """The live token for ``raw`` with its user loaded, or Unauthorized saying why not."""
    token = _TOKEN_BY_HASH.first(token_hash=hash_token(raw))
    if token is None:
        raise Unauthorized("Invalid token.")
    keep_request_scalars(token)
    current = now()
    if token.revoked_at is not None:
        raise Unauthorized("This token has been revoked.")
    if token.expires_at is not None and token.expires_at <= current:
        raise Unauthorized(f"This token expired at {iso(token.expires_at)}.")
    if not token.user.is_active:
        raise Unauthorized("The account this token belongs to is disabled.")
    if token.last_used_at is None or current - token.last_used_at >= LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=current)
        token.last_used_at = current
    return token
