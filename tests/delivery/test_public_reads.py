"""Reads without a token (issue 22): published entries of public collections and what a site renders with; everything
else stays 401. One permission table decides (``Rule.anonymous``)."""

from __future__ import annotations

import pytest

from apps.accounts.models import Role
from apps.accounts.permissions import RULES
from tests.delivery.conftest import API, make_site

POSTS = f"{API}/content/posts"


def test_the_table_names_every_anonymous_read():
    assert sorted(name for name, rule in RULES.items() if rule.anonymous) == [
        "content.read",
        "menus.read",
        "search.read",
        "sections.read",
        "settings.read",
        "taxonomies.read",
        "widgets.read",
    ]


def test_a_published_entry_of_a_public_collection_reads_without_a_token(site, anon, client_for):
    by_id = anon.get(f"{POSTS}/{site.published.pk}")
    assert by_id.status_code == 200
    item = by_id.json()["data"]["item"]
    # The published version, as a subscriber's token reads it: no working copy, no metadata, no byline email.
    subscriber = client_for(Role.SUBSCRIBER, ["content:read"]).get(f"{POSTS}/{site.published.pk}")
    assert by_id.json() == subscriber.json()
    assert item["data"] == {"title": "Hello world", "body": "Public words"}
    assert "liveData" not in item and "meta" not in item
    assert item["bylines"][0]["displayName"] == "Ada Lovelace"
    assert "ada@example.com" not in by_id.content.decode()
    assert anon.get(f"{POSTS}/hello").json() == by_id.json()


def test_drafts_and_trashed_entries_are_not_found_as_if_they_did_not_exist(site, anon):
    for ref in (
        site.draft.pk,
        "secret-draft",
        site.trashed.pk,
        "gone",
        "01ARZ3NDEKTSV4RRFFQ69G5FAV",
        "nothing",
    ):
        response = anon.get(f"{POSTS}/{ref}")
        assert response.status_code == 404, ref
        assert response.json()["error"]["code"] == "NOT_FOUND"
        assert response["Cache-Control"] == "private, no-store"


def test_a_list_shows_published_entries_only(site, anon):
    response = anon.get(POSTS)
    assert response.status_code == 200
    assert [item["id"] for item in response.json()["data"]["items"]] == [site.published.pk]
    assert anon.get(POSTS, {"status": "published"}).json() == response.json()


@pytest.mark.parametrize("status", ["draft", "scheduled"])
def test_other_status_filters_need_a_token(site, anon, status):
    response = anon.get(POSTS, {"status": status})
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "UNAUTHORIZED"


def test_a_collection_that_is_not_public_needs_a_token_and_unknown_ones_look_the_same(site, anon):
    for path in (
        f"{API}/content/notes",
        f"{API}/content/notes/{site.private.pk}",
        f"{API}/content/notes/note",
        f"{API}/content/nowhere",
        f"{API}/content/nowhere/anything",
    ):
        response = anon.get(path)
        assert response.status_code == 401, path
        assert response["Cache-Control"] == "private, no-store"
        assert "posts" not in response.content.decode()


@pytest.mark.parametrize(
    "method, suffix",
    [
        ("get", "/trash"),
        ("get", "/{id}/revisions"),
        ("get", "/{id}/compare"),
        ("post", ""),
        ("patch", "/{id}"),
        ("delete", "/{id}"),
        ("post", "/{id}/publish"),
    ],
)
def test_drafts_trash_revisions_and_writes_stay_401(site, anon, method, suffix):
    path = POSTS + suffix.format(id=site.published.pk)
    response = getattr(anon, method)(
        path, {} if method == "get" else {"data": {}}, format=None if method == "get" else "json"
    )
    assert response.status_code == 401, path


@pytest.mark.parametrize(
    "path",
    [
        "/bylines",
        "/admin/users",
        "/auth/me",
        "/media",
        "/schema/collections",
        "/search/stats",
        "/plugins",
    ],
)
def test_everything_else_stays_401(site, anon, path):
    assert anon.get(API + path).status_code == 401


def test_an_invalid_token_is_refused_not_read_as_anonymous(site, anon):
    response = anon.as_token("cms_not-a-token").get(f"{POSTS}/{site.published.pk}")
    assert response.status_code == 401


def test_translations_of_a_public_entry_are_published_ones(site, anon):
    response = anon.get(f"{POSTS}/{site.published.pk}/translations")
    assert response.status_code == 200
    assert [item["id"] for item in response.json()["data"]["items"]] == [site.published.pk]
    assert response["Surrogate-Key"] == f"collection:posts entry:{site.published.pk}"
    assert response["Cache-Control"] == "public, max-age=60, s-maxage=300, stale-while-revalidate=86400"


