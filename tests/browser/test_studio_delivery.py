"""The delivery pages of the studio in real Chromium: the editor's Preview button opens the collection's preview
route on the front end in a new tab with a token that reads the draft, and the redirects page adds, refuses (a loop)
edits and deletes redirects. Every page passes ``check_page``."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from django.test import Client
from playwright.sync_api import expect

from apps.accounts.models import Role
from tests.factories import make_collection, make_entry, make_user

pytestmark = [pytest.mark.browser, pytest.mark.slow]

FRONT_END = "https://front.example"


@pytest.fixture
def blog(transactional_db):
    return make_collection(
        "blog",
        [("title", "string", {"required": True})],
        label="Blog",
        url_pattern="/blog/{slug}",
        preview_url=FRONT_END + "/api/preview?token={token}&path={url}",
    )


def test_preview_opens_the_front_end_with_a_token_that_reads_the_draft(studio_browser, blog):
    entry = make_entry(blog, {"title": "Hello"}, slug="hello", status="published")
    me = studio_browser(Role.EDITOR)
    page = me.page
    # The front end is not running here: answer its preview route with a small page instead.
    me.context.route(
        f"{FRONT_END}/**",
        lambda route: route.fulfill(status=200, content_type="text/html", body="<title>Front end</title>"),
    )
    page.goto(f"/_cms/admin/content/blog/{entry.pk}/")
    page.get_by_label("Title").fill("Hello, draft")
    page.get_by_role("button", name="Save draft").click()
    expect(page.get_by_role("status").filter(has_text="Saved.")).to_be_visible()
    me.check("editor-preview-button")
    with page.expect_popup() as opened:
        page.get_by_role("button", name="Preview").click()
    popup = opened.value
    popup.wait_for_url(f"{FRONT_END}/**")
    address = urlsplit(popup.url)
    assert f"{address.scheme}://{address.netloc}{address.path}" == f"{FRONT_END}/api/preview"
    query = parse_qs(address.query)
    assert query["path"] == ["/blog/hello"]
    # The front end reads the working copy with the token alone.
    answer = Client().get(f"/_cms/api/content/blog/{entry.pk}", {"preview": query["token"][0]})
    assert answer.status_code == 200
    assert answer.json()["data"]["item"]["data"] == {"title": "Hello, draft"}
    assert popup.evaluate("window.opener") is None


def test_no_preview_button_without_a_preview_url(studio_browser, transactional_db):
    pages = make_collection("pages", [("title", "string")], label="Pages")
    entry = make_entry(pages, {"title": "About"})
    me = studio_browser(Role.EDITOR)
    me.page.goto(f"/_cms/admin/content/pages/{entry.pk}/")
    expect(me.page.get_by_role("button", name="Save draft")).to_be_visible()
    expect(me.page.get_by_role("button", name="Preview")).to_have_count(0)


def test_the_redirects_page_adds_refuses_a_loop_and_deletes(studio_browser, transactional_db):
    user = make_user(Role.EDITOR, email="rita@example.com", name="Rita Moves")
    me = studio_browser(user=user)
    client = Client()
    client.force_login(user)
    page = me.page
    page.goto("/_cms/admin/")
    page.get_by_role("link", name="Redirects", exact=True).click()
    expect(page.get_by_role("heading", name="Redirects", level=1)).to_be_visible()
    me.check("redirects-empty", mobile=True)

    page.get_by_label("From (old path)").fill("/old")
    page.get_by_label("To (required)").fill("/new")
    page.get_by_role("button", name="Add redirect").click()
    expect(page.get_by_role("status")).to_contain_text("Added the redirect /old → /new (301).")
    page.get_by_label("From (old path)").fill("/new")
    page.get_by_label("To (required)").fill("/old")
    page.get_by_label("Status").select_option("302")
    page.get_by_role("button", name="Add redirect").click()
    expect(page.get_by_role("alert")).to_contain_text(
        "/new → /old would make a loop: /old already redirects to"
    )
    expect(page.locator("#r-location-error")).to_have_text("/old already redirects to /new: a loop.")
    me.check("redirects-loop-refused", mobile=True, allow=(r"status of 409 \(Conflict\)",))

    listed = client.get("/_cms/api/redirects").json()["data"]["items"]
    assert [(item["source"], item["location"], item["status"]) for item in listed] == [("/old", "/new", 301)]
    # Editing: the form holds the redirect as it is; a change is checked as an add is.
    page.get_by_role("link", name="Edit the redirect from /old").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Redirect from /old")
    expect(page.get_by_label("To (required)")).to_have_value("/new")
    page.get_by_label("To (required)").fill("/old")
    page.get_by_role("button", name="Save redirect").click()
    expect(page.locator("#r-location-error")).to_have_text("A redirect cannot point at its own source /old.")
    page.get_by_label("To (required)").fill("https://example.com/moved")
    page.get_by_label("Status").select_option("302")
    me.check("redirect-edit", mobile=True, allow=(r"status of 400 \(Bad Request\)",))
    page.get_by_role("button", name="Save redirect").click()
    expect(page.get_by_role("status")).to_contain_text(
        "Saved the redirect /old → https://example.com/moved (302)."
    )
    listed = client.get("/_cms/api/redirects").json()["data"]["items"]
    assert [(item["source"], item["location"], item["status"]) for item in listed] == [
        ("/old", "https://example.com/moved", 302)
    ]
    page.get_by_role("button", name="Delete the redirect from /old").click()
    expect(page.get_by_role("status")).to_contain_text("Deleted the redirect from /old.")
    assert client.get("/_cms/api/redirects").json()["data"]["items"] == []
