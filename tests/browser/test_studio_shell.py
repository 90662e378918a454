"""The studio's shell in real Chromium, for every role: who gets in, the navigation, the keyboard path into the page,
and the accessibility, console and CSP checks of tests/browser/studio.py on every page the shell leads to."""

from __future__ import annotations

import re

import pytest
import requests
from django.core import mail as django_mail
from playwright.sync_api import expect

from apps.accounts import mail
from apps.accounts.models import Role
from tests.factories import make_collection, make_entry, make_media, make_token, make_user, png_bytes

pytestmark = [pytest.mark.browser, pytest.mark.slow]

STUDIO = "/_cms/admin/"
WRITERS = [Role.CONTRIBUTOR, Role.AUTHOR, Role.EDITOR, Role.ADMIN]
# Chromium logs the status of a page it was answered with an error status; on a 403 page that is the point.
FORBIDDEN = (r"status of 403 \(Forbidden\)",)


@pytest.fixture
def site(transactional_db):
    """Two collections with a few entries and two images, so that every page of the shell has something to show."""
    posts = make_collection(
        "posts",
        label="Posts",
        label_singular="Post",
        supports=["drafts", "revisions", "scheduling"],
        fields=[{"slug": "title", "type": "string", "required": True}, {"slug": "body", "type": "text"}],
    )
    pages = make_collection("pages", label="Pages", fields=[{"slug": "title", "type": "string"}])
    make_entry(posts, {"title": "Spring opening hours"})
    make_entry(posts, {"title": "Welcome to the new site", "body": "Hello."})
    make_entry(pages, {"title": "About us"})
    make_media(content=png_bytes((30, 90, 160), (320, 200)), filename="harbour.png", alt="The harbour")
    make_media(content=png_bytes((200, 140, 40), (320, 200)), filename="market.png", alt="The market")
    return {"posts": posts, "pages": pages}


def focused(page) -> dict:
    return page.evaluate(
        """() => { const el = document.activeElement;
          return { tag: el.tagName.toLowerCase(), id: el.id, text: (el.textContent || "").trim(),
                   inStudioNav: !!el.closest('nav[aria-label="Studio"]') }; }"""
    )


@pytest.mark.parametrize("role", WRITERS, ids=lambda role: Role(role).label)
def test_every_writing_role_gets_the_shell_and_its_pages(studio_browser, site, role):
    label = Role(role).label
    # A fixed address, so that the pictures in docs/studio/ are the same from run to run.
    me = studio_browser(user=make_user(role, email=f"{label}@example.com", name=f"{label.title()} Example"))
    page = me.page
    # One role's pictures go into docs/studio.md.
    doc = (lambda name: name) if role == Role.EDITOR else (lambda name: None)
    mobile = role == Role.EDITOR

    page.goto(STUDIO)
    expect(page.get_by_role("heading", name="Dashboard", level=1)).to_be_visible()
    nav = page.get_by_role("navigation", name="Studio")
    for name in ("Dashboard", "Posts", "Pages", "Media", "Account"):
        expect(nav.get_by_role("link", name=name, exact=True)).to_be_visible()
    assert nav.get_by_role("link", name="Dashboard").get_attribute("aria-current") == "page"
    me.check(f"dashboard-{label}", mobile=mobile, doc=doc("dashboard"))

    # Keyboard: the first Tab reaches the skip link, further Tabs the header and then the studio's navigation.
    page.keyboard.press("Tab")
    assert focused(page) == {"tag": "a", "id": "", "text": "Skip to content", "inStudioNav": False}
    for _ in range(8):
        page.keyboard.press("Tab")
        if focused(page)["inStudioNav"]:
            break
    assert focused(page) == {"tag": "a", "id": "", "text": "Dashboard", "inStudioNav": True}
    # The skip link moves the focus itself to the page's main content, past header and navigation.
    page.goto(STUDIO)
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    assert focused(page)["id"] == "main"
    page.keyboard.press("Tab")
    assert not focused(page)["inStudioNav"]

    nav.get_by_role("link", name="Posts", exact=True).click()
    page.wait_for_url("**/_cms/admin/content/posts/")
    expect(page.get_by_role("heading", name="Posts", level=1)).to_be_visible()
    expect(page.get_by_role("cell", name="Spring opening hours", exact=True)).to_be_visible()
    expect(page.get_by_role("cell", name="Welcome to the new site", exact=True)).to_be_visible()
    assert nav.get_by_role("link", name="Posts", exact=True).get_attribute("aria-current") == "page"
    me.check(f"entries-{label}", mobile=mobile, doc=doc("entries"))

    nav.get_by_role("link", name="Media", exact=True).click()
    page.wait_for_url("**/_cms/admin/media/")
    expect(page.get_by_role("heading", name="Media", level=1)).to_be_visible()
    expect(page.get_by_role("img", name="The harbour")).to_be_visible()
    expect(page.get_by_text("harbour.png")).to_be_visible()
    me.check(f"media-{label}", mobile=mobile, doc=doc("media"))

    nav.get_by_role("link", name="Account", exact=True).click()
    page.wait_for_url("**/_cms/admin/account")
    expect(page.get_by_text(f"{label} ({role})")).to_be_visible()
    me.check(f"account-{label}")


