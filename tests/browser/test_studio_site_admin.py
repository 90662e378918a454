"""The administration pages in real Chromium, with the checks of tests/browser/studio.py (axe, console, CSP) on each:
saving the site settings, inviting someone (the accept link shown with console mail, and working), toggling a
plugin, and a search index rebuild whose progress reaches done (the job is run in-process, as the worker would)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from apps.accounts.models import Role
from apps.search import services as search_services
from tests.factories import make_collection, make_entry, make_user

pytestmark = [pytest.mark.browser, pytest.mark.slow]

STUDIO = "/_cms/admin/"
CONSOLE = "django.core.mail.backends.console.EmailBackend"


@pytest.fixture
def owner(transactional_db):
    return make_user(Role.ADMIN, email="owner@example.com", name="Olive Owner")


def test_settings_form_saves_and_shows_errors(studio_browser, owner):
    me = studio_browser(user=owner)
    page = me.page
    page.goto(STUDIO)
    nav = page.get_by_role("navigation", name="Studio")
    for name in ("Settings", "People", "Plugins", "Search", "API tokens"):
        expect(nav.get_by_role("link", name=name, exact=True)).to_be_visible()
    nav.get_by_role("link", name="Settings", exact=True).click()
    expect(page.get_by_role("heading", name="Site settings", level=1)).to_be_visible()
    me.check("settings", doc="settings")

    page.get_by_label("Site title").fill("Harbour Notes")
    page.get_by_label("Public address").fill("not a web address")
    page.get_by_label("Time zone").select_option("Europe/Paris")
    page.get_by_role("button", name="Save settings").click()
    error = page.locator("#settings-url-error")
    expect(error).to_have_text("The site's public address, e.g. https://example.com (or empty).")
    expect(page.get_by_label("Public address")).to_have_attribute("aria-invalid", "true")
    me.check("settings-error", allow=(r"status of 400 \(Bad Request\)",))

    page.get_by_label("Public address").fill("https://harbour.example")
    page.get_by_role("button", name="Save settings").click()
    expect(page.get_by_role("status")).to_contain_text("Saved the site settings.")
    data = page.request.get("/_cms/api/settings").json()["data"]
    assert (data["siteTitle"], data["url"], data["timezone"]) == (
        "Harbour Notes",
        "https://harbour.example",
        "Europe/Paris",
    )


def test_invite_flow_with_console_mail(studio_browser, owner, settings):
    settings.EMAIL_BACKEND = CONSOLE
    make_user(Role.EDITOR, email="eddie@example.com", name="Eddie Editor")
    me = studio_browser(user=owner)
    page = me.page
    page.goto(f"{STUDIO}people/")
    expect(page.get_by_role("heading", name="People", level=1)).to_be_visible()
    me.check("people", doc="people", mobile=True)

    invite = page.get_by_role("region", name="Invite someone")
    invite.get_by_label("Email").fill("newcomer@example.com")
    invite.get_by_label("Role").select_option(label="Author")
    invite.get_by_role("button", name="Send invitation").click()
    link = page.get_by_label("Accept link")
    expect(link).to_have_value(re.compile(r"/_cms/admin/invite/[A-Za-z0-9_-]{20,}$"))
    url = link.input_value()
    expect(page.get_by_role("cell", name="newcomer@example.com")).to_be_visible()
    me.check("people-invited", doc="people-invited")

    # The link works for the invitee, signed out in another browser.
    invitee = studio_browser()
    invitee.page.goto(url)
    expect(invitee.page.get_by_text("newcomer@example.com").first).to_be_visible()

    # Role change through the row's own control.
    page.goto(f"{STUDIO}people/?search=eddie")
    page.get_by_label("Role of eddie@example.com").select_option(label="Author")
    page.get_by_role("button", name="Change role of eddie@example.com").click()
    expect(page.get_by_role("status")).to_contain_text("eddie@example.com is now author.")
    users = page.request.get("/_cms/api/admin/users?search=eddie").json()["data"]["items"]
    assert [(user["email"], user["role"]) for user in users] == [("eddie@example.com", 30)]


def test_plugin_toggle(studio_browser, owner):
    me = studio_browser(user=owner)
    page = me.page
    page.goto(f"{STUDIO}plugins/")
    row = page.locator("#plugin-callout")
    expect(row.get_by_text("Enabled", exact=True)).to_be_visible()
    me.check("plugins", doc="plugins")
    row.get_by_role("button", name="Disable Callout blocks").click()
    expect(page.get_by_role("status")).to_contain_text("Disabled Callout blocks")
    expect(page.locator("#plugin-callout").get_by_text("Disabled", exact=True)).to_be_visible()
    assert page.request.get("/_cms/api/plugins/callout").json()["data"]["enabled"] is False
    page.locator("#plugin-callout").get_by_role("button", name="Enable Callout blocks").click()
    expect(page.get_by_role("status")).to_contain_text("Enabled Callout blocks")
    assert page.request.get("/_cms/api/plugins/callout").json()["data"]["enabled"] is True


def test_search_rebuild_progress_reaches_done(studio_browser, owner):
    posts = make_collection("posts", [("title", "string")], label="Posts", supports=["drafts", "search"])
    for number in range(4):
        make_entry(posts, {"title": f"Tide table {number}"})
    me = studio_browser(user=owner)
    page = me.page
    page.goto(f"{STUDIO}search/")
    expect(page.get_by_role("row", name=re.compile(r"^posts Yes 4"))).to_be_visible()
    page.get_by_role("button", name="Rebuild the index").click()
    label = page.locator("#rebuild-label")
    expect(label).to_have_text("Waiting for the worker to start the rebuild…")
    expect(page.get_by_role("button", name="Rebuild the index")).to_be_disabled()
    me.check("search-queued")

    # A reload shows the same job, and the page goes on following it.
    page.reload()
    expect(label).to_have_text("Waiting for the worker to start the rebuild…")
    assert search_services.search_rebuild_jobs_run() == 1
    expect(label).to_have_text("Done: 4 entries checked, 0 documents written, 0 removed")
    progress = page.locator("#rebuild-progress")
    expect(progress).to_have_attribute("value", "4")
    expect(page.get_by_role("button", name="Rebuild the index")).to_be_enabled()
    me.check("search", doc="search")
