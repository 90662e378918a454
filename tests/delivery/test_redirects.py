"""Redirects over REST and MCP: CRUD with pages and statuses, chains collapsed, loops refused, the redirects left by a
published entry that moves (slug or URL pattern), and ``GET /resolve`` answering an entry, a redirect or 404."""

from __future__ import annotations

import pytest

from apps.accounts.models import Role
from tests.delivery.conftest import published
from tests.factories import make_entry

REDIRECTS = "/_cms/api/redirects"
RESOLVE = "/_cms/api/resolve"

pytestmark = pytest.mark.django_db


def add(client, source, location, status=301):
    response = client.post(
        REDIRECTS, {"source": source, "location": location, "status": status}, format="json"
    )
    assert response.status_code == 201, response.content
    return response.json()["data"]


def stored(client) -> dict[str, str]:
    return {item["source"]: item["location"] for item in client.get(REDIRECTS).json()["data"]["items"]}


def test_redirects_are_created_read_changed_listed_in_pages_and_deleted(admin_api):
    made = add(admin_api, "/old-page/", "https://example.com/new", 302)
    assert made == {
        "id": made["id"],
        "source": "/old-page",
        "location": "https://example.com/new",
        "status": 302,
        "origin": "manual",
        "entryId": None,
        "createdAt": made["createdAt"],
        "updatedAt": made["updatedAt"],
    }
    assert admin_api.get(f"{REDIRECTS}/{made['id']}").json()["data"] == made
    changed = admin_api.patch(f"{REDIRECTS}/{made['id']}", {"status": 308}, format="json").json()["data"]
    assert (changed["source"], changed["status"]) == ("/old-page", 308)
    for number in range(3):
        add(admin_api, f"/p{number}", "/home")
    first = admin_api.get(REDIRECTS, {"limit": 2}).json()["data"]
    second = admin_api.get(REDIRECTS, {"limit": 2, "cursor": first["nextCursor"]}).json()["data"]
    assert [item["source"] for item in first["items"] + second["items"]] == ["/old-page", "/p0", "/p1", "/p2"]
    assert second["nextCursor"] is None
    assert [
        item["source"] for item in admin_api.get(REDIRECTS, {"search": "p1"}).json()["data"]["items"]
    ] == ["/p1"]
    assert admin_api.delete(f"{REDIRECTS}/{made['id']}").json() == {
        "success": True,
        "data": {"success": True},
    }
    assert admin_api.get(f"{REDIRECTS}/{made['id']}").status_code == 404


def test_bad_redirects_are_refused_naming_the_field(admin_api):
    response = admin_api.post(
        REDIRECTS, {"source": "old", "location": "javascript:alert(1)", "status": 303}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "source": "A path on the site starting with one /, e.g. /old-page.",
        "location": "A path of the site (/new-page) or an absolute http(s) URL (https://example.com/page).",
        "status": "One of 301, 302, 307, 308.",
    }
    itself = admin_api.post(REDIRECTS, {"source": "/a", "location": "/a/"}, format="json")
    assert itself.status_code == 400
    assert itself.json()["error"]["details"] == {"location": "A redirect cannot point at its own source /a."}
    add(admin_api, "/a", "/b")
    taken = admin_api.post(REDIRECTS, {"source": "/a/", "location": "/c"}, format="json")
    assert taken.status_code == 409
    assert taken.json()["error"]["code"] == "CONFLICT"


def test_chains_collapse_both_ways(admin_api):
    add(admin_api, "/a", "/b")
    # A → B, then B → C: A goes to C directly.
    add(admin_api, "/b", "/c")
    assert stored(admin_api) == {"/a": "/c", "/b": "/c"}
    # X → A follows A to C.
    x = add(admin_api, "/x", "/a")
    assert x["location"] == "/c"


def test_a_loop_is_refused_with_409_and_nothing_changes(admin_api):
    add(admin_api, "/a", "/b")
    add(admin_api, "/b", "/c")
    response = admin_api.post(REDIRECTS, {"source": "/c", "location": "/a"}, format="json")
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "CONFLICT"
    assert error["message"] == (
        "/c → /a would make a loop: /a already redirects to /c. Change or delete that redirect first."
    )
    assert stored(admin_api) == {"/a": "/c", "/b": "/c"}


def test_redirect_writes_need_an_editor_and_reads_a_contributor(client_for, api):
    author = client_for(Role.AUTHOR, ["content:read", "content:write"])
    assert author.post(REDIRECTS, {"source": "/a", "location": "/b"}, format="json").status_code == 403
    assert author.get(REDIRECTS).status_code == 200
    assert client_for(Role.SUBSCRIBER, ["content:read"]).get(REDIRECTS).status_code == 403
    assert api.get(REDIRECTS).status_code == 401
    editor = client_for(Role.EDITOR, ["content:read", "content:write"])
    assert editor.post(REDIRECTS, {"source": "/a", "location": "/b"}, format="json").status_code == 201