def test_search_and_suggest_find_published_entries_of_public_collections_only(site, anon):
    found = anon.get(f"{API}/search", {"q": "hello"})
    assert found.status_code == 200
    assert [(hit["collection"], hit["id"]) for hit in found.json()["results"]] == [
        ("posts", site.published.pk)
    ]
    assert anon.get(f"{API}/search", {"q": "hello", "collections": "posts"}).json() == found.json()
    assert anon.get(f"{API}/search", {"q": "hello", "collections": "notes"}).status_code == 401
    assert anon.get(f"{API}/search", {"q": "hello", "status": "draft"}).status_code == 401
    suggested = anon.get(f"{API}/search/suggest", {"q": "hel"})
    assert suggested.status_code == 200
    assert [(item["collection"], item["id"]) for item in suggested.json()["data"]["items"]] == [
        ("posts", site.published.pk)
    ]
    assert anon.get(f"{API}/search/suggest", {"q": "hel", "collections": "notes"}).status_code == 401


@pytest.mark.parametrize(
    "path, key",
    [
        ("/menus", "menus"),
        ("/menus/main", "menu:main"),
        ("/taxonomies", "taxonomies"),
        ("/taxonomies/tags", "taxonomy:tags"),
        ("/taxonomies/tags/terms", "taxonomy:tags"),
        ("/taxonomies/tags/terms/news", "taxonomy:tags"),
        ("/sections", "sections"),
        ("/sections/footer-note", "section:footer-note"),
        ("/widget-areas", "widgets"),
        ("/widget-areas/sidebar", "widget-area:sidebar"),
        ("/settings", "settings"),
    ],
)
def test_what_a_site_renders_with_reads_without_a_token(site, anon, admin_api, path, key):
    response = anon.get(API + path)
    assert response.status_code == 200, response.content
    assert response.json() == admin_api.get(API + path).json()
    assert key in response["Surrogate-Key"].split()
    assert response["Cache-Control"] == "public, max-age=60, s-maxage=300, stale-while-revalidate=86400"


def test_settings_show_what_a_page_shows_and_nothing_else(site, anon):
    data = anon.get(f"{API}/settings").json()["data"]
    assert data["siteTitle"] == "Example" and data["url"] == "https://site.example"
    assert set(data) == {
        "siteTitle",
        "tagline",
        "postsPerPage",
        "url",
        "timezone",
        "dateFormat",
        "logo",
        "favicon",
        "updatedAt",
    }


def test_the_menu_shows_published_titles_to_anonymous_readers(site, anon):
    items = anon.get(f"{API}/menus/main").json()["data"]["items"]
    assert [item["label"] for item in items] == ["Hello"]
    assert "Hello draft title" not in anon.get(f"{API}/menus/main").content.decode()


def test_nothing_is_public_by_default():
    site = make_site(public=False)
    from tests.conftest import ApiClient

    anon = ApiClient()
    for path in (
        f"/content/posts/{site.published.pk}",
        "/content/posts",
        "/search?q=hello",
        "/search/suggest?q=hel",
        "/menus",
        "/menus/main",
        "/taxonomies",
        "/taxonomies/tags/terms",
        "/sections",
        "/widget-areas",
        "/settings",
    ):
        assert anon.get(API + path).status_code == 401, path


def test_admins_make_a_collection_public_through_the_schema_api(anon, admin_api):
    created = admin_api.post(
        f"{API}/schema/collections",
        {"slug": "pages", "label": "Pages"},
        format="json",
    )
    assert created.status_code == 201, created.content
    admin_api.post(
        f"{API}/schema/collections/pages/fields",
        {"slug": "title", "label": "Title", "type": "string"},
        format="json",
    )
    assert created.json()["data"]["public"] is False
    entry = admin_api.post(
        f"{API}/content/pages", {"data": {"title": "About"}, "status": "published"}, format="json"
    )
    path = f"{API}/content/pages/{entry.json()['data']['item']['id']}"
    assert anon.get(path).status_code == 401
    changed = admin_api.patch(f"{API}/schema/collections/pages", {"public": True}, format="json")
    assert changed.status_code == 200 and changed.json()["data"]["public"] is True
    assert anon.get(path).status_code == 200
    assert (
        admin_api.patch(f"{API}/schema/collections/pages", {"public": "maybe"}, format="json").status_code
        == 400
    )
    admin_api.patch(f"{API}/schema/collections/pages", {"public": False}, format="json")
    assert anon.get(path).status_code == 401
