"""Changing and removing structure over MCP (issue 23): fields, taxonomies and terms (and terms as a tree), menus,
sections and widget areas. Each tool's success (its answer equal to REST's and valid against its declared
outputSchema), each of its failure classes with the exact error, and its scope and role refusals."""

from __future__ import annotations

import jsonschema
import pytest

from apps.accounts.models import Role
from apps.accounts.permissions import Actor
from apps.content.models import Entry
from apps.mcp import registry
from apps.menus import services as menu_services
from apps.menus.models import Menu, MenuItem
from apps.schema.models import Field
from apps.site import services as site_services
from apps.site.models import Section, Widget
from apps.taxonomy import services as taxonomy_services
from apps.taxonomy.models import EntryTerm, Term
from tests.factories import make_collection, make_entry, make_token, make_user
from tests.mcp.wire import MODERN, McpClient
from tests.site.test_widgets import NORMALIZED, TEXT

NEW_TOOLS = (
    "schema_update_field",
    "taxonomy_update",
    "taxonomy_update_term",
    "taxonomy_delete_term",
    "taxonomy_list_terms",
    "menu_update",
    "menu_delete",
    "section_update",
    "section_delete",
    "widget_area_list",
    "widget_area_set_widgets",
)
SYSTEM = Actor.system()


def typed(mcp: McpClient, name: str, arguments: dict) -> dict:
    """A successful call's answer, checked against the outputSchema the tool declares."""
    value = mcp.ok(name, arguments)
    jsonschema.validate(value, registry.get(name).output_schema)
    return value


def demoted(scope: str, role: int) -> McpClient:
    """A client whose token holds ``scope`` but whose user now has only ``role`` (tokens outlive demotions)."""
    user = make_user(Role.ADMIN)
    _, raw = make_token(user, [scope])
    user.role = role
    user.save(update_fields=["role"])
    return McpClient(raw, MODERN)


def role_refusal(role: int) -> dict:
    label = Role(role).label.lower()
    return {
        "code": -32600,
        "message": f"Insufficient scope: requires the role {label} ({role}) or higher",
        "data": {"requiredRole": role},
    }


def scope_refusal(scope: str) -> dict:
    return {
        "code": -32600,
        "message": f"Insufficient scope: requires {scope}",
        "data": {"requiredScope": scope},
    }


def test_the_new_tools_declare_their_output_schema(admin_mcp):
    listed = {tool["name"]: tool for tool in admin_mcp.request("tools/list")["result"]["tools"]}
    for name in NEW_TOOLS:
        assert listed[name]["outputSchema"] == registry.get(name).output_schema, name
        assert listed[name]["outputSchema"]["type"] == "object"


# --- fields ----------------------------------------------------------------------------------------------------------


@pytest.fixture
def posts():
    return make_collection("posts", fields=[("title", "string"), ("rating", "string")])


def test_a_field_is_updated_as_rest_updates_it(admin_mcp, admin_api, posts):
    changed = typed(
        admin_mcp,
        "schema_update_field",
        {
            "collection": "posts",
            "fieldSlug": "rating",
            "label": "Stars",
            "required": True,
            "validation": {"maxLength": 3},
            "sortOrder": 0,
            "searchable": True,
            "translatable": False,
        },
    )
    assert changed == admin_api.get("/_cms/api/schema/collections/posts/fields/rating").json()["data"]
    assert (changed["label"], changed["required"], changed["validation"]) == ("Stars", True, {"maxLength": 3})
    assert (changed["searchable"], changed["translatable"], changed["sortOrder"]) == (True, False, 0)
    cleared = typed(
        admin_mcp, "schema_update_field", {"collection": "posts", "fieldSlug": "rating", "validation": None}
    )
    assert cleared["validation"] == {}


