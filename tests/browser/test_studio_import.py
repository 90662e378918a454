"""The import wizard in real Chromium (apps/studio/static/studio/import.js under the studio's CSP): the Theme Unit Test
export uploaded, its analysis table, the import started, its progress bar moving as the worker runs (driven from the
test, one pass at a time, never by waiting) up to done, then the summary; the result read back through REST.

Every step passes ``check_page`` (axe, console errors, CSP) and is pictured for docs/studio.md."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from playwright.sync_api import expect

from apps.accounts.models import Role
from apps.importer import jobs
from tests.importer.conftest import THEME_UNIT_TEST

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_upload_analyse_import_and_follow_the_job_to_its_summary(
    studio_browser, transactional_db, tmp_path, settings
):
    settings.CMS_IMPORT_DIR = tmp_path / "imports"
    # One batch per worker pass, so the page can be seen between passes.
    settings.CMS_IMPORT_BATCH_SIZE = 60
    settings.CMS_IMPORT_WORKER_SLICE_SECONDS = 0
    me = studio_browser(Role.ADMIN)
    page = me.page

    page.goto("/_cms/admin/import/")
    expect(page.get_by_role("link", name="Import", exact=True)).to_have_attribute("aria-current", "page")
    expect(page.locator("#import-file-hint")).to_contain_text("At most 2.0")
    me.check("import-start", doc="import-start")
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
    me.check("import-analysis", doc="import-analysis", mobile=True)
    page.get_by_role("button", name="Start the import").click()

    expect(page.get_by_role("heading", name=re.compile(r"^3\. Import "))).to_be_visible()
    expect(page.locator("#job-progress-text")).to_contain_text("0 of 186 items")
    expect(page.get_by_label("Items imported")).to_have_attribute("value", "0")
    me.check("import-queued")

    assert jobs.run_queued() == 1  # the worker's first pass: the terms and a first batch of items
    expect(page.locator("#job-progress-text")).to_contain_text(re.compile(r"\b[1-9]\d* of 186 items"))
    expect(page.locator("[data-job-announce]")).to_contain_text("Import ")
    me.check("import-running", doc="import-running")

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
    me.check("import-summary", doc="import-summary", mobile=True)

    page.get_by_role("link", name=re.compile(r"^Open the entry")).first.click()
    expect(page.locator("h1")).to_contain_text("Template: Password Protected")

    api = Client()
    api.force_login(me.user)
    response = api.get("/_cms/api/content/pages?limit=100")
    assert response.status_code == 200
    assert len(response.json()["data"]["items"]) == 21
