"""The background worker (apps/background) through ``manage.py worker``: queues kept apart, tasks run once, dead
workers' tasks recovered."""

from __future__ import annotations

import signal
import threading
from datetime import timedelta
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connections
from django_tasks_db.models import DBTaskResult

from apps.background.models import WorkerBeat
from apps.background.worker import drain
from apps.content.models import Entry
from apps.core.timefmt import iso, now
from apps.importer.models import ImportJob
from tests.background.tasks import note
from tests.factories import make_collection, make_entry
from tests.importer.helpers import EXECUTE, analyze
from tests.importer.wxr_factory import write_wxr
from tests.processes import start_worker, wait_for

ITEMS = 5000


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_an_entry_due_during_a_long_import_is_published_while_the_import_goes_on(
    transactional_db, admin_api, tmp_path, settings
):
    import_dir = tmp_path / "imports"
    import_dir.mkdir()
    settings.CMS_IMPORT_DIR = import_dir
    notices = make_collection(
        "notices",
        fields=[{"slug": "title", "type": "string"}],
        supports=["drafts", "revisions", "scheduling"],
    )
    settings.CMS_IMPORT_SYNC_MAX_BYTES = 10
    analysis = analyze(admin_api, content=write_wxr(tmp_path / "big.xml", ITEMS).read_bytes())
    job_id = admin_api.post(EXECUTE, {"analysisId": analysis["analysisId"]}, format="json").json()["data"][
        "id"
    ]
    worker = start_worker(import_dir=import_dir, batch_size=20)
    try:
        wait_for(lambda: ImportJob.objects.filter(pk=job_id, state="running", cursor__gt=0).exists())
        beat = WorkerBeat.objects.get()
        assert (beat.pid, beat.queues) == (worker.pid, settings.CMS_TASK_QUEUES)

        entry = make_entry(notices, {"title": "Opening times"})
        when = now().replace(microsecond=0) + timedelta(seconds=2)
        response = admin_api.post(
            f"/_cms/api/content/notices/{entry.pk}/schedule", {"scheduledAt": iso(when)}, format="json"
        )
        assert response.status_code == 200

        wait_for(lambda: Entry.objects.filter(pk=entry.pk, status="published").exists())
        job = ImportJob.objects.get(pk=job_id)
        # Published while the import was still going: it did not wait behind the import's slices.
        assert job.state == "running" and job.cursor < ITEMS
        assert Entry.objects.get(pk=entry.pk).published_at == when

        # Twice, as `make run`'s shell and a process-group kill both send it: the second must not hang the first.
        worker.send_signal(signal.SIGTERM)
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(timeout=120) == 0
    finally:
        if worker.poll() is None:
            worker.kill()
    # A worker that stops hands its job back at its cursor and says it is gone.
    job = ImportJob.objects.get(pk=job_id)
    assert job.state == "queued" and 0 < job.cursor < ITEMS
    assert not WorkerBeat.objects.exists()


def test_two_workers_draining_one_queue_run_every_task_once(transactional_db, tmp_path):
    path = tmp_path / "runs.txt"
    for n in range(40):
        note.enqueue(n, str(path))
    failures: list[BaseException] = []

    def worker():
        try:
            drain(["maintenance"])
        except BaseException as error:
            failures.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert failures == []
    assert sorted(int(line) for line in path.read_text().split()) == list(range(40))
    assert set(DBTaskResult.objects.values_list("status", flat=True)) == {"SUCCESSFUL"}


def test_a_dead_workers_task_goes_back_to_its_queue_and_a_live_ones_does_not(db, tmp_path, settings):
    long_ago = now() - timedelta(seconds=settings.CMS_WORKER_DEAD_SECONDS + 5)
    path = str(tmp_path / "runs.txt")
    dead = DBTaskResult.objects.get(pk=note.enqueue(1, path).id)
    alive = DBTaskResult.objects.get(pk=note.enqueue(2, path).id)
    DBTaskResult.objects.filter(pk=dead.pk).update(
        status="RUNNING", started_at=long_ago, worker_ids=["gone-1"]
    )
    DBTaskResult.objects.filter(pk=alive.pk).update(
        status="RUNNING", started_at=long_ago, worker_ids=["busy-2"]
    )
    WorkerBeat.objects.create(worker_id="gone-1", host="a", pid=1, started_at=long_ago, seen_at=long_ago)
    WorkerBeat.objects.create(worker_id="busy-2", host="b", pid=2, started_at=long_ago, seen_at=now())

    # The sweep finds the dead worker's task and puts it back; the same pass runs it.
    assert run("worker", "--once", "--queues", "maintenance") == "note: 1\nrecover_orphans: 1\n"

    assert Path(path).read_text() == "1\n"
    assert DBTaskResult.objects.get(pk=dead.pk).status == "SUCCESSFUL"
    assert DBTaskResult.objects.get(pk=alive.pk).status == "RUNNING"
    assert list(WorkerBeat.objects.values_list("worker_id", flat=True)) == ["busy-2"]


def test_finished_task_records_are_kept_for_the_retention_and_then_deleted(db, tmp_path, settings):
    settings.CMS_TASK_RETENTION_DAYS = 14
    path = str(tmp_path / "runs.txt")
    old, recent, waiting = (note.enqueue(n, path).id for n in range(3))  # ids as text
    DBTaskResult.objects.filter(pk__in=[old, recent]).update(status="SUCCESSFUL", finished_at=now())
    DBTaskResult.objects.filter(pk=old).update(finished_at=now() - timedelta(days=15))
    DBTaskResult.objects.filter(pk=waiting).update(run_after=now() + timedelta(days=1))

    assert run("worker", "--once", "--queues", "maintenance") == "prune_task_results: 1\n"
    assert sorted(
        str(pk)
        for pk in DBTaskResult.objects.exclude(task_path__endswith="prune_task_results").values_list(
            "pk", flat=True
        )
    ) == sorted([recent, waiting])

    settings.CMS_TASK_RETENTION_DAYS = 0
    DBTaskResult.objects.filter(pk=recent).update(finished_at=now() - timedelta(days=400))
    assert run("worker", "--once", "--queues", "maintenance") == ""
    assert DBTaskResult.objects.filter(pk=recent).exists()


def test_an_unknown_queue_is_refused_with_the_queues_there_are(db):
    with pytest.raises(CommandError) as refused:
        run("worker", "--queues", "publishing,nightly")
    assert str(refused.value) == (
        "Unknown queue(s): nightly. The queues are: publishing, mail, webhooks, imports, renditions, maintenance."
    )
