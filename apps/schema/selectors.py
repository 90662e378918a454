"""Reads of the schema.

The reads a face answers with (``collection_list``, ``collection_read``, ``field_list``, ``field_read``) authorize
the reader (``schema.read``); ``collection_get`` and ``field_get`` find what a service is about to change (the service
authorizes), and the cached reads below serve content and the other apps, which check their own operations.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import Prefetch, Subquery

from apps.accounts.permissions import Actor, authorize
from apps.core.db.request_scalars import (
    NOT_KEPT,
    forget_request_scalar,
    keep_request_scalar,
    request_scalar,
)
from apps.core.errors import NotFound
from apps.core.replicas import read_alias
from apps.schema.models import Collection, Field, SchemaVersion

# Field types whose value can stand for an entry's title, and the slugs preferred among them.
TITLE_TYPES = ("string", "text")
TITLE_NAMES = ("title", "name")


def _with_fields(queryset):
    return queryset.prefetch_related(
        Prefetch("fields", queryset=Field.objects.order_by("sort_order", "created_at"))
    )


def collection_list(*, actor: Actor | None, with_fields: bool = False) -> list[Collection]:
    authorize(actor, "schema.read")
    queryset = Collection.objects.order_by("slug")
    return list(_with_fields(queryset) if with_fields else queryset)


def collection_read(*, actor: Actor | None, slug: str, with_fields: bool = True) -> Collection:
    authorize(actor, "schema.read")
    return collection_get(slug=slug, with_fields=with_fields)


def field_list(*, actor: Actor | None, collection: str) -> list[Field]:
    """The fields of the collection with slug ``collection``, in order."""
    return list(collection_read(actor=actor, slug=collection).fields.all())


def field_read(*, actor: Actor | None, collection: str, slug: str) -> Field:
    return field_get(collection=collection_read(actor=actor, slug=collection), slug=slug)


def collection_get(*, slug: str, with_fields: bool = True) -> Collection:
    """The collection for a service to act on (the service authorizes), or NOT_FOUND naming the others."""
    queryset = Collection.objects.filter(slug=slug)
    collection = (_with_fields(queryset) if with_fields else queryset).first()
    if collection is None:
        known = (
            ", ".join(Collection.objects.order_by("slug").values_list("slug", flat=True)[:50]) or "none yet"
        )
        raise NotFound(f"No collection '{slug}'; collections: {known}.")
    return collection


def field_get(*, collection: Collection, slug: str) -> Field:
    field = next((field for field in collection.fields.all() if field.slug == slug), None)
    if field is None:
        known = ", ".join(field.slug for field in collection.fields.all()) or "none yet"
        raise NotFound(f"No field '{slug}' in collection '{collection.slug}'; fields: {known}.")
    return field


# --- the per-process read cache ---------------------------------------------------------------------------------------

_cache: dict[str, Collection] = {}
_cache_token: str | None = None
REQUEST_SCALAR = "schema_version"
# Values other apps derive from the schema (which taxonomies apply to a collection), dropped with the collections.
_derived: dict[str, Any] = {}
T = TypeVar("T")


def version_token_expression() -> Subquery:
    """The schema's version token as a scalar subquery, read alongside each request's first query (apps.py)."""
    return Subquery(SchemaVersion.objects.filter(pk=1).values("token")[:1])


def _current_token(*, fresh: bool) -> str | None:
    if not fresh:
        kept = request_scalar(REQUEST_SCALAR)
        if kept is not NOT_KEPT:
            return kept
    # A fresh token (a write's) comes from the primary; a read's from where the request reads (apps/core/replicas.py).
    with connections[DEFAULT_DB_ALIAS if fresh else read_alias()].cursor() as cursor:
        # The table name is the model's own, never input.
        cursor.execute(f"SELECT token FROM {SchemaVersion._meta.db_table} WHERE id = 1")  # noqa: S608  # nosec B608
        row = cursor.fetchone()
    token = row[0] if row else None
    if not fresh:
        # Requests without a bearer token (anonymous public reads) read it once, not at every schema read.
        keep_request_scalar(REQUEST_SCALAR, token)
    return token


def collection_for_read(
    *, slug: str | None = None, collection_id: str | None = None, fresh: bool = False
) -> Collection:
    """The collection (by slug or id) with its fields, from this process's cache while the schema is unchanged.

    The schema's version token (changed by every schema write, in its transaction) says whether the cache is current;
    reads then skip loading the collection and its fields. A request with a bearer token has read the token alongside
    its token lookup; otherwise one small query reads it. Writes pass ``fresh=True`` inside their transaction, so they
    validate against the definition current at that moment. The cached objects are shared: never modify them."""
    _revalidate(fresh=fresh)
    key = f"slug:{slug}" if slug is not None else f"id:{collection_id}"
    collection = _cache.get(key)
    if collection is None:
        if slug is not None:
            collection = collection_get(slug=slug, with_fields=True)
        else:
            found = _with_fields(Collection.objects.filter(pk=collection_id)).first()
            if found is None:
                raise NotFound(f"No collection with id {collection_id}.")
            collection = found
        _cache[f"slug:{collection.slug}"] = collection
        _cache[f"id:{collection.pk}"] = collection
    return collection


def _reset(token: str | None) -> None:
    global _cache_token
    _cache.clear()
    _derived.clear()
    _cache_token = token


def forget_cached_schema() -> None:
    """This process changed the schema: later reads, in this request too, load it again."""
    forget_request_scalar(REQUEST_SCALAR)
    _reset(None)


def _revalidate(*, fresh: bool = False) -> None:
    token = _current_token(fresh=fresh)
    if token != _cache_token:
        _reset(token)


def collections_for_read() -> list[Collection]:
    """Every collection with its fields, by slug, from the same per-process cache as ``collection_for_read`` (one
    query on the version token when nothing changed). The cached objects are shared: never modify them."""
    _revalidate()
    collections = _derived.get("collections:all")
    if collections is None:
        collections = list(_with_fields(Collection.objects.order_by("slug")))
        for collection in collections:
            _cache.setdefault(f"slug:{collection.slug}", collection)
            _cache.setdefault(f"id:{collection.pk}", collection)
        _derived["collections:all"] = collections
    return collections


def site_is_public() -> bool:
    """Whether a collection is public (issue 22): then anonymous readers may also read what a site renders with
    (menus, terms, sections, widgets, settings, search; ``Rule.anonymous`` in apps/accounts/permissions.py)."""
    return any(collection.public for collection in collections_for_read())


def public_collections() -> list[Collection]:
    """The public collections, by slug: what anonymous readers may read the published entries of."""
    return [collection for collection in collections_for_read() if collection.public]


def current_schema_token() -> str | None:
    """The schema's version token as the last read of this process found it (a read of a collection revalidates it
    first): part of the validators of public answers, which change with the schema."""
    return _cache_token


def schema_cached(key: str, load: Callable[[], T]) -> T:
    """A value derived from the schema and what other apps attach to it, cached beside the collections.

    It is as current as the version token checked by the last ``collection_for_read`` of this process, so call that
    first in the same request (read paths do, to find the collection). Writers that change such values call
    ``apps.schema.services.schema_changed()`` in their transaction. Writes should query directly instead."""
    if key not in _derived:
        _derived[key] = load()
    return _derived[key]


def title_field(collection) -> str | None:
    """The slug of the field that titles a collection's entries: ``title``, else ``name``, else its first string or
    text field; None when it has none."""
    fields = [field for field in collection.fields.all() if field.type in TITLE_TYPES]
    for name in TITLE_NAMES:
        if any(field.slug == name for field in fields):
            return name
    return fields[0].slug if fields else None
