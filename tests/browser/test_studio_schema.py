"""The schema builder in real Chromium (apps/studio/static/studio/schema.js under the studio's CSP): the field form
shows only the chosen type's settings and a select field is added with its options; fields are reordered by
keyboard and the order saved in one request. Results are read back through REST.

No console error and no CSP violation may occur; each page is saved to var/screenshots/ for docs/studio.md."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import expect

from apps.accounts.models import Role
from apps.schema.models import Field
from tests.factories import make_collection, make_user

pytestmark = [pytest.mark.browser, pytest.mark.slow]
SHOTS = Path(settings.BASE_DIR) / "var" / "screenshots"


def sign_in_admin(browser, base_url: str) -> None:
    client = Client()
    client.force_login(make_user(Role.ADMIN, email="schema-admin@example.com"))
    cookie = client.cookies["sessionid"]
    browser.context.add_cookies([{"name": "sessionid", "value": cookie.value, "url": base_url}])


def watch_errors(page) -> list[str]:
    problems: list[str] = []

    def console(message) -> None:
        if message.type == "error":
            problems.append(f"{message.text} {message.location}")

    page.on("console", console)
    page.on(
        "response",
        lambda response: response.status >= 400 and problems.append(f"{response.status} {response.url}"),
    )
    page.on("pageerror", lambda error: problems.append(str(error)))
    return problems


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"studio-{name}.png"), full_page=True)


def test_add_a_select_field_with_only_its_settings_shown(browser, base_url, transactional_db):
    make_collection("posts", label="Posts", fields=[("title", "string")])
    sign_in_admin(browser, base_url)
    page = browser.page
    problems = watch_errors(page)
    page.goto("/_cms/admin/schema/")
    shot(page, "schema-collections")
    page.locator("#main").get_by_role("link", name="Posts", exact=True).click()
    page.get_by_role("link", name="Add a field").click()

    # string (the default type) takes lengths and a pattern; the select's list and the reference's target are hidden.
    expect(page.get_by_label("Maximum length")).to_be_visible()
    expect(page.get_by_label("Allowed values")).to_be_hidden()
    expect(page.get_by_label("Target collection")).to_be_hidden()

    page.locator("#f-label").fill("Mood of the day")
    # The slug follows the label until edited, checked live against the rules the page states.
    expect(page.locator("#f-slug")).to_have_value("mood_of_the_day")
    expect(page.locator("#f-slug-check")).to_have_text("“mood_of_the_day” fits the rules.")
    page.locator("#f-slug").fill("Title")
    expect(page.locator("#f-slug-check")).to_have_text(
        "Not valid yet: lowercase letters, digits and _, starting with a letter."
    )
    page.locator("#f-slug").fill("title")
    expect(page.locator("#f-slug-check")).to_have_text("“title” is already taken here.")
    page.locator("#f-slug").fill("mood")

    page.get_by_label("Type").select_option("select")
    expect(page.get_by_label("Allowed values")).to_be_visible()
    for hidden in ("Maximum length", "Pattern", "Minimum", "Editor rows", "Target collection"):
        expect(page.get_by_label(hidden, exact=True)).to_be_hidden()
    expect(page.get_by_label("Searchable")).to_be_visible()
    assert page.locator("#f-validation-maxLength").evaluate("el => el.disabled") is True
    page.get_by_label("Allowed values").fill("happy\nsad\nangry")
    page.get_by_label("Default value").fill("sad")
    page.get_by_label("Required", exact=True).check()
    shot(page, "schema-field-form")
    page.get_by_role("button", name="Add field").click()

    expect(page.get_by_role("status").first).to_contain_text("Added the field Mood of the day.")
    mood = Field.objects.get(collection__slug="posts", slug="mood")
    assert (mood.type, mood.validation, mood.options, mood.default_value, mood.required) == (
        "select",
        {"options": ["happy", "sad", "angry"]},
        {},
        "sad",
        True,
    )
    assert problems == []


def test_reorder_fields_by_keyboard(browser, base_url, transactional_db, client_for):
    make_collection(
        "posts", label="Posts", fields=[("title", "string"), ("body", "text"), ("views", "integer")]
    )
    sign_in_admin(browser, base_url)
    page = browser.page
    problems = watch_errors(page)
    page.goto("/_cms/admin/schema/posts/")
    down = page.get_by_role("button", name="Move down Title")
    down.focus()
    page.keyboard.press("Enter")
    # Focus stays on the button that moved the field; a second press moves it again, to the end.
    assert page.evaluate("document.activeElement.id") == "move-title-down"
    page.keyboard.press("Enter")
    expect(page.locator("[data-order-status]")).to_have_text(
        "Title moved to position 3 of 3. Save the order to keep it."
    )
    expect(down).to_be_disabled()
    assert page.evaluate("document.activeElement.id") == "move-title-up"
    order = page.locator(".field-order li").evaluate_all("items => items.map(item => item.dataset.slug)")
    assert order == ["body", "views", "title"]
    shot(page, "schema-fields")

    with page.expect_request(lambda request: request.method == "POST") as sent:
        page.get_by_role("button", name="Save order").click()
    assert "move=" not in (sent.value.post_data or "")
    expect(page.get_by_role("status").first).to_contain_text("Saved the order of the fields.")
    api = client_for(Role.ADMIN)
    fields = api.get("/_cms/api/schema/collections/posts/fields").json()["data"]["items"]
    assert [field["slug"] for field in fields] == ["body", "views", "title"]
    assert problems == []
