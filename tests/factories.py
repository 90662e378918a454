"""Small explicit factories: users with a role, and tokens with scopes, made through the real services."""

from __future__ import annotations

import itertools

from apps.accounts import services
from apps.accounts.models import ApiToken, Role, User
from apps.accounts.permissions import Actor

_sequence = itertools.count(1)


def make_user(role: int = Role.ADMIN, *, email: str | None = None, name: str | None = None, **fields) -> User:
    number = next(_sequence)
    label = Role(role).label if role in Role.values else f"role{role}"
    return User.objects.create_user(
        email=email or f"{label}{number}@example.com",
        name=name or f"{label.title()} {number}",
        role=role,
        **fields,
    )


def make_token(user: User, scopes=("admin",), **options) -> tuple[ApiToken, str]:
    """A token for ``user``. The service refuses scopes beyond the role, so a demotion test demotes afterwards."""
    return services.api_token_create(
        actor=Actor.system(), user=user, name=options.pop("name", "test"), scopes=list(scopes), **options
    )
