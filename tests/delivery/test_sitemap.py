"""``GET /sitemap.xml``: published entries of public collections with a URL pattern, on the site's address, with
``lastmod``; past the limit a sitemap index of ``?page=`` parts. Parsed with defusedxml, as a crawler would."""

from __future__ import annotations

import pytest
from defusedxml import ElementTree

from apps.accounts.permissions import Actor
from apps.core.timefmt import iso
from apps.site import services as site_services
from tests.delivery.conftest import make_public, published
from tests.factories import make_collection, make_entry

NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}

pytestmark = pytest.mark.django_db


def sitemap(client, **query):
    response = client.get("/sitemap.xml", query)
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/xml"
    return ElementTree.fromstring(response.content)


def urls(root) -> dict[str, str]:
    return {
        node.findtext("sm:loc", namespaces=NS): node.findtext("sm:lastmod", namespaces=NS) for node in root
    }


def test_the_sitemap_lists_published_entries_of_public_collections_with_a_pattern(client, blog):
    site_services.settings_update(actor=Actor.system(), changes={"url": "https://www.example.com/"})
    blog = make_public(blog)
    hello = published(blog, "Hello", "hello")
    odd = published(blog, "Odd", "odd-one")
    make_entry(blog, {"title": "Draft"}, slug="draft")
    trashed = published(blog, "Gone", "gone")
    from apps.content import services as content_services

    content_services.entry_trash(actor=Actor.system(), entry=trashed.pk)
    # Not public, or without a pattern: not in the sitemap.
    private = make_collection("notes", fields=[("title", "string")], url_pattern="/notes/{slug}")
    published(private, "Secret", "secret")
    unrouted = make_public(make_collection("pages", fields=[("title", "string")]))
    published(unrouted, "About", "about")

    root = sitemap(client)
    assert root.tag == "{http://www.sitemaps.org/schemas/sitemap/0.9}urlset"
    hello.refresh_from_db()
    odd.refresh_from_db()
    assert urls(root) == {
        "https://www.example.com/blog/hello": iso(hello.updated_at),
        "https://www.example.com/blog/odd-one": iso(odd.updated_at),
    }


def test_past_the_limit_the_sitemap_is_an_index_of_parts(client, blog, settings):
    settings.CMS_SITEMAP_MAX_URLS = 2
    settings.CMS_BASE_URL = "https://cms.example.com"
    blog = make_public(blog)
    for number in range(5):
        published(blog, f"Post {number}", f"post-{number}")
    index = sitemap(client)
    assert index.tag == "{http://www.sitemaps.org/schemas/sitemap/0.9}sitemapindex"
    assert [node.findtext("sm:loc", namespaces=NS) for node in index] == [
        "https://cms.example.com/sitemap.xml?page=1",
        "https://cms.example.com/sitemap.xml?page=2",
        "https://cms.example.com/sitemap.xml?page=3",
    ]
    parts = [list(urls(sitemap(client, page=page))) for page in (1, 2, 3)]
    assert [len(part) for part in parts] == [2, 2, 1]
    assert sorted(url for part in parts for url in part) == [
        f"https://cms.example.com/blog/post-{n}" for n in range(5)
    ]
    beyond = client.get("/sitemap.xml", {"page": 4})
    assert beyond.status_code == 404
    assert client.get("/sitemap.xml", {"page": "x"}).status_code == 400


def test_an_empty_site_has_an_empty_sitemap(client):
    assert list(sitemap(client)) == []