def test_a_subscriber_has_no_studio(studio_browser, site):
    me = studio_browser(Role.SUBSCRIBER)
    page = me.page
    answer = page.goto(STUDIO)
    assert answer.status == 403
    expect(page.get_by_role("heading", name="No access to the studio")).to_be_visible()
    expect(page.get_by_text(f"You are signed in as {me.user.email} (subscriber).")).to_be_visible()
    assert page.get_by_role("navigation", name="Studio").count() == 0
    me.check("no-access", doc="no-access", allow=FORBIDDEN)
    answer = page.goto("/_cms/admin/content/posts/")
    assert answer.status == 403
    me.check("no-access-entries", allow=FORBIDDEN)


@pytest.mark.parametrize("role", [Role.CONTRIBUTOR, Role.EDITOR], ids=lambda role: Role(role).label)
def test_a_non_admin_opening_the_operators_console_gets_a_403_linking_the_studio(studio_browser, site, role):
    me = studio_browser(role)
    page = me.page
    answer = page.goto("/django-admin/")
    assert answer.status == 403
    expect(page.get_by_role("heading", name="No access to the operators' console")).to_be_visible()
    me.check(f"operators-console-{Role(role).label}", allow=FORBIDDEN)
    page.get_by_role("link", name="Go to the studio").click()
    page.wait_for_url(f"**{STUDIO}")
    expect(page.get_by_role("heading", name="Dashboard", level=1)).to_be_visible()
    me.check(f"operators-console-back-{Role(role).label}")


def _sign_in_link() -> str:
    mail.wait()
    return re.search(r"https?://\S+/magic-link/verify\?token=\S+", django_mail.outbox[-1].body).group(0)


def test_an_editor_invited_by_the_api_signs_in_with_an_email_link_and_lands_on_the_dashboard(
    studio_browser, base_url, site
):
    admin = make_user(Role.ADMIN, email="chief@example.com")
    _, raw = make_token(admin, ["admin"])
    invited = requests.post(
        f"{base_url}/_cms/api/auth/invite",
        json={"email": "new.editor@example.com", "role": Role.EDITOR},
        headers={"Authorization": f"Bearer {raw}"},
        timeout=10,
    )
    assert invited.status_code == 201

    me = studio_browser()  # signed out: only the invitation link
    page = me.page
    page.goto(invited.json()["data"]["url"])
    expect(page.get_by_text("as editor with the address new.editor@example.com")).to_be_visible()
    me.check("invitation")
    page.locator("#invite-name-link").fill("Nora Editor")
    page.get_by_role("button", name="Accept and email me a sign-in link").click()
    expect(page.get_by_text("A sign-in link is on its way to new.editor@example.com.")).to_be_visible()

    page.goto(_sign_in_link())
    expect(page.get_by_text("Sign in as new.editor@example.com?")).to_be_visible()
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"**{STUDIO}")
    expect(page.get_by_role("heading", name="Dashboard", level=1)).to_be_visible()
    expect(page.get_by_role("navigation", name="Studio").get_by_role("link", name="Posts")).to_be_visible()
    me.check("invited-editor-dashboard")

    # The API sees the same person, signed in by the browser's session, with the role of the invitation.
    who = page.request.get(f"{base_url}/_cms/api/auth/me")
    assert who.status == 200
    me_now = who.json()["data"]
    assert (me_now["user"]["email"], me_now["user"]["role"], me_now["user"]["name"]) == (
        "new.editor@example.com",
        Role.EDITOR,
        "Nora Editor",
    )
    assert me_now["authenticatedBy"] == "session"


def test_signed_out_people_sign_in_with_an_email_link_and_come_back_to_the_page_they_asked_for(
    studio_browser, site
):
    make_user(Role.AUTHOR, email="writer@example.com")
    me = studio_browser()
    page = me.page
    page.goto("/_cms/admin/content/posts/")
    page.wait_for_url("**/_cms/admin/login?next=/_cms/admin/content/posts/")
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    me.check("sign-in", doc="sign-in")
    page.get_by_label("Email address").fill("writer@example.com")
    page.get_by_role("button", name="Email me a sign-in link").click()
    expect(page.get_by_role("heading", name="Check your email")).to_be_visible()
    page.goto(_sign_in_link())
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/_cms/admin/content/posts/")
    expect(page.get_by_role("heading", name="Posts", level=1)).to_be_visible()
    me.check("signed-in-entries")


def test_the_page_check_itself_catches_violations_console_errors_and_csp_breaches(studio_browser, base_url):
    """check_page is what every other test here leans on: a page with each fault must fail it, readably."""
    me = studio_browser()
    page = me.page
    policy = "default-src 'self'; script-src 'self'; style-src 'self'"
    html = (
        "<!doctype html><html lang=en><head><title>Faulty</title><script src=/faulty.js></script></head><body>"
        "<main><h1>Faulty</h1><input type=text><img src=/x.png>"
        "<script>document.title = 'inline ran'</script></main></body></html>"
    )
    page.route(
        "**/faulty",
        lambda route: route.fulfill(
            status=200, body=html, headers={"Content-Type": "text/html", "Content-Security-Policy": policy}
        ),
    )
    page.route(
        "**/faulty.js",
        lambda route: route.fulfill(
            status=200, body="console.error('broken on purpose')", headers={"Content-Type": "text/javascript"}
        ),
    )
    page.goto(f"{base_url}/faulty")
    with pytest.raises(AssertionError) as failed:
        me.check("self-test")
    report = str(failed.value)
    assert "[critical] label: Form elements must have labels" in report
    assert "[critical] image-alt: Images must have alternative text" in report
    assert "console error: broken on purpose" in report
    assert "CSP violation: script-src-elem blocked inline" in report
    assert page.title() == "Faulty"  # the page's own policy held: the inline script never ran
    assert me.watch.take() == []  # what was reported is forgotten: the next page starts clean
