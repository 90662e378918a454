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


def wav_bytes(frames: int = 800) -> bytes:
    """A real WAV sound (8 kHz mono, ``frames`` samples): audio the browser can play."""
    import io
    import wave

    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as sound:
        sound.setnchannels(1)
        sound.setsampwidth(2)
        sound.setframerate(8000)
        sound.writeframes(b"\x00\x01" * frames)
    return buffer.getvalue()


PDF_BYTES = (
    b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\n"
    b"trailer<</Root 1 0 R>>\n%%EOF\n"
)


def make_collection(slug: str = "posts", fields=(), *, label: str | None = None, supports=None, **attributes):
    """A collection made through the services, with ``fields`` given as dicts in the model's names (slug, type,
    required, validation, …) or as (slug, type) / (slug, type, {more}) tuples. Returns the cached read copy."""
    from apps.schema import services as schema_services
    from apps.schema.selectors import collection_for_read

    collection = schema_services.collection_create(
        actor=Actor.system(),
        slug=slug,
        label=label or slug.replace("_", " ").title(),
        supports=list(supports) if supports is not None else None,
        **attributes,
    )
    for spec in fields:
        if isinstance(spec, dict):
            make_field(collection, **spec)
        else:
            field_slug, field_type, *extra = spec
            make_field(collection, field_slug, field_type, **(extra[0] if extra else {}))
    return collection_for_read(slug=slug)


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


def database_url() -> str:
    """The test database as a DATABASE_URL, for a subprocess (a worker, a server) to use the same one."""
    from django.db import connection

    settings = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{settings['NAME']}"
    password = f":{settings['PASSWORD']}" if settings.get("PASSWORD") else ""
    return (
        f"postgres://{settings['USER']}{password}@{settings['HOST'] or '127.0.0.1'}:{settings['PORT'] or 5432}/"
        f"{settings['NAME']}"
    )
