"""Reads for accounts. The reads a face answers with take the ``actor`` and check its permission themselves (the
same check on every face); ``user_get`` and ``user_get_by_email`` are lookups for services and commands."""

from __future__ import annotations

from django.db.models import Q

from apps.accounts.models import ApiToken, Invitation, Passkey, Role, User, normalize_email
from apps.accounts.permissions import Actor, authorize
from apps.core.errors import NotFound
from apps.core.pagination import Page, SortKey, keyset_page
from apps.core.timefmt import now

TOKEN_ORDER = (SortKey("created_at", descending=True, kind="datetime"), SortKey("id", descending=True))


def user_get(*, user_id: str) -> User:
    user = User.objects.filter(pk=user_id).first()
    if user is None:
        raise NotFound(f"No user with id {user_id}.")
    return user


def user_read(*, actor: Actor | None, user_id: str) -> User:
    authorize(actor, "users.manage")
    return user_get(user_id=user_id)


def user_get_by_email(*, email: str) -> User:
    user = User.objects.filter(email=normalize_email(email)).first()
    if user is None:
        raise NotFound(f"No user with email {email}.")
    return user


def api_token_list(
    *,
    actor: Actor | None,
    user_id: str | None = None,
    include_revoked: bool = False,
    cursor: str | None = None,
    limit: int = 50,
) -> Page[ApiToken]:
    authorize(actor, "tokens.manage")
    tokens = ApiToken.objects.select_related("user")
    if user_id:
        tokens = tokens.filter(user_id=user_id)
    if not include_revoked:
        tokens = tokens.filter(revoked_at__isnull=True)
    return keyset_page(tokens, keys=TOKEN_ORDER, cursor=cursor, limit=limit, scope="tokens")


def setup_status() -> dict:
    """SPEC §4.9 ``/setup/status``: complete once an active admin exists (by the setup page or ``cms_setup``)."""
    return {
        "setupComplete": User.objects.filter(role__gte=Role.ADMIN, is_active=True).exists(),
        "hasUsers": User.objects.exists(),
    }


def passkey_list(*, actor: Actor | None) -> list[Passkey]:
    """The actor's own passkeys."""
    authorize(actor, "account.manage")
    return list(Passkey.objects.filter(user=actor.user).order_by("created_at", "id"))


USER_ORDER = (SortKey("email"), SortKey("id"))


def user_list(
    *,
    actor: Actor | None,
    role: int | None = None,
    search: str | None = None,
    cursor: str | None = None,
    limit: int = 50,
) -> Page[User]:
    """Users by email; ``role`` keeps one role, ``search`` matches words of the email or the name."""
    authorize(actor, "users.manage")
    users = User.objects.all()
    if role is not None:
        users = users.filter(role=role)
    if search:
        for word in search.split():
            users = users.filter(Q(email__icontains=word) | Q(name__icontains=word))
    scope = f"users:{role if role is not None else ''}:{search or ''}"
    return keyset_page(users, keys=USER_ORDER, cursor=cursor, limit=limit, scope=scope)


def invitation_list_pending(
    *, actor: Actor | None, role: int | None = None, search: str | None = None, limit: int = 50
) -> list[Invitation]:
    """Invitations not yet accepted, withdrawn or expired, newest first: the people who are invited but have no
    account yet. ``role`` and ``search`` (words of the address) narrow them as ``user_list`` narrows users."""
    authorize(actor, "users.manage")
    invitations = Invitation.objects.select_related("invited_by").filter(
        accepted_at__isnull=True, revoked_at__isnull=True, expires_at__gt=now()
    )
    if role is not None:
        invitations = invitations.filter(role=role)
    if search:
        for word in search.split():
            invitations = invitations.filter(email__icontains=word)
    return list(invitations.order_by("-created_at", "-id")[:limit])
