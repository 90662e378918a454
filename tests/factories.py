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


def make_collection(slug: str = "posts", *, label: str | None = None, supports=None, fields=(), **attributes):
    """A collection with ``fields`` (dicts in the model's names: slug, label, type, required, validation, …)."""
    from apps.schema import services as schema_services

    collection = schema_services.collection_create(
        actor=Actor.system(),
        slug=slug,
        label=label or slug.replace("_", " ").title(),
        supports=list(supports) if supports is not None else None,
        **attributes,
    )
    for definition in fields:
        make_field(collection, **definition)
    return collection


def make_field(collection, slug: str, type: str = "string", **definition):
    from apps.schema import services as schema_services

    definition.setdefault("label", slug.replace("_", " ").title())
    return schema_services.field_create(
        actor=Actor.system(), collection=collection, definition={"slug": slug, "type": type, **definition}
    )


def make_entry(collection, data=None, *, author: User | None = None, **options):
    """An entry created through the content service by the system, owned by ``author`` when given."""
    from apps.content import services as content_services

    return content_services.entry_create(
        actor=Actor.system(), collection=collection, data=data or {}, author=author, **options
    )


def make_byline(display_name: str = "Ada Lovelace", **options):
    from apps.content import services as content_services

    return content_services.byline_create(actor=Actor.system(), display_name=display_name, **options)
