"""Real-browser fixtures: headless Chromium (the distribution's package, never a download) driven by Playwright, with
the DevTools WebAuthn virtual authenticator standing in for a platform passkey, against pytest-django's live server.

The server runs at ``http://localhost:<port>`` (an IP address is not a valid WebAuthn RP id) and ``CMS_BASE_URL``
points at it. Outside CI a machine without Chromium skips these tests; under CI (``CI=true``) they fail instead, so
a broken browser setup cannot pass unnoticed. Playwright's synchronous API keeps an event loop in the test thread,
which Django's ORM would otherwise refuse to run beside (SynchronousOnlyOperation): DJANGO_ALLOW_ASYNC_UNSAFE is set
for exactly as long as the browser runs, and the server's own threads are unaffected.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CHROMIUM = Path(os.environ.get("CMS_TEST_CHROMIUM", "/usr/bin/chromium"))
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _unavailable(reason: str):
    if os.environ.get("CI") == "true":
        pytest.fail(f"browser tests cannot run in CI: {reason}")
    pytest.skip(f"browser tests need Chromium: {reason}")


@pytest.fixture(scope="module")
def chromium():
    if not CHROMIUM.exists():
        _unavailable(f"{CHROMIUM} is missing (apt-get install chromium)")
    from playwright.sync_api import Error, sync_playwright

    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            try:
                browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
            except Error as exc:
                _unavailable(f"Chromium did not start: {exc}")
            yield browser
            browser.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def base_url(live_server, settings) -> str:
    assert live_server.url.startswith("http://localhost:"), live_server.url
    settings.CMS_BASE_URL = live_server.url
    return live_server.url


class Browser:
    """One browser context with a virtual passkey authenticator (WebAuthn CDP domain)."""

    def __init__(self, chromium, base_url: str):
        self.context = chromium.new_context(base_url=base_url)
        self.page = self.context.new_page()
        self.page.set_default_timeout(20_000)
        self.cdp = self.context.new_cdp_session(self.page)
        self.cdp.send("WebAuthn.enable")
        self.authenticator = self.cdp.send(
            "WebAuthn.addVirtualAuthenticator",
            {
                "options": {
                    "protocol": "ctap2",
                    "transport": "internal",
                    "hasResidentKey": True,
                    "hasUserVerification": True,
                    "isUserVerified": True,
                    "automaticPresenceSimulation": True,
                }
            },
        )["authenticatorId"]

    def credentials(self) -> list[dict]:
        return self.cdp.send("WebAuthn.getCredentials", {"authenticatorId": self.authenticator})[
            "credentials"
        ]

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def browser(chromium, base_url):
    opened = Browser(chromium, base_url)
    yield opened
    opened.close()


@pytest.fixture
def studio_browser(chromium, base_url):
    """``studio_browser(role)``: a new browser context signed in as a new user of ``role`` (``user=`` signs in an
    existing one; ``role=None`` stays signed out), watched for console errors and CSP violations so that
    ``.check(name)`` (tests/browser/studio.py) can fail on them. Each call is its own context: two calls are two
    people, or one person in two windows."""
    from tests.browser.studio import StudioBrowser, axe_available, open_context, sign_in_context
    from tests.factories import make_user

    missing = axe_available()
    if missing:
        _unavailable(missing)
    opened = []

    def open_as(role=None, *, user=None):
        context, page, watch = open_context(chromium, base_url)
        opened.append(context)
        if user is None and role is not None:
            user = make_user(role)
        if user is not None:
            sign_in_context(context, base_url, user)
        return StudioBrowser(context=context, page=page, user=user, watch=watch)

    yield open_as
    for context in opened:
        context.close()


# The rich-text editor's tests share a signed-in studio on the entry editor page (tests/browser/portable_text.py).
from tests.browser.portable_text import studio  # noqa: E402, F401
