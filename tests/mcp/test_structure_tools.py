"""Schema, media, taxonomy and menu tools: each one's success, answers equal to REST's, and their own failures."""

from __future__ import annotations

from apps.accounts.models import Role
from apps.accounts.permissions import Actor
from apps.menus import services as menu_services
from apps.schema.models import Collection
from apps.taxonomy import services as taxonomy_services
from tests.factories import make_collection, make_entry, make_media, make_user


def test_collections_and_fields(admin_mcp, admin_api):
    created = admin_mcp.ok(
        "schema_create_collection", {"slug": "recipes", "label": "Recipes", "supports": ["drafts", "search"]}
    )
    assert created["slug"] == "recipes"
    assert created["supports"] == ["drafts", "search"]
    assert created["fields"] == []
    field = admin_mcp.ok(
        "schema_create_field",
        {
            "collection": "recipes",
            "slug": "course",
            "label": "Course",
            "type": "select",
            "required": True,
            "validation": {"options": ["starter", "main"]},
        },
    )
    assert field["validation"] == {"options": ["starter", "main"]}
    assert field["translatable"] is True
    got = admin_mcp.ok("schema_get_collection", {"slug": "recipes"})
    # What REST answers, and the JSON Schema of the data (tests/mcp/test_data_schema.py).
    schema = got.pop("dataSchema")
    assert got == admin_api.get("/_cms/api/schema/collections/recipes?includeFields=true").json()["data"]
    assert schema["properties"] == {
        "course": {"title": "Course", "type": "string", "enum": ["starter", "main"]}
    }
    assert [item["slug"] for item in got["fields"]] == ["course"]
    listed = admin_mcp.ok("schema_list_collections")
    assert listed == {
        "items": admin_api.get("/_cms/api/schema/collections").json()["data"]["items"],
        "nextCursor": None,
    }
    text, _ = admin_mcp.fails(
        "schema_create_field", {"collection": "recipes", "slug": "status", "label": "S", "type": "string"}
    )
    assert text.startswith("[RESERVED_SLUG] ")
    text, _ = admin_mcp.fails("schema_create_collection", {"slug": "recipes", "label": "Again"})
    assert text.startswith("[DUPLICATE_SLUG] ")
    text, error = admin_mcp.fails("schema_create_collection", {"slug": "Bad-Slug", "label": "x"})
    assert list(error["details"]) == ["slug"]
    assert admin_mcp.ok("schema_delete_field", {"collection": "recipes", "fieldSlug": "course"}) == {
        "success": True
    }
    assert admin_mcp.ok("schema_delete_collection", {"slug": "recipes"}) == {"success": True}
    assert not Collection.objects.filter(slug="recipes").exists()


def test_a_collection_is_made_public_through_the_tools(admin_mcp, admin_api):
    created = admin_mcp.ok("schema_create_collection", {"slug": "pages", "label": "Pages", "public": True})
    assert created["public"] is True
    changed = admin_mcp.ok(
        "schema_update_collection", {"slug": "pages", "public": False, "label": "Site pages"}
    )
    assert (changed["public"], changed["label"]) == (False, "Site pages")
    assert changed == admin_api.get("/_cms/api/schema/collections/pages?includeFields=true").json()["data"]
    text, _ = admin_mcp.fails("schema_update_collection", {"slug": "nowhere", "public": True})
    assert text.startswith("[NOT_FOUND] ")


def test_deleting_a_collection_with_entries_needs_force(admin_mcp):
    posts = make_collection("posts", fields=[("title", "string")])
    make_entry(posts, {"title": "x"})
    text, _ = admin_mcp.fails("schema_delete_collection", {"slug": "posts"})
    assert text.startswith("[SCHEMA_ERROR] ")
    assert admin_mcp.ok("schema_delete_collection", {"slug": "posts", "force": True}) == {"success": True}


def test_editors_read_the_schema_but_do_not_change_it(mcp_for):
    make_collection("posts", fields=[("title", "string")])
    editor = mcp_for(Role.EDITOR, ["schema:read"])
    assert [item["slug"] for item in editor.ok("schema_list_collections")["items"]] == ["posts"]
    error = editor.refused("schema_create_collection", {"slug": "x", "label": "X"})
    assert error["message"] == "Insufficient scope: requires schema:write"


