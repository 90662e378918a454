"""Taxonomies, their term trees and the menu editor in real Chromium, under the studio's CSP: every page passes
``check_page`` (axe, console errors, CSP; the editors at 390 px too) and the main ones are pictured for
docs/studio.md; keyboard moves with the per-item buttons (announced), one "Save order" request, drag and drop, the
entry search over every collection; each result checked through REST."""

from __future__ import annotations

import pytest
from django.test import Client
from playwright.sync_api import expect

from apps.accounts.models import Role
from apps.accounts.permissions import Actor
from apps.content import services as content_services
from apps.menus import services as menu_services
from apps.taxonomy import services as taxonomy_services
from tests.factories import make_collection, make_entry, make_user

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def editor(studio_browser, role: int = Role.EDITOR):
    """A signed-in browser, and a Django client signed in as the same person for the REST read-backs."""
    # A fixed address and name, so that the pictures in docs/studio/ are the same from run to run.
    user = make_user(role, email="structure@example.com", name="Sam Structure")
    client = Client()
    client.force_login(user)
    return studio_browser(user=user), client


def outline(nodes) -> list:
    return [
        [node["label"], outline(node["children"])] if node["children"] else node["label"] for node in nodes
    ]


def rest_outline(client) -> list:
    return outline(client.get("/_cms/api/menus/primary").json()["data"]["items"])


@pytest.fixture
def menu(transactional_db):
    menu = menu_services.menu_create(actor=Actor.system(), name="primary", label="Main menu")
    for label in ("Home", "About", "Blog"):
        menu_services.menu_item_create(
            actor=Actor.system(),
            menu=menu,
            values={"type": "custom", "label": label, "url": f"/{label.lower()}"},
        )
    return menu


@pytest.fixture
def categories(transactional_db):
    make_collection("posts", [("title", "string")], label="Posts")
    system = Actor.system()
    taxonomy = taxonomy_services.taxonomy_create(
        actor=system, name="category", label="Categories", hierarchical=True, collections=["posts"]
    )
    taxonomy_services.taxonomy_create(
        actor=system, name="post_tag", label="Tags", hierarchical=False, collections=["posts"]
    )
    news = taxonomy_services.term_create(
        actor=system, taxonomy=taxonomy, label="News", description="What happened, as it happened."
    )
    world = taxonomy_services.term_create(actor=system, taxonomy=taxonomy, label="World", parent_id=news.pk)
    taxonomy_services.term_create(actor=system, taxonomy=taxonomy, label="Europe", parent_id=world.pk)
    taxonomy_services.term_create(actor=system, taxonomy=taxonomy, label="Opinion")
    return taxonomy


def test_keyboard_moves_then_one_save(studio_browser, base_url, menu):
    me, client = editor(studio_browser)
    page = me.page
    posts: list[str] = []
    page.on("request", lambda request: request.method == "POST" and posts.append(request.url))
    page.goto("/_cms/admin/menus/primary/")
    save = page.get_by_role("button", name="Save order")
    expect(save).to_be_disabled()
    me.check("menu-editor-start", mobile=True)

    page.get_by_role("button", name="Indent About").focus()
    page.keyboard.press("Enter")
    announce = page.locator("#menu-announce")
    expect(announce).to_have_text("About indented: position 1 of 1 inside Home. Save order to keep it.")
    # The focus stays on the button, now useless (aria-disabled keeps it focusable).
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "Indent About"
    expect(page.get_by_role("button", name="Indent About")).to_have_attribute("aria-disabled", "true")
    page.get_by_role("button", name="Move up Blog").focus()
    page.keyboard.press("Space")
    expect(announce).to_have_text("Blog moved up: position 1 of 2 at the top level. Save order to keep it.")
    assert rest_outline(client) == ["Home", "About", "Blog"]  # nothing saved yet
    assert posts == []
    me.check("menu-editor-moved", mobile=True)

    save.click()
    expect(announce).to_have_text("Order saved.")
    expect(save).to_be_disabled()
    assert posts == [f"{base_url}/_cms/admin/menus/primary/order"]
    assert rest_outline(client) == ["Blog", ["Home", ["About"]]]
    me.check("menu-editor-saved")


def test_drag_and_drop_then_save(studio_browser, menu):
    me, client = editor(studio_browser)
    page = me.page
    page.goto("/_cms/admin/menus/primary/")
    rows = page.locator(".menu-item-row")
    # Blog onto Home's middle: inside it; then About onto Home's upper part: before it.
    page.locator("#menu-tree > li").nth(2).locator(".menu-item-row").drag_to(rows.nth(0))
    expect(page.locator("#menu-announce")).to_have_text(
        "Blog dropped: position 1 of 1 inside Home. Save order to keep it."
    )
    about = page.locator("li.menu-item", has_text="About").locator(".menu-item-row").first
    home = page.locator("#menu-tree > li").first.locator(".menu-item-row").first
    box = home.bounding_box()
    about.drag_to(home, target_position={"x": box["width"] / 2, "y": 2})
    page.get_by_role("button", name="Save order").click()
    expect(page.locator("#menu-announce")).to_have_text("Order saved.")
    assert rest_outline(client) == ["About", ["Home", ["Blog"]]]
    me.check("menu-editor-dragged")


