"""Reads of the schema."""

from __future__ import annotations

from django.db.models import Prefetch

from apps.core.errors import NotFound
from apps.schema.models import Collection, Field


def _with_fields(queryset):
    return queryset.prefetch_related(
        Prefetch("fields", queryset=Field.objects.order_by("sort_order", "created_at"))
    )


def collection_list(*, with_fields: bool = False) -> list[Collection]:
    queryset = Collection.objects.order_by("slug")
    return list(_with_fields(queryset) if with_fields else queryset)


def collection_get(*, slug: str, with_fields: bool = True) -> Collection:
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
