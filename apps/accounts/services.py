"""Writes for accounts: the first admin, users, and personal access tokens.

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


def api_token_authenticate(raw: str) -> ApiToken:
    """The live token for ``raw`` with its user loaded, or Unauthorized saying why not."""
    token = ApiToken.objects.select_related("user").filter(token_hash=hash_token(raw)).first()
    if token is None:
        raise Unauthorized("Invalid token.")
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


# --- users ----------------------------------------------------------------------------------------------------------


def _other_active_admins(user: User) -> int:
    """Active admins besides ``user``, with their rows locked so two concurrent demotions cannot both pass."""
    admins = list(
        User.objects.select_for_update()
        .filter(role__gte=Role.ADMIN, is_active=True)
        .values_list("pk", flat=True)
    )
    return len([pk for pk in admins if pk != user.pk])


def _protect_admins(actor: Actor, user: User, *, what: str, field: str) -> None:
    if actor.user_id == user.pk:
        raise ValidationError(
            f"You cannot {what} yourself; ask another admin.", details={field: f"You cannot {what} yourself."}
        )
    if user.role >= Role.ADMIN and user.is_active and _other_active_admins(user) == 0:
        raise ValidationError(
            f"{user.email} is the last active admin; make someone else admin first.",
            details={field: "The last active admin cannot lose admin rights."},
        )


@transaction.atomic
def user_update(*, actor: Actor, user: User, name: str | None = None, role: int | None = None) -> User:
    """Change a user's name and role (admins only). Nobody demotes themselves, and the last active admin stays one."""
    authorize(actor, "users.manage")
    user = User.objects.select_for_update().get(pk=user.pk)
    if role is not None and role != user.role:
        if role not in Role.values:
            allowed = ", ".join(f"{value} ({Role(value).label})" for value in Role.values)
            raise ValidationError(details={"role": f"Unknown role {role}; roles: {allowed}."})
        if role < user.role and user.role >= Role.ADMIN:
            _protect_admins(actor, user, what="demote", field="role")
        user.role = role
    if name is not None:
        user.name = name.strip()
    user.save()
    return user


@transaction.atomic
def user_set_active(*, actor: Actor, user: User, active: bool) -> User:
    """Enable or disable an account. A disabled user's tokens and sessions stop working on their next request (both
    check ``is_active``); enabling brings the tokens back."""
    authorize(actor, "users.manage")
    user = User.objects.select_for_update().get(pk=user.pk)
    if user.is_active == active:
        return user
    if not active:
        _protect_admins(actor, user, what="disable", field="active")
    user.is_active = active
    user.save(update_fields=["is_active", "updated_at"])
    return user