def test_media(admin_mcp, admin_api):
    first = make_media(filename="one.png")
    second = make_media(filename="two.pdf", content=b"%PDF-1.4\n%%EOF\n")
    listed = admin_mcp.ok("media_list", {"limit": 1})
    assert listed["items"] == [admin_api.get(f"/_cms/api/media/{second.pk}").json()["data"]]
    rest = admin_mcp.ok("media_list", {"cursor": listed["nextCursor"]})
    assert [item["id"] for item in rest["items"]] == [first.pk]
    images = admin_mcp.ok("media_list", {"mimeType": "image/"})
    assert [item["id"] for item in images["items"]] == [first.pk]
    assert admin_mcp.ok("media_get", {"id": first.pk})["filename"] == "one.png"
    updated = admin_mcp.ok("media_update", {"id": first.pk, "alt": "A red square", "caption": "Red"})
    assert (updated["alt"], updated["caption"]) == ("A red square", "Red")
    assert admin_mcp.ok("media_delete", {"id": first.pk}) == {"success": True}
    text, _ = admin_mcp.fails("media_get", {"id": first.pk})
    assert text == f"[NOT_FOUND] No media item {first.pk}."


def test_authors_change_only_their_own_media(mcp_for):
    item = make_media(author=make_user(Role.EDITOR))
    author = mcp_for(Role.AUTHOR, ["media:read", "media:write"])
    error = author.refused("media_update", {"id": item.pk, "alt": "x"})
    assert error["code"] == -32600


def test_taxonomies_and_terms(admin_mcp, admin_api):
    make_collection("posts", fields=[("title", "string")])
    created = admin_mcp.ok(
        "taxonomy_create",
        {"name": "category", "label": "Categories", "hierarchical": True, "collections": ["posts"]},
    )
    assert created["collections"] == ["posts"]
    listed = admin_mcp.ok("taxonomy_list")
    assert listed == {
        "items": admin_api.get("/_cms/api/taxonomies").json()["data"]["items"],
        "nextCursor": None,
    }
    news = admin_mcp.ok("taxonomy_create_term", {"taxonomy": "category", "slug": "news", "label": "News"})
    local = admin_mcp.ok(
        "taxonomy_create_term",
        {"taxonomy": "category", "slug": "local", "label": "Local", "parentId": news["id"]},
    )
    assert local["parentId"] == news["id"]
    page = admin_mcp.ok("taxonomy_list_terms", {"taxonomy": "category", "limit": 1})
    assert [item["slug"] for item in page["items"]] == ["local"]
    assert page == admin_api.get("/_cms/api/taxonomies/category/terms?limit=1").json()["data"]
    text, _ = admin_mcp.fails("taxonomy_create_term", {"taxonomy": "category", "slug": "news", "label": "N"})
    assert text.startswith("[DUPLICATE_SLUG] ")
    text, _ = admin_mcp.fails("taxonomy_list_terms", {"taxonomy": "nope"})
    assert text.startswith("[NOT_FOUND] No taxonomy 'nope'")


def test_contributors_cannot_create_terms(mcp_for):
    make_collection("posts", fields=[("title", "string")])
    taxonomy_services.taxonomy_create(actor=Actor.system(), name="tag", label="Tags", collections=["posts"])
    contributor = mcp_for(Role.CONTRIBUTOR, ["content:write"])
    error = contributor.refused("taxonomy_create_term", {"taxonomy": "tag", "slug": "a", "label": "A"})
    # The tool's operation (terms.create) gives the role, as REST's: the call stops before the service.
    assert error == {
        "code": -32600,
        "message": "Insufficient scope: requires the role author (30) or higher",
        "data": {"requiredRole": 30},
    }


def test_menus(admin_mcp, admin_api):
    created = admin_mcp.ok("menu_create", {"name": "main", "label": "Main"})
    assert created["name"] == "main"
    menu = menu_services.menu_create(actor=Actor.system(), name="footer", label="Footer")
    menu_services.menu_item_create(
        actor=Actor.system(), menu=menu, values={"type": "custom", "label": "Home", "url": "/"}
    )
    listed = admin_mcp.ok("menu_list")
    assert listed == {"items": admin_api.get("/_cms/api/menus").json()["data"]["items"], "nextCursor": None}
    detail = admin_mcp.ok("menu_get", {"name": "footer"})
    assert detail == admin_api.get("/_cms/api/menus/footer").json()["data"]
    assert [item["label"] for item in detail["items"]] == ["Home"]
    text, _ = admin_mcp.fails("menu_create", {"name": "main", "label": "Again"})
    assert text.startswith("[DUPLICATE_SLUG] ")


