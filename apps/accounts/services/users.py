"""Writes for users: name and role changes, enabling and disabling, with the admin protections of SPEC §4.8.

Nobody demotes or disables themselves, and the last active admin cannot lose admin rights.
"""

from __future__ import annotations

from django.db import transaction

from apps.accounts.models import Role, User
from apps.accounts.permissions import Actor, authorize
from apps.core.errors import ValidationError


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
