"""What the rich-text editor's browser tests share: a signed-in admin's browser on the real entry editor page, with
the REST API beside it to store fixtures and read back what the page saved."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from apps.accounts.models import Role
from tests.browser import studio as page_checks
from tests.conftest import ApiClient
from tests.factories import make_collection, make_token, make_user

READY = "textarea[data-portable-text][data-portable-text-state=ready]"


def canonical(value) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


class Studio:
    """A signed-in browser on the editor page, collecting console errors and CSP violations."""

    def __init__(self, browser, user):
        client = Client()
        client.force_login(user)
        cookie = client.cookies["sessionid"]
        browser.context.add_cookies([{"name": "sessionid", "value": cookie.value, "url": browser.base_url}])
        self.page = browser.page
        self.problems: list[str] = []
        # The shared page checks (axe, console, CSP) as every studio page has them; the page is open already, so
        # the watch is attached to it by hand.
        self.watch = page_checks.watch_context(browser.context)
        self.watch.attach(self.page)
        # Errors and warnings on the console (CSP violations are reported there), uncaught errors, failed loads
        # (the browser's own favicon request aside: the CMS serves none).
        self.page.on(
            "console",
            lambda message: (
                message.type in ("error", "warning")
                and not message.text.startswith("Failed to load resource")
                and self.problems.append(message.text)
            ),
        )
        self.page.on("pageerror", lambda error: self.problems.append(str(error)))
        self.page.on(
            "response",
            lambda response: (
                response.status >= 400
                and not response.url.endswith("/favicon.ico")
                and self.problems.append(f"{response.status} {response.url}")
            ),
        )

    def open(self, collection: str, entry_id: str, field: str) -> str:
        ready = f'textarea[data-portable-text="{field}"][data-portable-text-state=ready]'
        self.page.goto(f"/_cms/admin/content/{collection}/{entry_id}/")
        self.page.wait_for_selector(ready, state="attached")
        return self.page.eval_on_selector(ready, "textarea => textarea.value")

    def check(self, name: str, **options) -> None:
        """``check_page`` (tests/browser/studio.py) on the page as it is now."""
        missing = page_checks.axe_available()
        assert missing is None, missing
        page_checks.check_page(self.page, name, watch=self.watch, **options)

    def save(self) -> None:
        with self.page.expect_navigation():
            self.page.get_by_role("button", name="Save draft").click()
        assert "Saved." in self.page.inner_text(".notices"), self.page.content()[:2000]

    def revisions(self, collection: str, entry_id: str) -> int:
        answer = self.api.get(f"/_cms/api/content/{collection}/{entry_id}/revisions")
        assert answer.status_code == 200, answer.json()
        return answer.json()["data"]["total"]


@pytest.fixture
def studio(browser, base_url, transactional_db):
    browser.base_url = base_url
    admin = make_user(Role.ADMIN)
    _, raw = make_token(admin, ["admin"])
    api = ApiClient().as_token(raw)
    opened = Studio(browser, admin)
    opened.api = api
    return opened


def rich_collection():
    return make_collection(
        "notes",
        fields=[{"slug": "title", "type": "string"}, {"slug": "body", "type": "portableText"}],
    )


def stored_body(studio, entry_id: str, collection: str = "notes") -> list:
    answer = studio.api.get(f"/_cms/api/content/{collection}/{entry_id}")
    assert answer.status_code == 200, answer.json()
    return answer.json()["data"]["item"]["data"]["body"]


def new_note(studio, body: list, title: str = "Note") -> str:
    created = studio.api.post(
        "/_cms/api/content/notes", {"data": {"title": title, "body": body}}, format="json"
    )
    assert created.status_code == 201, created.json()
    return created.json()["data"]["item"]["id"]


SELECTION_SPANS = """async ([text, frames]) => {
  const editor = document.querySelector("textarea[data-portable-text]").portableTextEditor;
  for (let frame = 0; frame < frames; frame++) {
    const selection = editor.getSnapshot().context.selection;
    if (
      String(window.getSelection()) === text &&
      selection &&
      Math.abs(selection.anchor.offset - selection.focus.offset) === text.length
    ) return true;
    await new Promise((resolve) => requestAnimationFrame(resolve));
  }
  return false;
}"""


def select_backwards(page, text: str) -> None:
    """Select the last ``text`` of the line with Shift+ArrowLeft, as a person does, and wait until the editor holds that
    selection within one span: the toolbar acts on what the editor holds, and the editor reads the page's selection a
    moment after it changes (its selectionchange handler is throttled). On a loaded machine the editor can still be
    applying the typing when the keys land and put the caret back at the end; a person then selects again, and so does
    this, from the end of the line. Waited for frame by frame in the page, not by sleeping."""
    for _ in range(3):
        page.keyboard.press("End")
        for _ in range(len(text)):
            page.keyboard.press("Shift+ArrowLeft")
        if page.evaluate(SELECTION_SPANS, [text, 240]):
            return
    raise AssertionError(f"the editor never held the selection {text!r}")