def test_a_type_change_converts_the_stored_values(admin_mcp, posts):
    entry = make_entry(posts, {"title": "One", "rating": "4"})
    changed = typed(
        admin_mcp, "schema_update_field", {"collection": "posts", "fieldSlug": "rating", "type": "integer"}
    )
    assert changed["type"] == "integer"
    assert Entry.objects.get(pk=entry.pk).data["rating"] == 4


def test_a_type_change_that_does_not_convert_changes_nothing(admin_mcp, posts):
    entry = make_entry(posts, {"title": "One", "rating": "four"})
    text, error = admin_mcp.fails(
        "schema_update_field", {"collection": "posts", "fieldSlug": "rating", "type": "integer"}
    )
    message = "Cannot change 'rating' from string to integer: some stored values do not convert."
    detail = """'four' cannot become integer: Expected a number, got "four"."""
    assert text == f"[SCHEMA_ERROR] {message}\n- {entry.pk}: {detail}"
    assert error == {"code": "SCHEMA_ERROR", "message": message, "details": {entry.pk: detail}}
    assert Field.objects.get(collection__slug="posts", slug="rating").type == "string"
    assert Entry.objects.get(pk=entry.pk).data["rating"] == "four"


def test_field_update_failures(admin_mcp, posts):
    text, error = admin_mcp.fails(
        "schema_update_field", {"collection": "posts", "fieldSlug": "rating", "slug": "stars"}
    )
    renamed = "A field's slug cannot be changed; add a new field and remove this one instead."
    assert text == f"[VALIDATION_ERROR] slug: {renamed}"
    assert error == {"code": "VALIDATION_ERROR", "message": f"slug: {renamed}", "details": {"slug": renamed}}
    text, _ = admin_mcp.fails(
        "schema_update_field", {"collection": "posts", "fieldSlug": "nope", "label": "x"}
    )
    assert text == "[NOT_FOUND] No field 'nope' in collection 'posts'; fields: title, rating."
    text, _ = admin_mcp.fails(
        "schema_update_field", {"collection": "pages", "fieldSlug": "title", "label": "x"}
    )
    assert text == "[NOT_FOUND] No collection 'pages'; collections: posts."
    text, error = admin_mcp.fails(
        "schema_update_field", {"collection": "posts", "fieldSlug": "rating", "required": "often"}
    )
    assert error["details"] == {"required": "Must be a valid boolean."}


def test_field_update_refusals(mcp_for, posts):
    editor = mcp_for(Role.EDITOR, ["schema:read"])
    arguments = {"collection": "posts", "fieldSlug": "rating", "label": "x"}
    assert editor.refused("schema_update_field", arguments) == scope_refusal("schema:write")
    assert demoted("schema:write", Role.EDITOR).refused("schema_update_field", arguments) == role_refusal(
        Role.ADMIN
    )
    assert Field.objects.get(collection__slug="posts", slug="rating").label != "x"


# --- taxonomies and terms ---------------------------------------------------------------------------------------------


@pytest.fixture
def category(posts):
    taxonomy = taxonomy_services.taxonomy_create(
        actor=SYSTEM, name="category", label="Categories", hierarchical=True, collections=["posts"]
    )
    news = taxonomy_services.term_create(actor=SYSTEM, taxonomy=taxonomy, label="News", slug="news")
    local = taxonomy_services.term_create(
        actor=SYSTEM, taxonomy=taxonomy, label="Local", slug="local", parent_id=news.pk
    )
    taxonomy_services.term_create(
        actor=SYSTEM, taxonomy=taxonomy, label="Town", slug="town", parent_id=local.pk
    )
    taxonomy_services.term_create(actor=SYSTEM, taxonomy=taxonomy, label="Arts", slug="arts")
    return taxonomy


