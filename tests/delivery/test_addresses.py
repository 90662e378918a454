"""URL patterns and preview URLs on collections (schema API, MCP, validation), ``url`` on entries (REST and MCP, one
and many, with no query more per entry), and menu items that point at entries and terms with their url."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.accounts.permissions import Actor
from apps.taxonomy import services as taxonomy_services
from tests.delivery.conftest import PREVIEW_URL, published
from tests.factories import make_collection, make_entry

COLLECTIONS = "/_cms/api/schema/collections"

pytestmark = pytest.mark.django_db


def test_collections_take_and_show_url_pattern_and_preview_url(admin_api):
    created = admin_api.post(
        COLLECTIONS,
        {"slug": "docs", "label": "Docs", "urlPattern": " /{locale}/docs/{slug} ", "previewUrl": PREVIEW_URL},
        format="json",
    ).json()["data"]
    assert (created["urlPattern"], created["previewUrl"]) == ("/{locale}/docs/{slug}", PREVIEW_URL)
    cleared = admin_api.patch(f"{COLLECTIONS}/docs", {"previewUrl": None, "urlPattern": ""}, format="json")
    assert (cleared.json()["data"]["urlPattern"], cleared.json()["data"]["previewUrl"]) == (None, None)
    plain = admin_api.post(COLLECTIONS, {"slug": "notes", "label": "Notes"}, format="json").json()["data"]
    assert (plain["urlPattern"], plain["previewUrl"]) == (None, None)


@pytest.mark.parametrize(
    ("body", "details"),
    [
        (
            {"urlPattern": "/blog/{title}"},
            {"urlPattern": "Unknown placeholder(s) {title}; allowed: {slug}, {locale}, {id}."},
        ),
        (
            {"urlPattern": "blog/{slug}"},
            {"urlPattern": "A URL pattern is a path on the site starting with one /, e.g. /blog/{slug}."},
        ),
        (
            {"urlPattern": "/blog"},
            {"urlPattern": "A URL pattern must name the entry: put {slug} or {id} in it, e.g. /blog/{slug}."},
        ),
        (
            {"urlPattern": "/blog/{slug"},
            {"urlPattern": "Braces must enclose a placeholder name; allowed: {slug}, {locale}, {id}."},
        ),
        (
            {"urlPattern": "/blog/{slug}?x=1"},
            {"urlPattern": "A URL pattern is a path only: no query (?), fragment (#), backslash or spaces."},
        ),
        (
            {"previewUrl": "https://site.example/p?t={token}&x={secret}"},
            {
                "previewUrl": "Unknown placeholder(s) {secret}; allowed: {token}, {url}, {id}, {slug}, {locale}."
            },
        ),
        (
            {"previewUrl": "https://site.example/p?path={url}"},
            {"previewUrl": "A preview URL must carry the token: put {token} in it."},
        ),
        (
            {"previewUrl": "javascript:alert({token})"},
            {
                "previewUrl": "A preview URL is an absolute http(s) address on the front end, e.g. "
                "https://site.example/api/preview?token={token}."
            },
        ),
    ],
)
def test_bad_templates_are_refused_naming_the_placeholder(admin_api, blog, body, details):
    response = admin_api.patch(f"{COLLECTIONS}/blog", body, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"
    assert response.json()["error"]["details"] == details
    created = admin_api.post(COLLECTIONS, {"slug": "other", "label": "Other", **body}, format="json")
    assert created.json()["error"]["details"] == details


def test_schema_tools_take_the_templates(admin_mcp):
    made = admin_mcp.ok(
        "schema_create_collection", {"slug": "news", "label": "News", "urlPattern": "/news/{id}"}
    )
    assert made["urlPattern"] == "/news/{id}"
    changed = admin_mcp.ok("schema_update_collection", {"slug": "news", "previewUrl": PREVIEW_URL})
    assert (changed["urlPattern"], changed["previewUrl"]) == ("/news/{id}", PREVIEW_URL)
    _, error = admin_mcp.fails("schema_update_collection", {"slug": "news", "urlPattern": "/n/{uuid}"})
    assert error["details"] == {
        "urlPattern": "Unknown placeholder(s) {uuid}; allowed: {slug}, {locale}, {id}."
    }


def test_entries_carry_their_url_in_lists_gets_and_tools(admin_api, admin_mcp, blog):
    entry = published(blog, "Hello", "hello")
    draft = make_entry(blog, {"title": "Draft"}, slug="draft")
    got = admin_api.get(f"/_cms/api/content/blog/{entry.pk}").json()["data"]["item"]
    assert got["url"] == "/blog/hello"
    listed = admin_api.get("/_cms/api/content/blog").json()["data"]["items"]
    assert {item["id"]: item["url"] for item in listed} == {entry.pk: "/blog/hello", draft.pk: "/blog/draft"}
    assert admin_mcp.ok("content_get", {"collection": "blog", "id": "hello"})["item"]["url"] == "/blog/hello"
    assert [item["url"] for item in admin_mcp.ok("content_list", {"collection": "blog"})["items"]] == [
        "/blog/draft",
        "/blog/hello",
    ]
    # Collections without a pattern have no url key at all.
    pages = make_collection("pages", fields=[("title", "string")])
    page = make_entry(pages, {"title": "About"})
    assert "url" not in admin_api.get(f"/_cms/api/content/pages/{page.pk}").json()["data"]["item"]


def test_id_and_locale_patterns(admin_api, settings):
    docs = make_collection("docs", fields=[("title", "string")], url_pattern="/{locale}/docs/{id}-{slug}")
    entry = make_entry(docs, {"title": "Guide"}, slug="guide")
    assert admin_api.get(f"/_cms/api/content/docs/{entry.pk}").json()["data"]["item"]["url"] == (
        f"/en/docs/{entry.pk}-guide"
    )


def test_url_costs_no_query_per_entry(admin_api, blog, django_assert_max_num_queries):
    for number in range(40):
        published(blog, f"Post {number}", f"post-{number}")
    with CaptureQueriesContext(connection) as small:
        first = admin_api.get("/_cms/api/content/blog", {"limit": 2})
    assert [item["url"] for item in first.json()["data"]["items"]] == ["/blog/post-39", "/blog/post-38"]
    with django_assert_max_num_queries(len(small.captured_queries)):
        large = admin_api.get("/_cms/api/content/blog", {"limit": 40})
    assert len({item["url"] for item in large.json()["data"]["items"]}) == 40


def test_menu_items_carry_their_targets_url_with_a_constant_number_of_queries(blog, client_for):
    from apps.accounts.models import Role
    from apps.menus import services as menu_services
    from apps.taxonomy.selectors import taxonomy_get

    system = Actor.system()
    taxonomy_services.taxonomy_create(actor=system, name="category", label="Categories", collections=["blog"])
    menu = menu_services.menu_create(actor=system, name="main", label="Main")

    def fill(count: int) -> None:
        items = []
        for number in range(count):
            entry = published(blog, f"Post {number}", f"p-{count}-{number}")
            term = taxonomy_services.term_create(
                actor=system,
                taxonomy=taxonomy_get(name="category"),
                slug=f"t-{count}-{number}",
                label=f"Topic {number}",
            )
            items += [
                {"type": "content", "reference_collection": "blog", "reference_id": entry.pk},
                {"type": "taxonomy", "reference_collection": "category", "reference_id": term.pk},
            ]
        menu_services.menu_items_replace(actor=system, menu=menu, items=items)

    reader = client_for(Role.SUBSCRIBER, ["content:read"])
    fill(1)
    reader.get("/_cms/api/menus/main")
    with CaptureQueriesContext(connection) as small:
        one = reader.get("/_cms/api/menus/main").json()["data"]["items"]
    entry_item, term_item = one
    assert entry_item["url"] == "/blog/p-1-0"
    assert entry_item["target"] == {
        "collection": "blog",
        "id": entry_item["referenceId"],
        "slug": "p-1-0",
        "title": "Post 0",
        "status": "published",
        "trashed": False,
        "url": "/blog/p-1-0",
    }
    assert term_item["url"] == "/category/t-1-0"
    assert term_item["target"] == {
        "taxonomy": "category",
        "collection": "category",
        "id": term_item["referenceId"],
        "slug": "t-1-0",
        "label": "Topic 0",
        "url": "/category/t-1-0",
    }
    fill(12)
    reader.get("/_cms/api/menus/main")  # the schema cache, refreshed after the writes, is not the menu's cost
    with CaptureQueriesContext(connection) as large:
        many = reader.get("/_cms/api/menus/main").json()["data"]["items"]
    assert len(many) == 24 and all(item["url"] for item in many)
    assert len(large.captured_queries) == len(small.captured_queries)


def test_internal_links_in_portable_text_get_their_targets_url_on_request(admin_api, admin_mcp, blog):
    target = published(blog, "Target", "target")
    draft = make_entry(blog, {"title": "Draft"}, slug="draft")
    pages = make_collection(
        "pages", fields=[("title", "string"), ("body", "portableText")], url_pattern="/{slug}"
    )

    def link(key, reference):
        return {"_key": key, "_type": "internalLink", "reference": reference}

    body = [
        {
            "_type": "block",
            "_key": "b1",
            "style": "normal",
            "markDefs": [
                link("l1", target.pk),
                link("l2", draft.pk),
                link("l3", "01ARZ3NDEKTSV4RRFFQ69G5FAV"),
            ],
            "children": [
                {"_type": "span", "_key": "s1", "text": "See ", "marks": []},
                {"_type": "span", "_key": "s2", "text": "this", "marks": ["l1"]},
                {"_type": "span", "_key": "s3", "text": " and that", "marks": ["l2", "l3"]},
            ],
        }
    ]
    page = make_entry(pages, {"title": "About", "body": body}, slug="about", status="published")
    plain = admin_api.get(f"/_cms/api/content/pages/{page.pk}").json()["data"]["item"]
    assert [definition.get("href", "absent") for definition in plain["data"]["body"][0]["markDefs"]] == [
        "absent",
        "absent",
        "absent",
    ]
    linked = admin_api.get(f"/_cms/api/content/pages/{page.pk}", {"resolveLinks": "true"}).json()["data"][
        "item"
    ]
    assert [definition["href"] for definition in linked["data"]["body"][0]["markDefs"]] == [
        "/blog/target",
        None,
        None,
    ]
    resolved = admin_api.get("/_cms/api/resolve", {"path": "/about"}).json()["data"]["item"]
    assert resolved["data"]["body"][0]["markDefs"][0]["href"] == "/blog/target"
    tool = admin_mcp.ok("content_get", {"collection": "pages", "id": "about", "resolveLinks": True})
    assert tool["item"]["data"]["body"][0]["markDefs"][0] == {**link("l1", target.pk), "href": "/blog/target"}