def test_entry_search_over_every_collection_adds_an_entry(studio_browser, menu):
    posts = make_collection("posts", [("title", "string")], label="Posts")
    pages = make_collection("pages", [("title", "string")], label="Pages")
    make_entry(posts, {"title": "Harbour news"}, status="published")
    wanted = make_entry(pages, {"title": "Harbour map"})
    me, client = editor(studio_browser)
    page = me.page
    page.goto("/_cms/admin/menus/primary/")
    page.get_by_label("Search entries").fill("harbour")
    results = page.get_by_role("list", name="Matching entries")
    expect(results.get_by_role("button")).to_have_count(2)
    me.check("menu-editor-search")
    results.get_by_role("button", name="Harbour map (Pages) draft").click()
    assert page.input_value("#item-entry") == wanted.pk
    assert page.input_value("#item-collection") == "pages"
    page.get_by_role("button", name="Add entry").click()
    expect(page.get_by_role("status").first).to_contain_text("Added “Harbour map” to the menu.")
    items = client.get("/_cms/api/menus/primary").json()["data"]["items"]
    assert (items[-1]["referenceCollection"], items[-1]["referenceId"]) == ("pages", wanted.pk)
    me.check("menu-editor-added")


def test_menus_list_editor_and_delete_confirmation(studio_browser, menu):
    """The pages of the docs: the list, an editor with nested items, a term and a trashed entry, the confirmation."""
    pages = make_collection("pages", [("title", "string")], label="Pages")
    gone = make_entry(pages, {"title": "Old offer"})
    contact = make_entry(pages, {"title": "Contact"}, status="published")
    home = menu.items.get(label="Home")
    system = Actor.system()
    menu_services.menu_item_create(
        actor=system,
        menu=menu,
        values={
            "type": "content",
            "reference_collection": "pages",
            "reference_id": contact.pk,
            "parent_id": home.pk,
        },
    )
    menu_services.menu_item_create(
        actor=system,
        menu=menu,
        values={
            "type": "content",
            "label": "Summer offer",
            "reference_collection": "pages",
            "reference_id": gone.pk,
        },
    )
    content_services.entry_trash(actor=system, entry=gone)
    menu_services.menu_create(actor=system, name="footer", label="Footer links")
    me, client = editor(studio_browser)
    page = me.page

    page.goto("/_cms/admin/menus/")
    expect(page.get_by_role("link", name="Menus", exact=True)).to_have_attribute("aria-current", "page")
    me.check("menus", mobile=True)
    page.locator("#main").get_by_role("link", name="Main menu").click()
    expect(page.locator("li.menu-item", has_text="Summer offer").locator(".badge")).to_have_text("trashed")
    me.check("menu-editor", doc="menu-editor", mobile=True)

    page.get_by_role("link", name="Delete the menu…").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Delete the menu Main menu?")
    me.check("menu-delete")
    page.get_by_role("link", name="Cancel").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Main menu")
    assert client.get("/_cms/api/menus/primary").status_code == 200


def test_term_tree_nests_terms(studio_browser, categories):
    me, client = editor(studio_browser)
    page = me.page
    page.goto("/_cms/admin/taxonomies/category/")
    tree = page.get_by_role("list", name="Terms (4)")
    expect(tree.locator(":scope > li")).to_have_count(2)
    europe = tree.locator("li[data-term=news] > ul > li[data-term=world] > ul > li[data-term=europe]")
    expect(europe.get_by_role("link", name="Europe", exact=True)).to_be_visible()
    expect(europe).to_contain_text("0 entries")
    me.check("taxonomy-terms", doc="taxonomy-terms", mobile=True)
    europe.get_by_role("link", name="Europe", exact=True).click()
    me.check("term-edit")
    page.get_by_label("Parent").select_option(label="News")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("li[data-term=news] > ul > li")).to_have_count(2)
    me.check("taxonomy-terms-saved")
    terms = client.get("/_cms/api/taxonomies/category/terms").json()["data"]["items"]
    parents = {term["slug"]: term["parentId"] for term in terms}
    assert parents["europe"] == parents["world"] is not None


def test_taxonomy_pages_for_an_admin(studio_browser, categories):
    """An admin also defines taxonomies: the list with its Edit links, the new and edit forms, and a term's delete
    confirmation, which says what the deletion does."""
    me, client = editor(studio_browser, Role.ADMIN)
    page = me.page
    page.goto("/_cms/admin/taxonomies/")
    expect(page.get_by_role("link", name="Taxonomies", exact=True)).to_have_attribute("aria-current", "page")
    me.check("taxonomies", doc="taxonomies", mobile=True)
    page.get_by_role("link", name="New taxonomy").click()
    me.check("taxonomy-new")
    page.get_by_role("button", name="Create taxonomy").click()
    expect(page.locator("#taxonomy-name")).to_have_attribute("aria-invalid", "true")
    me.check("taxonomy-new-errors", allow=(r"status of 400",))

    page.goto("/_cms/admin/taxonomies/post_tag/")
    me.check("taxonomy-terms-flat")
    page.get_by_label("Label").fill("Harbours")
    page.get_by_role("button", name="Add term").click()
    expect(page.get_by_role("list", name="Terms (1)")).to_contain_text("Harbours")
    page.get_by_role("link", name="Edit the taxonomy").click()
    me.check("taxonomy-edit")

    page.goto("/_cms/admin/taxonomies/category/")
    page.get_by_role("link", name="Delete World").click()
    expect(page.locator("#term-delete-effect")).to_have_text("No entry uses the term.")
    me.check("term-delete")
    page.get_by_role("button", name="Delete World").click()
    expect(page.locator("li[data-term=news] > ul > li[data-term=europe]")).to_be_visible()
    tags = client.get("/_cms/api/taxonomies/post_tag/terms").json()["data"]["items"]
    assert [term["label"] for term in tags] == ["Harbours"]
