"""Fixtures of the delivery tests: a blog whose entries live at /blog/{slug} and preview on the front end, and a small
public site: a public ``posts`` collection (one published entry, one draft, one trashed), a private ``notes``
collection with a published entry, and the site-wide things a front end renders with."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from apps.accounts.permissions import Actor
from apps.content import services as content_services
from apps.menus import services as menu_services
from apps.schema import services as schema_services
from apps.schema.selectors import collection_for_read
from apps.site import services as site_services
from apps.taxonomy import services as taxonomy_services
from tests.conftest import ApiClient
from tests.factories import make_byline, make_collection, make_entry
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


API = "/_cms/api"


@dataclass
class Site:
    posts: object
    notes: object
    published: object
    draft: object
    trashed: object
    private: object


def make_site(*, public: bool = True) -> Site:
    system = Actor.system()
    posts = make_collection(
        "posts",
        fields=[("title", "string", {"required": True}), ("body", "text")],
        supports=["drafts", "revisions", "search"],
        public=public,
    )
    notes = make_collection("notes", fields=[("title", "string")], supports=["drafts", "search"])
    byline = make_byline("Ada Lovelace", email="ada@example.com")
    published = make_entry(
        posts, {"title": "Hello world", "body": "Public words"}, slug="hello", status="published"
    )
    # A working copy that differs from the published version, and a credited byline with an email.
    content_services.entry_update(
        actor=system,
        entry=published,
        collection=posts,
        data={"title": "Hello draft title"},
        bylines=[{"bylineId": byline.pk}],
    )
    draft = make_entry(posts, {"title": "Hello unpublished"}, slug="secret-draft")
    trashed = make_entry(posts, {"title": "Hello trashed"}, slug="gone", status="published")
    content_services.entry_trash(actor=system, entry=trashed.pk, collection=posts)
    private = make_entry(notes, {"title": "Hello private note"}, slug="note", status="published")
    menu = menu_services.menu_create(actor=system, name="main", label="Main")
    menu_services.menu_item_create(
        actor=system,
        menu=menu,
        values={
            "type": "content",
            "label": "Hello",
            "reference_collection": "posts",
            "reference_id": published.pk,
        },
    )
    taxonomy = taxonomy_services.taxonomy_create(
        actor=system, name="tags", label="Tags", collections=["posts"]
    )
    taxonomy_services.term_create(actor=system, taxonomy=taxonomy, label="News")
    site_services.section_create(actor=system, title="Footer note", slug="footer-note")
    area = site_services.widget_area_create(actor=system, name="sidebar", label="Sidebar")
    site_services.widget_create(actor=system, area=area, type="content", title="About")
    site_services.settings_update(
        actor=system, changes={"site_title": "Example", "url": "https://site.example"}
    )
    return Site(posts, notes, published, draft, trashed, private)


@pytest.fixture
def site() -> Site:
    return make_site()


@pytest.fixture
def anon() -> ApiClient:
    return ApiClient()
