"""Background work on RQ over Redis (``CMS_TASK_BACKEND=rq``): ``manage.py worker`` supervising real RQ workers on a
Redis database of the tests' own, the web side enqueueing into it after commit, and the operators' views reading it.

Redis is required under CI (.ci/run starts it); elsewhere, without one, these tests skip.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import transaction
from django.test import Client
from rq.registry import FinishedJobRegistry

from apps.accounts.models import Role
from apps.background import rqbroker
from apps.background.queues import enqueue
from apps.content.models import Entry
from apps.core.timefmt import iso, now
from apps.importer.models import ImportJob
from cms_project.environment import task_settings
from tests.background.tasks import note
from tests.factories import database_url, make_collection, make_entry, make_user
from tests.importer.helpers import EXECUTE, analyze
from tests.importer.wxr_factory import write_wxr
from tests.metrics import TOKEN, scrape, value
from tests.processes import ROOT, redis_or_skip, wait_for
from tests.webhooks.conftest import Receiver

REDIS_URL = os.environ.get("TEST_RQ_REDIS_URL", "redis://127.0.0.1:6379/7")
QUEUES = ["publishing", "mail", "webhooks", "imports", "renditions", "maintenance"]
READY = "/_cms/api/health/ready"
ITEMS = 120


@pytest.fixture
def rq_redis(settings):
    client = redis_or_skip(REDIS_URL, "TEST_RQ_REDIS_URL")
    # This database is the RQ tests' own: what an earlier run left is theirs to clear.
    client.flushdb()
    found = task_settings("rq", QUEUES, REDIS_URL, timeout=600)
    settings.TASKS, settings.RQ_QUEUES, settings.RQ = found["TASKS"], found["RQ_QUEUES"], found["RQ"]
    yield client
    client.flushdb()


class SmtpSink:
    """A mail server on 127.0.0.1 that turns the first connection away (421, as a busy server does) and takes every
    later message, keeping the DATA of each."""

    def __init__(self):
        self.messages: list[str] = []
        self.refused = 0
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen()
        self.port = self.server.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            with conn, conn.makefile("rb") as reader:
                if not self.refused:
                    self.refused += 1
                    conn.sendall(b"421 busy, try later\r\n")
                    continue
                self._session(conn, reader)

    def _session(self, conn, reader) -> None:
        conn.sendall(b"220 sink\r\n")
        while line := reader.readline():
            verb = line[:4].upper()
            if verb == b"DATA":
                conn.sendall(b"354 go on\r\n")
                body = []
                while (part := reader.readline()) not in (b".\r\n", b""):
                    body.append(part.decode())
                self.messages.append("".join(body))
                conn.sendall(b"250 kept\r\n")
            elif verb == b"QUIT":
                conn.sendall(b"221 bye\r\n")
                return
            else:
                conn.sendall(b"250 ok\r\n")

    def close(self) -> None:
        self.server.close()


def test_a_worker_on_rq_publishes_mails_delivers_and_imports(
    transactional_db, rq_redis, admin_api, api, settings, tmp_path
):
    settings.CMS_WEBHOOK_ALLOWED_HOSTS = ["127.0.0.1"]
    settings.CMS_IMPORT_DIR = tmp_path / "imports"
    settings.CMS_IMPORT_DIR.mkdir()
    settings.CMS_IMPORT_SYNC_MAX_BYTES = 10
    settings.CMS_METRICS_TOKEN = TOKEN
    runs = str(tmp_path / "runs.txt")
    receiver, smtp = Receiver(), SmtpSink()
    receiver.start()
    console = Client()
    console.force_login(make_user(Role.ADMIN))
    make_user(Role.CONTRIBUTOR, email="member@example.com")

    # A write that rolls back enqueues nothing; one that commits reaches Redis as it commits.
    with pytest.raises(RuntimeError), transaction.atomic():
        enqueue(note, 1, runs)
        raise RuntimeError("rolled back")
    assert rq_redis.llen("rq:queue:maintenance") == 0
    enqueue(note, 2, runs)
    assert rq_redis.llen("rq:queue:maintenance") == 1

    posts = make_collection(
        "notices",
        fields=[{"slug": "title", "type": "string"}],
        supports=["drafts", "revisions", "scheduling"],
    )
    assert admin_api.post("/_cms/api/webhooks", {"url": receiver.url}, format="json").status_code == 201
    # Scheduled for tomorrow, then made due behind the task's back: only the publishing sweep can find it.
    swept = make_entry(posts, {"title": "Found by the sweep"})
    path = f"/_cms/api/content/notices/{swept.pk}/schedule"
    tomorrow = now() + timedelta(days=1)
    assert admin_api.post(path, {"scheduledAt": iso(tomorrow)}, format="json").status_code == 200
    Entry.objects.filter(pk=swept.pk).update(scheduled_at=now() - timedelta(minutes=1))
    assert (
        api.post("/_cms/api/auth/magic-link/send", {"email": "member@example.com"}, format="json").status_code
        == 200
    )
    analysis = analyze(admin_api, content=write_wxr(tmp_path / "site.xml", ITEMS).read_bytes())
    job_id = admin_api.post(EXECUTE, {"analysisId": analysis["analysisId"]}, format="json").json()["data"][
        "id"
    ]

    log = (tmp_path / "worker.log").open("w")
    worker = subprocess.Popen(
        [sys.executable, "manage.py", "worker"],
        cwd=ROOT,
        env={
            **os.environ,
            "DATABASE_URL": database_url(),
            "CMS_TASK_BACKEND": "rq",
            "CMS_TASK_REDIS_URL": REDIS_URL,
            "EMAIL_URL": f"smtp://127.0.0.1:{smtp.port}?timeout=5",
            "CMS_MAIL_RETRY_BASE_SECONDS": "1",
            "CMS_WEBHOOK_ALLOWED_HOSTS": "127.0.0.1",
            "CMS_IMPORT_DIR": str(settings.CMS_IMPORT_DIR),
            "CMS_IMPORT_BATCH_SIZE": "20",
            # A slice per batch: the job goes on across tasks, from the reader the worker keeps open between them.
            "CMS_IMPORT_WORKER_SLICE_SECONDS": "0",
            "CMS_REQUEST_LOG": "false",
            "CMS_LOG_LEVEL": "WARNING",
        },
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        # One RQ worker per queue, seen by readiness, the admin page and the metrics alike.
        wait_for(lambda: api.get(READY).status_code == 200)
        page = console.get("/django-admin/background/workerbeat/").content.decode()
        assert "RQ workers (6 alive)" in page
        assert value(scrape(), "cms_task_workers_alive") == 6

        wait_for(lambda: Entry.objects.filter(pk=swept.pk, status="published").exists())
        entry = make_entry(posts, {"title": "On time"})
        when = now().replace(microsecond=0) + timedelta(seconds=2)
        path = f"/_cms/api/content/notices/{entry.pk}/schedule"
        assert admin_api.post(path, {"scheduledAt": iso(when)}, format="json").status_code == 200
        wait_for(lambda: Entry.objects.filter(pk=entry.pk, status="published").exists())
        assert Entry.objects.get(pk=entry.pk).published_at == when

        # The mail server turned the first attempt away; the retry, a delayed task, got through.
        message = wait_for(lambda: smtp.messages and smtp.messages[0])
        assert smtp.refused == 1 and len(smtp.messages) == 1
        assert "Subject: Sign in to CMS" in message and "To: member@example.com" in message

        # Both publications reached the receiver: the webhook sweep ran on its own (nothing enqueues it per write).
        wait_for(lambda: all(delivered(receiver, str(pk)) for pk in (entry.pk, swept.pk)))
        wait_for(lambda: ImportJob.objects.filter(pk=job_id, state="completed").exists())
        job = ImportJob.objects.get(pk=job_id)
        assert job.counters["collections"] == {"posts": {"created": ITEMS}}
        # In several tasks, each going on where the last one stopped.
        assert FinishedJobRegistry("imports", connection=rq_redis).get_job_count(cleanup=False) >= ITEMS // 20
        # Only the committed task ran, once.
        wait_for(lambda: os.path.exists(runs))
        assert Path(runs).read_text() == "2\n"

        # An RQ worker killed outright is replaced by the command that started it.
        (killed,) = [each.pid for each in rqbroker.live_workers() if each.queues == ["mail"]]
        os.kill(killed, signal.SIGKILL)
        wait_for(
            lambda: [
                each for each in rqbroker.live_workers() if each.queues == ["mail"] and each.pid != killed
            ]
        )

        worker.send_signal(signal.SIGTERM)
        assert worker.wait(timeout=120) == 0
    except BaseException:
        log.flush()
        print((tmp_path / "worker.log").read_text()[-20000:])
        raise
    finally:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait()
        log.close()
        receiver.stop()
        smtp.close()
    # Stopped RQ workers leave Redis: nothing serves the queues any more, and readiness says so. The mail worker
    # killed above counts as alive until its key expires (CMS_WORKER_DEAD_SECONDS), as a silent heartbeat does.
    response = api.get(READY)
    assert response.status_code == 503
    assert response.json()["error"]["details"]["checks"]["tasks"]["detail"] in {
        "No live worker serves: publishing, webhooks, imports, renditions, maintenance.",
        "No worker is running: scheduled publishing, mail, webhooks and imports wait. Start `python manage.py worker`.",
    }


def delivered(receiver: Receiver, entry_id: str) -> bool:
    return any(entry_id.encode() in body for _, body in list(receiver.requests))


def test_the_overview_and_readiness_say_so_when_redis_does_not_answer(settings, db, api):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    found = task_settings("rq", QUEUES, f"redis://127.0.0.1:{closed}/0", timeout=600)
    settings.TASKS, settings.RQ_QUEUES = found["TASKS"], found["RQ_QUEUES"]
    console = Client()
    console.force_login(make_user(Role.ADMIN))
    page = console.get("/django-admin/background/workerbeat/")
    assert page.status_code == 200
    assert "The task broker (Redis) is not reachable" in page.content.decode()
    response = api.get(READY)
    assert response.status_code == 503
    assert response.json()["error"]["details"]["checks"]["tasks"] == {
        "ok": False,
        "detail": "Not checked: the task broker (Redis) is not reachable.",
    }


def test_the_switch_sets_up_rq_only_when_asked():
    database = task_settings(None, QUEUES, "redis://r:6379/1", timeout=60)
    assert database == {
        "TASKS": {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": QUEUES}},
        "apps": [],
        "RQ_QUEUES": {},
        "RQ": {},
    }
    rq = task_settings("rq", ["mail"], "redis://r:6379/1", timeout=60)
    assert rq == {
        "TASKS": {"default": {"BACKEND": "django_tasks_rq.RQBackend", "QUEUES": ["mail"]}},
        "apps": ["django_rq", "django_tasks_rq"],
        "RQ_QUEUES": {
            "default": {"URL": "redis://r:6379/1", "DEFAULT_TIMEOUT": 60},
            "mail": {"URL": "redis://r:6379/1", "DEFAULT_TIMEOUT": 60},
        },
        "RQ": {"JOB_CLASS": "django_tasks_rq.Job", "WORKER_CLASS": "apps.background.rqworker.CmsWorker"},
    }
    assert (
        task_settings("my.Backend", ["mail"], None, timeout=60)["TASKS"]["default"]["BACKEND"] == "my.Backend"
    )
    with pytest.raises(ValueError, match="CMS_TASK_BACKEND=rq needs a Redis"):
        task_settings("rq", ["mail"], None, timeout=60)