def test_a_taxonomy_is_updated(admin_mcp, admin_api, category):
    make_collection("pages", fields=[("title", "string")])
    entry = make_entry(make_collection("notes", fields=[("title", "string")]), {"title": "n"})
    taxonomy_services.taxonomy_update(
        actor=SYSTEM, taxonomy=category, changes={"collections": ["posts", "notes"]}
    )
    taxonomy_services.entry_terms_set(
        actor=SYSTEM, entry=entry, taxonomy=category, term_ids=[Term.objects.get(slug="arts").pk]
    )
    changed = typed(
        admin_mcp,
        "taxonomy_update",
        {
            "name": "category",
            "label": "Sections",
            "labelSingular": "Section",
            "collections": ["pages", "posts"],
        },
    )
    assert changed == admin_api.get("/_cms/api/taxonomies/category").json()["data"]
    assert (changed["label"], changed["labelSingular"], changed["collections"]) == (
        "Sections",
        "Section",
        ["pages", "posts"],
    )
    # The collection taken off the list lost this taxonomy's terms on its entries.
    assert not EntryTerm.objects.filter(entry_id=entry.pk).exists()


def test_taxonomy_update_failures(admin_mcp, category):
    text, error = admin_mcp.fails("taxonomy_update", {"name": "category", "hierarchical": False})
    nested = "2 term(s) have a parent; clear their parentId before making 'category' flat."
    assert text == f"[VALIDATION_ERROR] hierarchical: {nested}"
    assert error["details"] == {"hierarchical": nested}
    text, error = admin_mcp.fails("taxonomy_update", {"name": "category", "collections": ["nowhere"]})
    unknown = "Unknown collection(s) nowhere; collections: posts."
    assert text == f"[VALIDATION_ERROR] collections: {unknown}"
    assert error == {
        "code": "VALIDATION_ERROR",
        "message": f"collections: {unknown}",
        "details": {"collections": unknown},
    }
    text, _ = admin_mcp.fails("taxonomy_update", {"name": "tag", "label": "Tags"})
    assert text == "[NOT_FOUND] No taxonomy 'tag'; taxonomies: category."
    assert admin_mcp.ok("taxonomy_list")["items"][0]["hierarchical"] is True


def test_taxonomy_update_refusals(mcp_for, category):
    editor = mcp_for(Role.EDITOR, ["content:write", "schema:read"])
    assert editor.refused("taxonomy_update", {"name": "category", "label": "x"}) == scope_refusal(
        "schema:write"
    )
    refused = demoted("schema:write", Role.EDITOR).refused(
        "taxonomy_update", {"name": "category", "label": "x"}
    )
    assert refused == role_refusal(Role.ADMIN)


def test_a_term_is_updated_and_moved(admin_mcp, admin_api, category):
    local = Term.objects.get(slug="local")
    changed = typed(
        admin_mcp,
        "taxonomy_update_term",
        {
            "taxonomy": "category",
            "termSlug": "local",
            "label": "Local news",
            "slug": "local-news",
            "description": "Near you",
            "parentId": None,
        },
    )
    rest = admin_api.get("/_cms/api/taxonomies/category/terms/local-news").json()["data"]
    assert changed == {key: value for key, value in rest.items() if key != "count"}
    assert changed == {
        "id": local.pk,
        "taxonomy": "category",
        "slug": "local-news",
        "label": "Local news",
        "parentId": None,
        "description": "Near you",
        "createdAt": rest["createdAt"],
        "updatedAt": rest["updatedAt"],
    }
    moved = typed(
        admin_mcp,
        "taxonomy_update_term",
        {"taxonomy": "category", "termSlug": "local-news", "parentId": Term.objects.get(slug="arts").pk},
    )
    assert moved["parentId"] == Term.objects.get(slug="arts").pk


