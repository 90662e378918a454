"""Background work for operators' tooling: the readiness check ``tasks`` and the task metrics."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command

from apps.background.models import WorkerBeat
from apps.core.timefmt import now
from tests.background.tasks import note
from tests.metrics import scrape, value

READY = "/_cms/api/health/ready"


def beat(worker_id: str, queues: list[str], *, seconds_ago: float = 0) -> None:
    moment = now() - timedelta(seconds=seconds_ago)
    WorkerBeat.objects.create(
        worker_id=worker_id, host="h", pid=1, queues=queues, started_at=moment, seen_at=moment
    )


def tasks_check(api) -> tuple[int, dict]:
    response = api.get(READY)
    body = response.json()
    checks = body["data"]["checks"] if body["success"] else body["error"]["details"]["checks"]
    return response.status_code, checks["tasks"]


def test_not_ready_without_a_live_worker(api, db):
    beat("gone", settings.CMS_TASK_QUEUES, seconds_ago=settings.CMS_WORKER_DEAD_SECONDS + 1)
    assert tasks_check(api) == (
        503,
        {
            "ok": False,
            "detail": "No worker is running: scheduled publishing, mail, webhooks and imports wait. "
            "Start `python manage.py worker`.",
        },
    )


def test_not_ready_while_a_queue_has_no_live_worker_and_ready_once_every_queue_has_one(api, db):
    beat("web-side", ["publishing", "mail", "webhooks", "maintenance"])
    assert tasks_check(api) == (503, {"ok": False, "detail": "No live worker serves: imports, renditions."})

    beat("bulk", ["imports", "renditions"])
    assert tasks_check(api) == (200, {"ok": True})


@pytest.mark.parametrize("ok", [True, False])
def test_finished_tasks_and_queue_depths_are_metrics(metrics_on, db, tmp_path, ok):
    path = tmp_path / "runs.txt"
    if not ok:
        path.mkdir()  # the task cannot append to a directory: it fails
    before = scrape()
    note.enqueue(1, str(path))
    note.using(run_after=now() + timedelta(hours=1)).enqueue(2, str(path))
    queued = scrape()
    assert value(queued, "cms_task_queue_ready", queue="maintenance") == 1
    assert value(queued, "cms_task_queue_waiting", queue="maintenance") == 1

    call_command("worker", "--once", "--queues", "maintenance", stdout=StringIO())

    after = scrape()
    outcome = "ok" if ok else "failed"
    finished = ("cms_tasks_finished_total", {"queue": "maintenance", "task": "note", "outcome": outcome})
    assert value(after, finished[0], **finished[1]) - value(before, finished[0], **finished[1]) == 1
    waits = "cms_task_wait_seconds_count"
    assert value(after, waits, queue="maintenance") - value(before, waits, queue="maintenance") == 1
    assert value(after, "cms_task_queue_ready", queue="maintenance") == 0
    assert value(after, "cms_task_queue_failed_last_day", queue="maintenance") == (0 if ok else 1)