def test_menu_get_resolves_targets_and_hides_drafts_from_readers(admin_mcp, admin_api, mcp_for):
    posts = make_collection("posts", fields=[("title", "string")])
    draft = make_entry(posts, {"title": "Coming soon"}, slug="soon")
    admin_mcp.ok("menu_create", {"name": "main", "label": "Main"})
    admin_mcp.ok(
        "menu_set_items",
        {
            "name": "main",
            "items": [{"type": "content", "referenceCollection": "posts", "referenceId": draft.pk}],
        },
    )

    [item] = admin_mcp.ok("menu_get", {"name": "main"})["items"]
    assert (item["label"], item["target"], item["missing"]) == (
        "Coming soon",
        {
            "collection": "posts",
            "id": draft.pk,
            "slug": "soon",
            "title": "Coming soon",
            "status": "draft",
            "trashed": False,
            "url": None,
        },
        True,
    )
    assert admin_mcp.ok("menu_get", {"name": "main"}) == admin_api.get("/_cms/api/menus/main").json()["data"]
    reader = mcp_for(Role.SUBSCRIBER, ["content:read"])
    [public] = reader.ok("menu_get", {"name": "main"})["items"]
    assert (public["label"], public["target"], public["missing"]) == ("", None, True)


def test_menu_set_items_replaces_the_tree(admin_mcp):
    posts = make_collection("posts", fields=[("title", "string")])
    about = make_entry(posts, {"title": "About us"}, status="published")
    admin_mcp.ok("menu_create", {"name": "main", "label": "Main"})
    tree = admin_mcp.ok(
        "menu_set_items",
        {
            "name": "main",
            "items": [
                {"type": "custom", "label": "Home", "url": "/"},
                {
                    "type": "content",
                    "referenceCollection": "posts",
                    "referenceId": about.pk,
                    "children": [{"type": "custom", "label": "Team", "url": "/team"}],
                },
            ],
        },
    )
    assert [(item["label"], [child["label"] for child in item["children"]]) for item in tree["items"]] == [
        ("Home", []),
        ("About us", ["Team"]),
    ]
    assert tree == admin_mcp.ok("menu_get", {"name": "main"})
    text, error = admin_mcp.fails(
        "menu_set_items",
        {
            "name": "main",
            "items": [
                {"type": "custom", "label": "Ok", "url": "/ok"},
                {
                    "type": "custom",
                    "label": "Bad",
                    "children": [{"type": "custom", "label": "X", "url": "javascript:x"}],
                },
            ],
        },
    )
    assert text.startswith("[VALIDATION_ERROR] ")
    assert set(error["details"]) == {"items.1.url", "items.1.children.0.url"}
    assert [item["label"] for item in admin_mcp.ok("menu_get", {"name": "main"})["items"]] == [
        "Home",
        "About us",
    ]


def test_sections(admin_mcp, admin_api):
    created = admin_mcp.ok(
        "section_create", {"title": "Call to action", "keywords": ["cta"], "content": "Buy **now**."}
    )
    assert created["slug"] == "call-to-action"
    assert created["content"][0]["children"][1]["marks"] == ["strong"]
    assert (
        admin_mcp.ok("section_get", {"slug": "call-to-action"})
        == (admin_api.get("/_cms/api/sections/call-to-action").json()["data"])
    )
    admin_mcp.ok("section_create", {"title": "Footer note", "content": []})
    found = admin_mcp.ok("section_list", {"search": "cta"})
    assert [item["slug"] for item in found["items"]] == ["call-to-action"]
    page = admin_mcp.ok("section_list", {"limit": 1})
    assert page == admin_api.get("/_cms/api/sections?limit=1").json()["data"]
    text, _ = admin_mcp.fails("section_create", {"title": "Again", "slug": "call-to-action"})
    assert text.startswith("[DUPLICATE_SLUG] ")


def test_settings(admin_mcp, admin_api, mcp_for):
    before = admin_mcp.ok("settings_get")
    assert before == admin_api.get("/_cms/api/settings").json()["data"]
    after = admin_mcp.ok("settings_update", {"siteTitle": "Agents' blog", "postsPerPage": 20})
    assert (after["siteTitle"], after["postsPerPage"], after["tagline"]) == (
        "Agents' blog",
        20,
        before["tagline"],
    )
    text, error = admin_mcp.fails("settings_update", {"postsPerPage": 0})
    assert text == "[VALIDATION_ERROR] postsPerPage: Ensure this value is greater than or equal to 1."
    assert error["details"] == {"postsPerPage": "Ensure this value is greater than or equal to 1."}
    editor = mcp_for(Role.EDITOR, ["content:read", "content:write"])
    assert editor.ok("settings_get")["siteTitle"] == "Agents' blog"
    assert (
        editor.refused("settings_update", {"tagline": "x"})["message"] == "Insufficient scope: requires admin"
    )