def test_term_update_failures(admin_mcp, category):
    text, error = admin_mcp.fails(
        "taxonomy_update_term", {"taxonomy": "category", "termSlug": "local", "slug": "arts"}
    )
    assert text == "[DUPLICATE_SLUG] The slug 'arts' is already used in 'category'.\n- slug: Taken."
    assert error == {
        "code": "DUPLICATE_SLUG",
        "message": "The slug 'arts' is already used in 'category'.",
        "details": {"slug": "Taken."},
    }
    town = Term.objects.get(slug="town")
    text, error = admin_mcp.fails(
        "taxonomy_update_term", {"taxonomy": "category", "termSlug": "news", "parentId": town.pk}
    )
    loop = "A term cannot be its own parent or the child of one of its descendants."
    assert text == f"[VALIDATION_ERROR] parentId: {loop}"
    assert error["details"] == {"parentId": loop}
    text, error = admin_mcp.fails(
        "taxonomy_update_term", {"taxonomy": "category", "termSlug": "news", "label": ""}
    )
    assert list(error["details"]) == ["label"]
    text, _ = admin_mcp.fails(
        "taxonomy_update_term", {"taxonomy": "category", "termSlug": "gone", "label": "x"}
    )
    assert text == "[NOT_FOUND] No term 'gone' in 'category'."
    text, _ = admin_mcp.fails("taxonomy_update_term", {"taxonomy": "tag", "termSlug": "news", "label": "x"})
    assert text == "[NOT_FOUND] No taxonomy 'tag'; taxonomies: category."
    assert Term.objects.get(slug="news").parent_id is None


def test_a_term_is_deleted_and_its_children_move_up(admin_mcp, posts, category):
    news, local = Term.objects.get(slug="news"), Term.objects.get(slug="local")
    entry = make_entry(posts, {"title": "t"})
    taxonomy_services.entry_terms_set(actor=SYSTEM, entry=entry, taxonomy=category, term_ids=[local.pk])
    assert typed(admin_mcp, "taxonomy_delete_term", {"taxonomy": "category", "termSlug": "local"}) == {
        "success": True
    }
    assert Term.objects.get(slug="town").parent_id == news.pk
    assert not EntryTerm.objects.filter(entry_id=entry.pk).exists()
    text, error = admin_mcp.fails("taxonomy_delete_term", {"taxonomy": "category", "termSlug": "local"})
    assert text == "[NOT_FOUND] No term 'local' in 'category'."
    assert error == {"code": "NOT_FOUND", "message": "No term 'local' in 'category'.", "details": {}}


def test_term_changes_need_an_editor(mcp_for, category):
    author = mcp_for(Role.AUTHOR, ["content:write"])
    arguments = {"taxonomy": "category", "termSlug": "news"}
    assert author.refused("taxonomy_update_term", {**arguments, "label": "x"}) == role_refusal(Role.EDITOR)
    assert author.refused("taxonomy_delete_term", arguments) == role_refusal(Role.EDITOR)
    reader = mcp_for(Role.EDITOR, ["content:read"])
    assert reader.refused("taxonomy_update_term", {**arguments, "label": "x"}) == scope_refusal(
        "content:write"
    )
    assert reader.refused("taxonomy_delete_term", arguments) == scope_refusal("content:write")
    assert Term.objects.filter(slug="news", label="News").exists()


def test_terms_are_listed_as_a_tree_on_request(admin_mcp, admin_api, posts, category):
    entry = make_entry(posts, {"title": "t"})
    town = Term.objects.get(slug="town")
    taxonomy_services.entry_terms_set(actor=SYSTEM, entry=entry, taxonomy=category, term_ids=[town.pk])
    flat = admin_mcp.ok("taxonomy_list_terms", {"taxonomy": "category"})
    by_slug = {term["slug"]: term for term in flat["items"]}
    tree = typed(admin_mcp, "taxonomy_list_terms", {"taxonomy": "category", "tree": True})
    assert tree == {
        "items": [
            {**by_slug["arts"], "children": []},
            {
                **by_slug["news"],
                "children": [{**by_slug["local"], "children": [{**by_slug["town"], "children": []}]}],
            },
        ],
        "nextCursor": None,
    }
    assert by_slug["town"]["count"] == 1
    assert tree == admin_api.get("/_cms/api/taxonomies/category/terms?tree=true").json()["data"]
    # Pages count branches: one top-level term per page, each with its whole subtree.
    first = typed(admin_mcp, "taxonomy_list_terms", {"taxonomy": "category", "tree": True, "limit": 1})
    assert (first["items"], first["nextCursor"] is not None) == ([tree["items"][0]], True)
    second = admin_mcp.ok(
        "taxonomy_list_terms",
        {"taxonomy": "category", "tree": True, "limit": 1, "cursor": first["nextCursor"]},
    )
    assert second == {"items": [tree["items"][1]], "nextCursor": None}
    # parentId roots the tree at a term's children.
    below = admin_mcp.ok(
        "taxonomy_list_terms", {"taxonomy": "category", "tree": True, "parentId": by_slug["news"]["id"]}
    )
    assert below == {"items": tree["items"][1]["children"], "nextCursor": None}
    # Without tree the list stays flat: no children key.
    assert "children" not in flat["items"][0]
    text, _ = admin_mcp.fails("taxonomy_list_terms", {"taxonomy": "tag", "tree": True})
    assert text == "[NOT_FOUND] No taxonomy 'tag'; taxonomies: category."