def test_a_published_entry_whose_slug_changes_leaves_a_redirect(admin_api, blog):
    entry = published(blog, "Hello", "hello")
    response = admin_api.patch(f"/_cms/api/content/blog/{entry.pk}", {"slug": "hello-world"}, format="json")
    assert response.json()["data"]["item"]["url"] == "/blog/hello-world"
    [moved] = admin_api.get(REDIRECTS).json()["data"]["items"]
    assert (moved["source"], moved["location"], moved["status"], moved["origin"], moved["entryId"]) == (
        "/blog/hello",
        "/blog/hello-world",
        301,
        "auto",
        entry.pk,
    )
    # Moving again collapses the chain; moving back removes the redirect from the path the entry answers at again.
    admin_api.patch(f"/_cms/api/content/blog/{entry.pk}", {"slug": "hi"}, format="json")
    assert stored(admin_api) == {"/blog/hello": "/blog/hi", "/blog/hello-world": "/blog/hi"}
    admin_api.patch(f"/_cms/api/content/blog/{entry.pk}", {"slug": "hello"}, format="json")
    assert stored(admin_api) == {"/blog/hello-world": "/blog/hello", "/blog/hi": "/blog/hello"}


def test_drafts_and_rolled_back_writes_leave_no_redirect(admin_api, blog):
    draft = make_entry(blog, {"title": "Draft"}, slug="draft")
    admin_api.patch(f"/_cms/api/content/blog/{draft.pk}", {"slug": "draft-2"}, format="json")
    entry = published(blog, "Hello", "hello")
    published(blog, "Taken", "taken")
    refused = admin_api.patch(f"/_cms/api/content/blog/{entry.pk}", {"slug": "taken"}, format="json")
    assert refused.status_code == 409
    assert stored(admin_api) == {}


def test_a_new_url_pattern_moves_every_published_entry(admin_api, blog):
    published(blog, "One", "one")
    published(blog, "Two", "two")
    make_entry(blog, {"title": "Draft"}, slug="draft")
    response = admin_api.patch(
        "/_cms/api/schema/collections/blog", {"urlPattern": "/posts/{slug}"}, format="json"
    )
    assert response.status_code == 200
    assert stored(admin_api) == {"/blog/one": "/posts/one", "/blog/two": "/posts/two"}


def test_resolve_answers_the_entry_a_redirect_or_404(admin_api, client_for, blog):
    entry = published(blog, "Hello", "hello")
    make_entry(blog, {"title": "Draft"}, slug="draft")
    found = admin_api.get(RESOLVE, {"path": "/blog/hello/"})
    assert found.status_code == 200
    body = found.json()["data"]
    assert body["kind"] == "entry"
    # The published entry as a reader of published content GETs it.
    reader = client_for(Role.SUBSCRIBER, ["content:read"])
    assert body["item"] == reader.get(f"/_cms/api/content/blog/{entry.pk}").json()["data"]["item"]
    assert body["item"]["url"] == "/blog/hello"
    add(admin_api, "/old", "/blog/hello", 302)
    assert admin_api.get(RESOLVE, {"path": "/old"}).json()["data"] == {
        "kind": "redirect",
        "status": 302,
        "location": "/blog/hello",
    }
    # Drafts are not on the site.
    missing = admin_api.get(RESOLVE, {"path": "/blog/draft"})
    assert missing.status_code == 404
    assert missing.json()["error"] == {
        "code": "NOT_FOUND",
        "message": "Nothing on the site answers /blog/draft: no published entry and no redirect.",
        "details": {},
    }
    assert admin_api.get(RESOLVE, {"path": "blog"}).status_code == 400


def test_resolve_prefers_the_more_literal_pattern_and_matches_locales(admin_api, blog, settings):
    from tests.factories import make_collection

    pages = make_collection("pages", fields=[("title", "string")], url_pattern="/{locale}/{slug}")
    page = published(pages, "About", "about")
    post = published(blog, "About the blog", "about")
    assert admin_api.get(RESOLVE, {"path": "/en/about"}).json()["data"]["item"]["id"] == page.pk
    assert admin_api.get(RESOLVE, {"path": "/blog/about"}).json()["data"]["item"]["id"] == post.pk
    assert admin_api.get(RESOLVE, {"path": "/de/about"}).status_code == 404


def test_resolve_needs_the_read_permission(api, client_for, blog):
    published(blog, "Hello", "hello")
    assert api.get(RESOLVE, {"path": "/blog/hello"}).status_code == 401
    reader = client_for(Role.SUBSCRIBER, ["content:read"])
    assert reader.get(RESOLVE, {"path": "/blog/hello"}).json()["data"]["item"]["data"] == {"title": "Hello"}


def test_redirect_tools_and_resolve_through_mcp(admin_mcp, blog):
    published(blog, "Hello", "hello")
    made = admin_mcp.ok("redirect_create", {"source": "/a", "location": "/blog/hello"})
    assert admin_mcp.ok("redirect_update", {"id": made["id"], "status": 307})["status"] == 307
    assert [item["source"] for item in admin_mcp.ok("redirect_list")["items"]] == ["/a"]
    _, error = admin_mcp.fails("redirect_create", {"source": "/blog/hello", "location": "/a"})
    assert error["code"] == "CONFLICT"
    assert admin_mcp.ok("path_resolve", {"path": "/a"}) == {
        "kind": "redirect",
        "status": 307,
        "location": "/blog/hello",
    }
    assert admin_mcp.ok("path_resolve", {"path": "/blog/hello"})["item"]["url"] == "/blog/hello"
    assert admin_mcp.ok("redirect_delete", {"id": made["id"]}) == {"success": True}
    assert admin_mcp.ok("redirect_list")["items"] == []
