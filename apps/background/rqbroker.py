"""Background work on RQ over Redis (``CMS_TASK_BACKEND=rq``, django-tasks-rq): what the queues hold as RQ keeps
them, and ``manage.py worker`` as a supervisor of RQ workers.

With RQ the queues live in Redis and RQ's own workers run the tasks (each task in a forked process, as RQ does). An
RQ worker runs one task at a time from its queues in order, so one worker for every queue would hold publishing
behind an import: ``manage.py worker`` therefore starts one RQ worker per queue (``manage.py rqworker``), starts again
any that exits, runs RQ's scheduler (delayed tasks come due) and enqueues the periodic sweeps (registry.py) into RQ,
which has none of its own. Operators keep one command; plain ``rqworker`` processes elsewhere work beside it.

What is seen here is read from Redis, never from the database: RQ's workers register themselves there (with a time
to live), so "served" means a live RQ worker listens on the queue, whoever started it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from datetime import datetime

import redis
from django.conf import settings
from django.db import close_old_connections

from apps.background import registry
from apps.background.worker import periodic_needed

logger = logging.getLogger("cms.worker")

RQ_BACKEND = "django_tasks_rq.RQBackend"
# Reads for the admin page, the metrics and readiness: a hung Redis must not hold a scrape or a load balancer's poll.
READ_TIMEOUT = 0.5


def in_use() -> bool:
    return settings.TASKS["default"]["BACKEND"] == RQ_BACKEND


def _connection() -> redis.Redis:
    url = next(iter(settings.RQ_QUEUES.values()))["URL"]
    return redis.Redis.from_url(url, socket_timeout=READ_TIMEOUT, socket_connect_timeout=READ_TIMEOUT)


@dataclass(frozen=True)
class Counts:
    ready: int
    later: int
    running: int
    failed_recently: int
    oldest_ready_seconds: float


def queue_counts(moment: datetime) -> dict[str, Counts]:
    """Each queue's jobs as RQ holds them: queued, scheduled (delayed tasks, retries), started, and failed within
    the last day. Raises redis.RedisError when Redis does not answer."""
    from rq import Queue
    from rq.defaults import DEFAULT_FAILURE_TTL
    from rq.job import Job
    from rq.registry import FailedJobRegistry, ScheduledJobRegistry, StartedJobRegistry

    connection = _connection()
    stamp = moment.timestamp()
    counts = {}
    for name in settings.CMS_TASK_QUEUES:
        queue = Queue(name, connection=connection)
        oldest = 0.0
        if first := queue.get_job_ids(0, 1):
            job = Job.fetch(first[0], connection=connection) if Job.exists(first[0], connection) else None
            if job is not None and job.enqueued_at is not None:
                oldest = max(0.0, stamp - job.enqueued_at.timestamp())
        # A failed job's score is when RQ will forget it (failure time + its time to live, a year by default, which
        # django-tasks-rq does not change): failed within the last day = forgotten later than a year less a day.
        failed = connection.zcount(
            FailedJobRegistry(queue=queue).key, stamp + DEFAULT_FAILURE_TTL - 86400, "+inf"
        )
        counts[name] = Counts(
            ready=queue.count,
            later=connection.zcard(ScheduledJobRegistry(queue=queue).key),
            running=connection.zcard(StartedJobRegistry(queue=queue).key),
            failed_recently=failed,
            oldest_ready_seconds=oldest,
        )
    return counts


@dataclass(frozen=True)
class RQWorker:
    name: str
    host: str
    pid: int
    queues: list[str]
    state: str


def live_workers() -> list[RQWorker]:
    """The RQ workers registered in Redis (an RQ worker's key expires when it stops beating). Raises
    redis.RedisError when Redis does not answer."""
    from rq import Worker

    return [
        RQWorker(
            name=worker.name,
            host=worker.hostname or "",
            pid=worker.pid or 0,
            queues=worker.queue_names(),
            state=str(worker.get_state()),
        )
        for worker in Worker.all(connection=_connection())
    ]


class Supervisor:
    """``manage.py worker`` on RQ: one ``rqworker`` child per queue, restarted when it exits, and the periodic
    sweeps of the queues it serves enqueued into RQ."""

    def __init__(self, queues: list[str]):
        self.queues = queues
        self.name = f"{os.uname().nodename[:40]}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self.children: dict[str, subprocess.Popen] = {}
        self.stop_requested = False
        # Per sweep, the result id of its last run: not enqueued again while that run waits or runs.
        self.pending: dict[str, str] = {}

    def command(self, queue: str) -> list[str]:
        # An RQ worker whose key outlives CMS_WORKER_DEAD_SECONDS would be counted alive after a kill for longer.
        ttl = max(30, int(settings.CMS_WORKER_DEAD_SECONDS))
        return [
            sys.executable,
            str(settings.BASE_DIR / "manage.py"),
            "rqworker",
            "--worker-ttl",
            str(ttl),
            "--name",
            # A fresh name each start: a killed worker's name stays registered until its key expires.
            f"{self.name}-{queue}-{uuid.uuid4().hex[:4]}",
            queue,
        ]

    def start(self, queue: str) -> None:
        # Our own argv (this interpreter, manage.py, a queue name from settings), no shell.
        self.children[queue] = subprocess.Popen(  # noqa: S603  # nosec B603
            self.command(queue), cwd=settings.BASE_DIR, preexec_fn=_die_with_parent
        )

    def request_stop(self) -> None:
        """For a signal handler: only a flag."""
        self.stop_requested = True

    def serve(self) -> None:
        import django_rq
        from rq.scheduler import RQScheduler

        # RQ's scheduler (delayed tasks: scheduled publishing, retries) in this loop, instead of the process each
        # `rqworker --with-scheduler` forks: one per queue would be six more processes. Its locks in Redis leave
        # each queue to one scheduler among all the machines; another takes over within a minute of a death.
        scheduler = RQScheduler(self.queues, connection=django_rq.get_connection("default"))
        for queue in self.queues:
            self.start(queue)
        logger.info("worker started on RQ", extra={"worker_id": self.name, "queues": self.queues})
        next_run = {path: 0.0 for path in registry.PERIODIC}
        try:
            while not self.stop_requested:
                close_old_connections()
                for queue, child in list(self.children.items()):
                    if child.poll() is not None:
                        logger.warning("RQ worker exited; starting another", extra={"queue": queue})
                        self.start(queue)
                moment = time.monotonic()
                due = [each for path, each in registry.PERIODIC.items() if next_run[path] <= moment]
                for each in due:
                    next_run[each.task.module_path] = moment + each.every
                try:
                    self.enqueue_periodic([each for each in due if each.task.queue_name in self.queues])
                except Exception:
                    logger.exception("periodic sweeps not enqueued")
                try:
                    if scheduler.acquire_locks():
                        scheduler.enqueue_scheduled_jobs()
                except redis.RedisError:
                    logger.exception("delayed tasks not moved to their queues")
                self._nap(1.0)
        finally:
            with contextlib.suppress(redis.RedisError):  # unreleased, they expire within a minute
                scheduler.release_locks()
            # RQ's warm shutdown: each child ends after the task in hand.
            for child in self.children.values():
                if child.poll() is None:
                    child.terminate()
            for child in self.children.values():
                child.wait()
            logger.info("worker stopped", extra={"worker_id": self.name})

    def enqueue_periodic(self, due: list[registry.Periodic]) -> int:
        from django_tasks import TaskResultStatus
        from django_tasks.exceptions import TaskResultDoesNotExist

        enqueued = 0
        for each in due:
            path = each.task.module_path
            if path in self.pending:
                try:
                    status = each.task.get_result(self.pending[path]).status
                except TaskResultDoesNotExist:
                    status = None
                if status in (TaskResultStatus.READY, TaskResultStatus.RUNNING):
                    continue
            if not periodic_needed(each):
                continue
            # Not in a transaction: the sweep's check just read committed rows, so it goes to Redis at once.
            self.pending[path] = each.task.enqueue().id
            enqueued += 1
        return enqueued

    def _nap(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while not self.stop_requested and time.monotonic() < deadline:
            time.sleep(0.05)


def _die_with_parent() -> None:
    """In the child before it runs: on Linux, SIGTERM it (RQ's warm shutdown) when the supervisor dies, even by
    SIGKILL, so no RQ worker outlives the command that started it. Elsewhere a no-op."""
    if sys.platform != "linux":
        return
    import ctypes

    pr_set_pdeathsig = 1
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)