# --- menus ------------------------------------------------------------------------------------------------------------


@pytest.fixture
def main_menu():
    menu = menu_services.menu_create(actor=SYSTEM, name="main", label="Main")
    menu_services.menu_item_create(
        actor=SYSTEM, menu=menu, values={"type": "custom", "label": "Home", "url": "/"}
    )
    return menu


def test_a_menu_is_renamed(admin_mcp, admin_api, main_menu):
    changed = typed(admin_mcp, "menu_update", {"name": "main", "label": " Primary "})
    rest = admin_api.get("/_cms/api/menus/main").json()["data"]
    assert changed == {key: value for key, value in rest.items() if key != "items"}
    assert changed == {
        "id": main_menu.pk,
        "name": "main",
        "label": "Primary",
        "createdAt": rest["createdAt"],
        "updatedAt": rest["updatedAt"],
    }
    assert [item["label"] for item in rest["items"]] == ["Home"]


def test_menu_update_failures(admin_mcp, main_menu):
    text, error = admin_mcp.fails("menu_update", {"name": "main", "label": ""})
    assert text == "[VALIDATION_ERROR] label: This field may not be blank."
    assert error == {
        "code": "VALIDATION_ERROR",
        "message": "label: This field may not be blank.",
        "details": {"label": "This field may not be blank."},
    }
    _, error = admin_mcp.fails("menu_update", {"name": "main"})
    assert error["details"] == {"label": "This field is required."}
    text, _ = admin_mcp.fails("menu_update", {"name": "footer", "label": "Footer"})
    assert text == "[NOT_FOUND] No menu 'footer'; menus: main."
    assert Menu.objects.get(name="main").label == "Main"


def test_a_menu_is_deleted_with_its_items(admin_mcp, main_menu):
    assert typed(admin_mcp, "menu_delete", {"name": "main"}) == {"success": True}
    assert (Menu.objects.count(), MenuItem.objects.count()) == (0, 0)
    text, error = admin_mcp.fails("menu_delete", {"name": "main"})
    assert text == "[NOT_FOUND] No menu 'main'; menus: none yet."
    assert error == {"code": "NOT_FOUND", "message": "No menu 'main'; menus: none yet.", "details": {}}


def test_menu_changes_need_an_editor(mcp_for, main_menu):
    author = mcp_for(Role.AUTHOR, ["content:write"])
    assert author.refused("menu_update", {"name": "main", "label": "x"}) == role_refusal(Role.EDITOR)
    assert author.refused("menu_delete", {"name": "main"}) == role_refusal(Role.EDITOR)
    reader = mcp_for(Role.EDITOR, ["content:read"])
    assert reader.refused("menu_update", {"name": "main", "label": "x"}) == scope_refusal("content:write")
    assert reader.refused("menu_delete", {"name": "main"}) == scope_refusal("content:write")
    assert Menu.objects.filter(name="main", label="Main").exists()


