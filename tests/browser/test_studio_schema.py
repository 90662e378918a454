"""The schema builder in real Chromium (apps/studio/static/studio/schema.js under the studio's CSP): the field form
shows only the chosen type's settings and a select field is added with its options; fields are reordered by
keyboard and the order saved in one request; the collection forms and every confirmation page. Results are read back
through REST.

Every page passes ``check_page`` (axe, console errors, CSP; the fields page at 390 px too) and the main ones are
pictured for docs/studio.md."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from apps.accounts.models import Role
from apps.schema.models import Field
from tests.factories import make_collection, make_entry, make_user

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def admin(studio_browser):
    # A fixed address and name, so that the pictures in docs/studio/ are the same from run to run.
    return studio_browser(user=make_user(Role.ADMIN, email="schema-admin@example.com", name="Ada Admin"))


def test_add_a_select_field_with_only_its_settings_shown(studio_browser, transactional_db):
    make_collection(
        "posts", label="Posts", fields=[("title", "string")], supports=["drafts", "revisions", "search"]
    )
    make_collection("pages", label="Pages", fields=[("title", "string"), ("body", "portableText")])
    me = admin(studio_browser)
    page = me.page
    page.goto("/_cms/admin/schema/")
    expect(page.get_by_role("link", name="Schema", exact=True)).to_have_attribute("aria-current", "page")
    me.check("schema-collections", doc="schema-collections", mobile=True)
    page.locator("#main").get_by_role("link", name="Posts", exact=True).click()
    page.get_by_role("link", name="Add a field").click()
    me.check("schema-field-new", mobile=True)

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
    # The picture shows the form from its top: the label, the slug as checked, the type and its settings.
    page.evaluate("window.scrollTo(0, 0)")
    me.check("schema-field-form", doc="schema-field-form")
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
    me.check("schema-field-added")


def test_reorder_fields_by_keyboard(studio_browser, transactional_db, client_for):
    make_collection(
        "posts", label="Posts", fields=[("title", "string"), ("body", "text"), ("views", "integer")]
    )
    me = admin(studio_browser)
    page = me.page
    page.goto("/_cms/admin/schema/posts/")
    me.check("schema-fields-start", mobile=True)
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
    me.check("schema-fields", doc="schema-fields", mobile=True)

    with page.expect_request(lambda request: request.method == "POST") as sent:
        page.get_by_role("button", name="Save order").click()
    assert "move=" not in (sent.value.post_data or "")
    expect(page.get_by_role("status").first).to_contain_text("Saved the order of the fields.")
    api = client_for(Role.ADMIN)
    fields = api.get("/_cms/api/schema/collections/posts/fields").json()["data"]["items"]
    assert [field["slug"] for field in fields] == ["body", "views", "title"]
    me.check("schema-fields-saved")


def test_collection_forms_and_the_confirmations(studio_browser, transactional_db, client_for):
    """The new and edit collection forms, and the pages that say what a destructive change will do before it is
    done: a type change, a field's removal, a collection's deletion. Each Cancel leaves the schema as it was."""
    posts = make_collection("posts", label="Posts", fields=[("title", "string"), ("views", "string")])
    make_entry(posts, {"title": "Hello", "views": "12"})
    me = admin(studio_browser)
    page = me.page
    page.goto("/_cms/admin/schema/")
    page.get_by_role("link", name="New collection").click()
    # check() waits for the page's load, so schema.js listens by the time the label is typed.
    me.check("schema-collection-new", mobile=True)
    page.locator("#c-label").fill("Recipes")
    expect(page.locator("#c-slug")).to_have_value("recipes")
    page.get_by_role("button", name="Create collection").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Recipes")
    me.check("schema-collection-empty")

    page.goto("/_cms/admin/schema/posts/")
    page.get_by_role("link", name="Edit collection").click()
    me.check("schema-collection-edit")
    page.goto("/_cms/admin/schema/posts/fields/views/")
    me.check("schema-field-edit")
    page.get_by_label("Type").select_option("integer")
    page.get_by_role("button", name="Save field").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Change Views from string to integer?")
    expect(page.locator(".notice-changes")).to_contain_text("1 entry")
    me.check("schema-field-type-confirm")
    page.get_by_role("link", name="Cancel").click()
    page.get_by_role("link", name="Remove this field").click()
    expect(page.locator(".notice-error")).to_contain_text("1 entry")
    me.check("schema-field-remove")
    page.get_by_role("link", name="Cancel").click()
    page.get_by_role("link", name="Delete collection").click()
    me.check("schema-collection-delete")
    page.get_by_role("link", name="Cancel").click()

    api = client_for(Role.ADMIN)
    fields = api.get("/_cms/api/schema/collections/posts/fields").json()["data"]["items"]
    assert [(field["slug"], field["type"]) for field in fields] == [("title", "string"), ("views", "string")]
    assert api.get("/_cms/api/schema/collections/recipes").status_code == 200


def test_make_a_collection_public(studio_browser, transactional_db, client_for):
    """The collection form's "Public" checkbox (issue 22): ticked and saved, anonymous readers read the published
    entries; the collection's page says it is public."""
    posts = make_collection("posts", label="Posts", fields=[("title", "string")])
    entry = make_entry(posts, {"title": "Hello"}, status="published")
    me = admin(studio_browser)
    page = me.page
    page.goto("/_cms/admin/schema/posts/edit")
    public = page.get_by_label("Public (readable without a token)")
    expect(public).not_to_be_checked()
    public.check()
    me.check("schema-collection-public")
    page.get_by_role("button", name="Save collection").click()
    expect(page.locator(".meta")).to_contain_text("public")
    anonymous = client_for(Role.ADMIN, ["admin"]).as_token(None)
    assert anonymous.get(f"/_cms/api/content/posts/{entry.pk}").status_code == 200
    page.goto("/_cms/admin/schema/posts/edit")
    expect(page.get_by_label("Public (readable without a token)")).to_be_checked()
