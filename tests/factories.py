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


# --- schema, content and media ----------------------------------------------------------------------------------------


def png_bytes(color=(200, 30, 30), size=(4, 3)) -> bytes:
    """A real PNG of ``size`` pixels; different colours give different bytes."""
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, "PNG")
    return buffer.getvalue()


PDF_BYTES = (
    b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\n"
    b"trailer<</Root 1 0 R>>\n%%EOF\n"
)


def make_collection(slug: str = "posts", fields=(("title", "string"),), **options):
    """A collection with fields given as (slug, type) or (slug, type, {extra definition}), made through the services."""
    from apps.schema import services as schema_services

    actor = Actor.system()
    collection = schema_services.collection_create(
        actor=actor, slug=slug, label=options.pop("label", slug.title()), **options
    )
    for spec in fields:
        field_slug, field_type, *extra = spec
        schema_services.field_create(
            actor=actor,
            collection=collection,
            definition={
                "slug": field_slug,
                "label": field_slug.title(),
                "type": field_type,
                **(extra[0] if extra else {}),
            },
        )
    from apps.schema.selectors import collection_for_read

    return collection_for_read(slug=slug)


def make_entry(
    collection, data: dict, *, status: str = "draft", author: User | None = None, slug: str | None = None
):
    from apps.content import services as content_services

    actor = Actor.system() if author is None else Actor.for_session(author)
    return content_services.entry_create(
        actor=actor, collection=collection, data=data, status=status, slug=slug, author=author
    )


def make_media(
    author: User | None = None, content: bytes | None = None, filename: str = "photo.png", **fields
):
    """A media item uploaded through the service (stored under MEDIA_ROOT)."""
    from django.core.files.base import ContentFile

    from apps.media import services as media_services

    actor = Actor.system() if author is None else Actor.for_session(author)
    item, _ = media_services.media_upload(
        actor=actor,
        file=ContentFile(content if content is not None else png_bytes()),
        filename=filename,
        **fields,
    )
    return item