# --- sections ---------------------------------------------------------------------------------------------------------


@pytest.fixture
def note():
    site_services.section_create(actor=SYSTEM, title="Footer note", slug="taken")
    return site_services.section_create(actor=SYSTEM, title="Note", keywords=["aside"], content=TEXT)


def test_a_section_is_updated(admin_mcp, admin_api, note):
    changed = typed(
        admin_mcp,
        "section_update",
        {
            "sectionSlug": "note",
            "title": "Aside",
            "slug": "aside",
            "keywords": ["side"],
            "content": "Buy **now**.",
        },
    )
    assert changed == admin_api.get("/_cms/api/sections/aside").json()["data"]
    assert (changed["id"], changed["slug"], changed["title"], changed["keywords"]) == (
        note.pk,
        "aside",
        "Aside",
        ["side"],
    )
    assert changed["content"][0]["children"][1]["marks"] == ["strong"]
    kept = typed(admin_mcp, "section_update", {"sectionSlug": "aside", "source": "import"})
    assert (kept["source"], kept["content"]) == ("import", changed["content"])


def test_section_update_failures(admin_mcp, note):
    text, error = admin_mcp.fails("section_update", {"sectionSlug": "note", "slug": "taken"})
    assert text == "[DUPLICATE_SLUG] A section with the slug 'taken' exists already.\n- slug: Taken."
    assert error == {
        "code": "DUPLICATE_SLUG",
        "message": "A section with the slug 'taken' exists already.",
        "details": {"slug": "Taken."},
    }
    text, error = admin_mcp.fails("section_update", {"sectionSlug": "note", "content": [{"text": "x"}]})
    assert text == "[VALIDATION_ERROR] content[0]._type: Every block needs a _type, e.g. 'block' for text."
    assert error["details"] == {"content[0]._type": "Every block needs a _type, e.g. 'block' for text."}
    text, _ = admin_mcp.fails("section_update", {"sectionSlug": "gone", "title": "x"})
    assert text == "[NOT_FOUND] No section 'gone'."
    assert Section.objects.get(pk=note.pk).content == NORMALIZED


def test_a_section_is_deleted(admin_mcp, note):
    assert typed(admin_mcp, "section_delete", {"slug": "note"}) == {"success": True}
    assert not Section.objects.filter(pk=note.pk).exists()
    text, error = admin_mcp.fails("section_delete", {"slug": "note"})
    assert (text, error) == (
        "[NOT_FOUND] No section 'note'.",
        {"code": "NOT_FOUND", "message": "No section 'note'.", "details": {}},
    )


def test_section_changes_need_an_editor(mcp_for, note):
    author = mcp_for(Role.AUTHOR, ["content:write"])
    assert author.refused("section_update", {"sectionSlug": "note", "title": "x"}) == role_refusal(
        Role.EDITOR
    )
    assert author.refused("section_delete", {"slug": "note"}) == role_refusal(Role.EDITOR)
    reader = mcp_for(Role.EDITOR, ["content:read"])
    assert reader.refused("section_update", {"sectionSlug": "note", "title": "x"}) == scope_refusal(
        "content:write"
    )
    assert reader.refused("section_delete", {"slug": "note"}) == scope_refusal("content:write")
    assert Section.objects.filter(pk=note.pk, title="Note").exists()


# --- widget areas ------------------------------------------------------------------------------------------------------


@pytest.fixture
def sidebar():
    area = site_services.widget_area_create(actor=SYSTEM, name="sidebar", label="Sidebar")
    site_services.widget_create(actor=SYSTEM, area=area, type="content", title="About", content=TEXT)
    site_services.widget_create(actor=SYSTEM, area=area, type="recent-posts", title="Latest")
    site_services.widget_area_create(actor=SYSTEM, name="footer", label="Footer")
    return area


