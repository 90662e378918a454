"""Widgets and sections in real Chromium, under the studio's CSP, with the shared page checks (axe, console, CSP):
a section's body edited in the rich-text editor (typed text, bold) and saved, widgets reordered by keyboard and saved
in one request; each result checked through the REST API (an admin token over HTTP, as a script would)."""

from __future__ import annotations

import pytest
import requests
from playwright.sync_api import expect

from apps.accounts.models import Role
from apps.accounts.permissions import Actor
from apps.site import services as site_services
from tests.browser import studio
from tests.factories import make_token, make_user

pytestmark = [pytest.mark.browser, pytest.mark.slow]
READY = "textarea[data-portable-text][data-portable-text-state=ready]"
# The rich-text editor island's "Numbered list" button shows "1." under that name, which axe's
# label-content-name-mismatch refuses: the island's own problem (every page with the editor has it), reported to its
# owners. Until it is fixed, only that finding is let through on the pages that mount the island.
ISLAND_FINDING = (
    "label-content-name-mismatch: Elements must have their visible text as part of their accessible name"
)
ISLAND_BUTTON = 'at button[aria-label="Numbered list"]'


def check_with_island(me, name: str, *, doc: str | None = None) -> None:
    original = studio.axe_violations

    def without_the_island(page):
        found = []
        for text in original(page):
            head, *nodes = text.split("\n")
            nodes = [node for node in nodes if not (ISLAND_FINDING in head and ISLAND_BUTTON in node)]
            if nodes:
                found.append("\n".join([head, *nodes]))
        return found

    studio.axe_violations = without_the_island
    try:
        me.check(name, doc=doc)
    finally:
        studio.axe_violations = original


def paragraph(words: str) -> list[dict]:
    return [{"_type": "block", "children": [{"_type": "span", "text": words}]}]


@pytest.fixture
def rest(base_url, transactional_db):
    _, raw = make_token(make_user(Role.ADMIN, email="api.admin@example.com"), ["admin"])

    def get(path: str) -> dict:
        answer = requests.get(
            f"{base_url}/_cms/api{path}", headers={"Authorization": f"Bearer {raw}"}, timeout=10
        )
        assert answer.status_code == 200, answer.text
        return answer.json()["data"]

    return get


@pytest.fixture
def editor(studio_browser):
    # A fixed address, so that the pictures in docs/studio/ are the same from run to run.
    return studio_browser(user=make_user(Role.EDITOR, email="editor@example.com", name="Editor Example"))


def test_edit_a_section_in_the_rich_text_editor(editor, rest):
    system = Actor.system()
    site_services.section_create(
        actor=system, title="Call to action", keywords=["cta", "newsletter"], content=paragraph("Sign up")
    )
    site_services.section_create(
        actor=system, title="Pricing table", keywords=["plans"], content=paragraph("Plans"), source="import"
    )
    page = editor.page
    page.goto("/_cms/admin/sections/")
    expect(page.get_by_role("heading", name="Sections", level=1)).to_be_visible()
    editor.check("sections", mobile=True, doc="sections")
    page.get_by_label("Search titles and keywords").fill("newsletter")
    page.get_by_role("button", name="Search", exact=True).click()
    expect(page.locator("tbody tr")).to_have_count(1)
    page.get_by_role("link", name="Call to action").click()

    page.wait_for_selector(READY, state="attached")
    check_with_island(editor, "section-edit", doc="section-edit")
    body = page.get_by_role("textbox", name="Content")
    body.click()
    page.keyboard.press("Control+End")
    page.keyboard.type(" today, ")
    page.keyboard.press("Control+b")
    page.keyboard.type("free")
    page.keyboard.press("Control+b")
    with page.expect_navigation():
        page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("status").first).to_contain_text("Saved the section “Call to action”.")
    check_with_island(editor, "section-saved")

    [block] = rest("/sections/call-to-action")["content"]
    assert [(span["text"], span["marks"]) for span in block["children"]] == [
        ("Sign up today, ", []),
        ("free", ["strong"]),
    ]


def test_reorder_widgets_by_keyboard(editor, rest):
    system = Actor.system()
    sidebar = site_services.widget_area_create(
        actor=system, name="sidebar", label="Sidebar", description="The right-hand column"
    )
    for title, kind, words in (
        ("About us", "content", "A small harbour shop since 1972."),
        ("Find us", "menu", ""),
        ("Opening hours", "content", "Monday to Saturday, 9 to 18."),
    ):
        site_services.widget_create(
            actor=system, area=sidebar, type=kind, title=title, content=paragraph(words) if words else []
        )
    site_services.widget_area_create(actor=system, name="footer", label="Footer")
    page = editor.page
    posts: list[str] = []
    page.on("request", lambda request: request.method == "POST" and posts.append(request.url))
    page.goto("/_cms/admin/widgets/")
    save = page.get_by_role("button", name="Save order of Sidebar")
    expect(save).to_be_disabled()
    editor.check("widgets", mobile=True, doc="widgets")

    page.get_by_role("button", name="Move Opening hours up").focus()
    page.keyboard.press("Enter")
    announce = page.locator("#widget-announce")
    expect(announce).to_have_text("Opening hours moved up: position 2 of 3. Save order to keep it.")
    assert page.evaluate("document.activeElement.textContent") == "Move Opening hours up"
    page.keyboard.press("Enter")
    expect(announce).to_have_text("Opening hours moved up: position 1 of 3. Save order to keep it.")
    # At the top now: the button stays focused but says it cannot act.
    expect(page.get_by_role("button", name="Move Opening hours up")).to_have_attribute(
        "aria-disabled", "true"
    )
    assert [w["title"] for w in rest("/widget-areas/sidebar")["widgets"]] == [
        "About us",
        "Find us",
        "Opening hours",
    ]
    assert posts == []

    save.focus()
    page.keyboard.press("Enter")
    expect(announce).to_have_text("Order saved.")
    expect(save).to_be_disabled()
    assert posts == [f"{page.url.split('/_cms/')[0]}/_cms/admin/widgets/sidebar/order"]
    assert [w["title"] for w in rest("/widget-areas/sidebar")["widgets"]] == [
        "Opening hours",
        "About us",
        "Find us",
    ]

    # The order holds after a reload, and a widget opens in the rich-text editor.
    page.reload()
    expect(page.locator("#area-sidebar li.widget-item").first).to_contain_text("Opening hours")
    page.get_by_role("link", name="Edit About us").click()
    page.wait_for_selector(READY, state="attached")
    check_with_island(editor, "widget-edit", doc="widget-edit")
