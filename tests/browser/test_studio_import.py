"""The import wizard in real Chromium (apps/studio/static/studio/import.js under the studio's CSP): the Theme Unit Test
export uploaded, its analysis table, the import started, its progress bar moving as the worker runs (driven from the
test, one pass at a time, never by waiting) up to done, then the summary; the result read back through REST.

No console error and no CSP violation may occur; each step is saved to var/screenshots/ for docs/studio.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.test import Client
from playwright.sync_api import expect

from apps.accounts.models import Role
from apps.importer import jobs
from tests.factories import make_user
from tests.importer.conftest import THEME_UNIT_TEST

pytestmark = [pytest.mark.browser, pytest.mark.slow]
SHOTS = Path(django_settings.BASE_DIR) / "var" / "screenshots"


def sign_in_admin(browser, base_url: str):
    client = Client()
    client.force_login(make_user(Role.ADMIN, email="import-admin@example.com"))
    cookie = client.cookies["sessionid"]
    browser.context.add_cookies([{"name": "sessionid", "value": cookie.value, "url": base_url}])
    return client


def watch_errors(page) -> list[str]:
    problems: list[str] = []
    page.on("console", lambda message: message.type == "error" and problems.append(message.text))
    page.on(
        "response",
        lambda response: response.status >= 400 and problems.append(f"{response.status} {response.url}"),
    )
    page.on("pageerror", lambda error: problems.append(str(error)))
    return problems


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"studio-{name}.png"), full_page=True)


def test_upload_analyse_import_and_follow_the_job_to_its_summary(
    browser, base_url, transactional_db, tmp_path, settings
):
    settings.CMS_IMPORT_DIR = tmp_path / "imports"
    # One batch per worker pass, so the page can be seen between passes.
    settings.CMS_IMPORT_BATCH_SIZE = 60
    settings.CMS_IMPORT_WORKER_SLICE_SECONDS = 0
    client = sign_in_admin(browser, base_url)
    page = browser.page
    problems = watch_errors(page)

    page.goto("/_cms/admin/import/")
    expect(page.get_by_role("link", name="Import", exact=True)).to_have_attribute("aria-current", "page")
    expect(page.locator("#import-file-hint")).to_contain_text("At most 2.0")
    shot(page, "import-start")
    page.get_by_label("Export file (WXR, .xml)").set_input_files(str(THEME_UNIT_TEST))
    page.get_by_role("button", name="Upload and analyse").click()

    expect(page.get_by_role("heading", name="2. Choose what to import")).to_be_visible()
    table = page.get_by_role("table", name="Post types")
    expect(table.locator("tr[data-post-type=post]")).to_contain_text("58")
    expect(table.locator("tr[data-post-type=post] .badge")).to_have_text("New collection")
    expect(table.locator("tr[data-post-type=page] .badge")).to_have_text("New collection")
    # A new collection's slug box shows for "A new collection…" only.
    expect(page.get_by_label("New collection slug").first).to_have_value("pages")
    expect(page.get_by_role("checkbox", name="Import page")).to_be_checked()
    shot(page, "import-analysis")
    page.get_by_role("button", name="Start the import").click()

    expect(page.get_by_role("heading", name=re.compile(r"^3\. Import "))).to_be_visible()
    expect(page.locator("#job-progress-text")).to_contain_text("0 of 186 items")
    expect(page.get_by_label("Items imported")).to_have_attribute("value", "0")
    shot(page, "import-queued")

    assert jobs.run_queued() == 1  # the worker's first pass: the terms and a first batch of items
    expect(page.locator("#job-progress-text")).to_contain_text(re.compile(r"\b[1-9]\d* of 186 items"))
    expect(page.locator("[data-job-announce]")).to_contain_text("Import ")
    shot(page, "import-running")

    for _ in range(20):
        if not jobs.run_queued():
            break
    jobs.release_held()

    # The page sees the job done and reloads with the summary.
    expect(page.get_by_role("heading", name="Summary")).to_be_visible()
    expect(page.get_by_label("Items imported")).to_have_attribute("value", "186")
    expect(page.get_by_label("Items imported")).to_have_attribute("max", "186")
    expect(page.locator("[data-job-state]")).to_have_text("completed")
    summary = page.get_by_role("table", name="Entries per collection")
    expect(summary.get_by_role("row", name=re.compile(r"^posts 58"))).to_be_visible()
    expect(summary.get_by_role("row", name=re.compile(r"^pages 21"))).to_be_visible()
    expect(page.get_by_role("heading", name="Warnings (1)")).to_be_visible()
    shot(page, "import-summary")

    page.get_by_role("link", name=re.compile(r"^Open the entry")).first.click()
    expect(page.locator("h1")).to_contain_text("Template: Password Protected")

    api = client  # the session works for REST reads too
    response = api.get("/_cms/api/content/pages?limit=100")
    assert response.status_code == 200
    assert len(response.json()["data"]["items"]) == 21
    assert problems == []