def test_widget_areas_are_listed(mcp_for, admin_api, sidebar):
    reader = mcp_for(Role.SUBSCRIBER, ["content:read"])
    listed = typed(reader, "widget_area_list", {})
    assert listed == admin_api.get("/_cms/api/widget-areas").json()["data"]
    assert [(area["name"], [widget["title"] for widget in area["widgets"]]) for area in listed["items"]] == [
        ("footer", []),
        ("sidebar", ["About", "Latest"]),
    ]
    assert mcp_for(Role.ADMIN, ["media:read"]).refused("widget_area_list", {}) == scope_refusal(
        "content:read"
    )


def test_an_areas_widgets_are_set(admin_mcp, admin_api, sidebar):
    about, latest = Widget.objects.filter(area=sidebar).order_by("sort_order")
    area = typed(
        admin_mcp,
        "widget_area_set_widgets",
        {
            "name": "sidebar",
            "widgets": [
                {"type": "tag-cloud", "title": " Tags "},
                {"id": about.pk, "type": "content", "title": "About us", "content": "Hello"},
            ],
        },
    )
    assert area == admin_api.get("/_cms/api/widget-areas/sidebar").json()["data"]
    added, kept = area["widgets"]
    assert (added["type"], added["title"], added["content"], added["sortOrder"]) == (
        "tag-cloud",
        "Tags",
        [],
        0,
    )
    assert (kept["id"], kept["title"], kept["sortOrder"]) == (about.pk, "About us", 1)
    assert kept["content"][0]["children"][0]["text"] == "Hello"
    assert not Widget.objects.filter(pk=latest.pk).exists()
    assert typed(admin_mcp, "widget_area_set_widgets", {"name": "sidebar", "widgets": []})["widgets"] == []
    assert Widget.objects.count() == 0


def test_setting_widgets_checks_every_item_first(admin_mcp, sidebar):
    other = site_services.widget_create(
        actor=SYSTEM,
        area=site_services.widget_area_create(actor=SYSTEM, name="side-2", label="2"),
        type="content",
    )
    about = Widget.objects.get(area=sidebar, title="About")
    text, error = admin_mcp.fails(
        "widget_area_set_widgets",
        {
            "name": "sidebar",
            "widgets": [
                {"type": "content", "title": "Fine"},
                {"type": "Not a type!"},
                {"id": other.pk, "type": "content"},
                {"id": about.pk, "type": "content"},
                {"id": about.pk, "type": "content", "content": [{"_type": "nope"}]},
            ],
        },
    )
    assert text.startswith("[VALIDATION_ERROR] ")
    unknown = error["details"].pop("widgets.4.content[0]._type")
    assert unknown.startswith("Unknown block type 'nope'; known types: block, ")
    assert error["details"] == {
        "widgets.1.type": "A widget type name: letters, digits, '-' and '_' (e.g. content).",
        "widgets.2.id": f"No widget {other.pk} in the area 'sidebar'; leave id out to add one.",
        "widgets.4.id": "Listed twice.",
    }
    assert [widget.title for widget in Widget.objects.filter(area=sidebar).order_by("sort_order")] == [
        "About",
        "Latest",
    ]
    text, _ = admin_mcp.fails("widget_area_set_widgets", {"name": "header", "widgets": []})
    assert text == "[NOT_FOUND] No widget area 'header'; areas: footer, side-2, sidebar."
    _, error = admin_mcp.fails("widget_area_set_widgets", {"name": "sidebar", "widgets": [{"title": "x"}]})
    assert error["details"] == {"widgets.0.type": "This field is required."}


def test_setting_widgets_needs_an_editor(mcp_for, sidebar):
    arguments = {"name": "sidebar", "widgets": []}
    assert mcp_for(Role.AUTHOR, ["content:write"]).refused(
        "widget_area_set_widgets", arguments
    ) == role_refusal(Role.EDITOR)
    reader = mcp_for(Role.EDITOR, ["content:read"])
    assert reader.refused("widget_area_set_widgets", arguments) == scope_refusal("content:write")
    assert Widget.objects.filter(area=sidebar).count() == 2
