"""Fixtures of the delivery tests: a blog whose entries live at /blog/{slug} and preview on the front end."""

from __future__ import annotations

import pytest

from apps.schema import services as schema_services
from apps.schema.selectors import collection_for_read
from tests.factories import make_collection, make_entry
from tests.mcp.conftest import admin_mcp, mcp_for  # noqa: F401  (the tool-server clients, shared)

PREVIEW_URL = "https://site.example/api/preview?token={token}&path={url}"


@pytest.fixture
def blog():
    """``blog``: drafts and revisions, a required title, entries at /blog/{slug}, previewed on site.example."""
    return make_collection(
        "blog",
        label="Blog",
        fields=[("title", "string", {"required": True}), ("body", "text")],
        url_pattern="/blog/{slug}",
        preview_url=PREVIEW_URL,
    )


def make_public(collection):
    """Mark ``collection`` public (the schema face of that flag belongs to the public reads)."""
    type(collection).objects.filter(pk=collection.pk).update(public=True)
    schema_services.schema_changed()
    return collection_for_read(slug=collection.slug)


def published(collection, title: str, slug: str, **options):
    return make_entry(collection, {"title": title}, slug=slug, status="published", **options)
