"""The operators' view of background work in the Django admin, in Chromium: the queue overview above the workers,
accessible and within the CSP."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from playwright.sync_api import expect

from apps.accounts.models import Role
from apps.background.models import WorkerBeat
from apps.core.timefmt import now
from tests.background.tasks import note

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_the_queue_overview_names_unserved_queues_and_links_to_failed_tasks(
    studio_browser, transactional_db, tmp_path
):
    path = str(tmp_path / "runs.txt")
    note.enqueue(1, path)
    note.using(run_after=now() + timedelta(hours=1)).enqueue(2, path)
    WorkerBeat.objects.create(
        worker_id="node-a-41",
        host="node-a",
        pid=41,
        queues=[q for q in settings.CMS_TASK_QUEUES if q != "imports"],
        started_at=now(),
        seen_at=now(),
    )
    me = studio_browser(Role.ADMIN)
    page = me.page
    page.goto("/django-admin/background/workerbeat/")

    overview = page.get_by_role("table", name="Queues")
    expect(overview.get_by_role("row").filter(has_text="maintenance")).to_contain_text("1")
    expect(page.get_by_text("No live worker serves: imports.")).to_be_visible()
    expect(page.get_by_role("heading", name="Worker processes (1 alive)")).to_be_visible()
    me.check("django-admin-background-work")

    overview.get_by_role("link", name="maintenance").click()
    page.wait_for_url("**/django_tasks_database/dbtaskresult/?queue_name=maintenance")
    expect(page.get_by_text("2 Task Results")).to_be_visible()
