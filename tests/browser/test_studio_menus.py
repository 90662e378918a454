"""The menu editor and a taxonomy's term tree in real Chromium, under the studio's CSP: keyboard moves with the
per-item buttons (announced), one "Save order" request, drag and drop, the entry search over every collection; each
result checked through REST. Plain Playwright assertions (no shared page checker on main yet); screenshots go to
var/screenshots/."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client
from playwright.sync_api import expect

from apps.accounts.models import Role
from apps.accounts.permissions import Actor
from apps.menus import services as menu_services
from apps.taxonomy import services as taxonomy_services
from tests.factories import make_collection, make_entry, make_user

pytestmark = [pytest.mark.browser, pytest.mark.slow]
SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"


def sign_in(browser, base_url: str, role: int = Role.EDITOR):
    client = Client()
    user = make_user(role, email="structure@example.com")
    client.force_login(user)
    browser.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": base_url}]
    )
    return client


def watch(page) -> list[str]:
    problems: list[str] = []
    # Failed loads are counted by URL below; the browser's own /favicon.ico probe is no page's fault.
    page.on(
        "console",
        lambda message: (
            message.type == "error"
            and not message.text.startswith("Failed to load resource")
            and problems.append(message.text)
        ),
    )
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on(
        "response",
        lambda response: response.status >= 400 and problems.append(f"{response.status} {response.url}"),
    )
    return problems


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


def test_keyboard_moves_then_one_save(browser, base_url, menu):
    client = sign_in(browser, base_url)
    page = browser.page
    problems = watch(page)
    posts: list[str] = []
    page.on("request", lambda request: request.method == "POST" and posts.append(request.url))
    page.goto("/_cms/admin/menus/primary/")
    save = page.get_by_role("button", name="Save order")
    expect(save).to_be_disabled()

    page.get_by_role("button", name="Indent About").focus()
    page.keyboard.press("Enter")
    announce = page.locator("#menu-announce")
    expect(announce).to_have_text("About indented: position 1 of 1 inside Home. Save order to keep it.")
    # The focus stays on the button, now useless (aria-disabled keeps it focusable).
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "Indent About"
    expect(page.get_by_role("button", name="Indent About")).to_have_attribute("aria-disabled", "true")
    page.get_by_role("button", name="Move Blog up").focus()
    page.keyboard.press("Space")
    expect(announce).to_have_text("Blog moved up: position 1 of 2 at the top level. Save order to keep it.")
    assert rest_outline(client) == ["Home", "About", "Blog"]  # nothing saved yet
    assert posts == []

    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "studio-menu-editor.png"), full_page=True)
    save.click()
    expect(announce).to_have_text("Order saved.")
    expect(save).to_be_disabled()
    assert posts == [f"{base_url}/_cms/admin/menus/primary/order"]
    assert rest_outline(client) == ["Blog", ["Home", ["About"]]]
    assert problems == []


def test_drag_and_drop_then_save(browser, base_url, menu):
    client = sign_in(browser, base_url)
    page = browser.page
    problems = watch(page)
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
    assert problems == []


def test_entry_search_over_every_collection_adds_an_entry(browser, base_url, menu):
    posts = make_collection("posts", [("title", "string")], label="Posts")
    pages = make_collection("pages", [("title", "string")], label="Pages")
    make_entry(posts, {"title": "Harbour news"}, status="published")
    wanted = make_entry(pages, {"title": "Harbour map"})
    client = sign_in(browser, base_url)
    page = browser.page
    problems = watch(page)
    page.goto("/_cms/admin/menus/primary/")
    page.get_by_label("Search entries").fill("harbour")
    results = page.get_by_role("list", name="Matching entries")
    expect(results.get_by_role("button")).to_have_count(2)
    results.get_by_role("button", name="Harbour map (Pages) draft").click()
    assert page.input_value("#item-entry") == wanted.pk
    assert page.input_value("#item-collection") == "pages"
    page.get_by_role("button", name="Add entry").click()
    expect(page.get_by_role("status").first).to_contain_text("Added “Harbour map” to the menu.")
    items = client.get("/_cms/api/menus/primary").json()["data"]["items"]
    assert (items[-1]["referenceCollection"], items[-1]["referenceId"]) == ("pages", wanted.pk)
    assert problems == []


def test_term_tree_nests_terms(browser, base_url, transactional_db):
    make_collection("posts", [("title", "string")], label="Posts")
    system = Actor.system()
    taxonomy = taxonomy_services.taxonomy_create(
        actor=system, name="category", label="Categories", hierarchical=True, collections=["posts"]
    )
    news = taxonomy_services.term_create(actor=system, taxonomy=taxonomy, label="News")
    world = taxonomy_services.term_create(actor=system, taxonomy=taxonomy, label="World", parent_id=news.pk)
    taxonomy_services.term_create(actor=system, taxonomy=taxonomy, label="Europe", parent_id=world.pk)
    sign_in(browser, base_url)
    page = browser.page
    problems = watch(page)
    page.goto("/_cms/admin/taxonomies/category/")
    tree = page.get_by_role("list", name="Terms (3)")
    expect(tree.locator(":scope > li")).to_have_count(1)
    europe = tree.locator("li[data-term=news] > ul > li[data-term=world] > ul > li[data-term=europe]")
    expect(europe.get_by_role("link", name="Europe", exact=True)).to_be_visible()
    expect(europe).to_contain_text("0 entries")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "studio-taxonomy-terms.png"), full_page=True)
    europe.get_by_role("link", name="Europe", exact=True).click()
    page.get_by_label("Parent").select_option(label="News")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("li[data-term=news] > ul > li")).to_have_count(2)
    assert problems == []
