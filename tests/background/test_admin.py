"""Background work in the Django admin: the state of each queue, the live workers, and the task records."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django_tasks_db.models import DBTaskResult

from apps.accounts.models import Role
from apps.background.models import WorkerBeat
from apps.core.timefmt import now
from tests.background.tasks import note
from tests.factories import make_user


@pytest.fixture
def console():
    client = Client()
    client.force_login(make_user(Role.ADMIN))
    return client


def cells(html: str, queue: str) -> list[str]:
    row = re.search(rf"<tr><th scope=\"row\"><a [^>]*>{queue}</a></th>(.*?)</tr>", html, re.S).group(1)
    return [re.sub(r"<[^>]+>", "", cell) for cell in re.findall(r"<td>(.*?)</td>", row, re.S)]


def test_the_overview_counts_each_queue_and_names_queues_no_worker_serves(console, tmp_path):
    path = str(tmp_path / "runs.txt")
    ready = note.enqueue(1, path)
    later = note.using(run_after=now() + timedelta(hours=1)).enqueue(2, path)
    failed = note.enqueue(3, path)
    DBTaskResult.objects.filter(pk=ready.id).update(enqueued_at=now() - timedelta(seconds=90))
    DBTaskResult.objects.filter(pk=failed.id).update(status="FAILED", finished_at=now())
    WorkerBeat.objects.create(
        worker_id="w1", host="node-a", pid=41, queues=["publishing", "mail"], started_at=now(), seen_at=now()
    )

    response = console.get("/django-admin/background/workerbeat/")

    assert response.status_code == 200
    html = response.content.decode()
    *counts, waited = cells(html, "maintenance")
    assert counts == ["1", "1", "0", "1"]
    # The oldest ready task has waited since it was enqueued.
    assert 90 <= int(waited.removesuffix(" s")) < 150
    assert cells(html, "publishing") == ["0", "0", "0", "0", "0 s"]
    assert "No live worker serves: webhooks, imports, renditions, maintenance." in html
    assert "Worker processes (1 alive)" in html and "node-a" in html
    failed_link = (
        "/django-admin/django_tasks_database/dbtaskresult/?queue_name=maintenance&amp;status__exact=FAILED"
    )
    assert failed_link in html
    assert later.id  # waiting for its time, counted apart from the ready one


def test_task_records_are_listed_for_operators_only(console, tmp_path):
    note.enqueue(1, str(tmp_path / "runs.txt"))
    assert (
        console.get("/django-admin/django_tasks_database/dbtaskresult/?queue_name=maintenance").status_code
        == 200
    )
    editor = Client()
    editor.force_login(make_user(Role.EDITOR))
    assert editor.get("/django-admin/background/workerbeat/").status_code == 302
