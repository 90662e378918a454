"""The worker process: one thread per queue group running tasks, and the main thread keeping the process's heartbeat
and enqueueing the periodic sweeps (registry.py).

Threads, not processes: the work is mostly waiting (the database, mail servers, webhook receivers, downloads), and
a thread per queue is what keeps a long import from delaying an entry's publication. An operator who wants more
parallelism runs more worker processes, here or on other machines (docs/operations.md).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections import Counter
from collections.abc import Sequence

from django.conf import settings
from django.db import close_old_connections, connections
from django_tasks_db.models import DBTaskResult

from apps.background import registry, runner
from apps.background.models import WorkerBeat
from apps.core.timefmt import now

logger = logging.getLogger("cms.worker")


def new_worker_id() -> str:
    return f"{socket.gethostname()[:40]}-{os.getpid()}-{uuid.uuid4().hex[:8]}"


def enqueue_periodic(due: Sequence[registry.Periodic]) -> int:
    """Enqueue each of ``due`` that has work, unless one of its runs is already waiting or running (any worker's)."""
    from apps.background.queues import enqueue

    due = [each for each in due if periodic_needed(each)]
    if not due:
        return 0
    # A run waiting for a later time (a delayed publication) does not count: the sweep's work is due now.
    paths = [each.task.module_path for each in due]
    waiting = DBTaskResult.objects.ready() | DBTaskResult.objects.running()
    busy = set(waiting.filter(task_path__in=paths).values_list("task_path", flat=True))
    fresh = [each for each in due if each.task.module_path not in busy]
    for each in fresh:
        enqueue(each.task)
    return len(fresh)


def periodic_needed(periodic: registry.Periodic) -> bool:
    """The periodic task's cheap check; a check that raises is logged and taken as nothing to do."""
    try:
        return periodic.needed()
    except Exception:
        logger.exception("periodic check failed", extra={"task": periodic.task.name})
        return False


def beat(worker_id: str, queues: list[str], started, counts: Counter) -> None:
    WorkerBeat.objects.update_or_create(
        worker_id=worker_id,
        defaults={
            "host": socket.gethostname()[:255],
            "pid": os.getpid(),
            "queues": queues,
            "started_at": started,
            "seen_at": now(),
            "finished": counts["finished"],
            "failed": counts["failed"],
        },
    )


class QueueLoop(threading.Thread):
    """Runs the tasks of its queues one after another until told to stop."""

    def __init__(self, worker: Worker, queues: list[str]):
        super().__init__(name=f"tasks-{'+'.join(queues)}", daemon=True)
        self.worker, self.queues = worker, queues

    def run(self) -> None:
        poll = settings.CMS_WORKER_POLL_SECONDS
        try:
            while not self.worker.stopping.is_set():
                close_old_connections()
                try:
                    result = runner.claim(self.worker.worker_id, self.queues)
                except Exception:
                    logger.exception("could not look for tasks", extra={"queues": self.queues})
                    result = None
                if result is None:
                    self.worker.stopping.wait(poll)
                    continue
                try:
                    outcome = runner.run(result)
                except Exception:
                    # Recording the outcome failed (the database went away mid-task): the task stays running until
                    # this worker is seen dead or restarts; the queue goes on being served meanwhile.
                    logger.exception("could not record a task's outcome", extra={"queues": self.queues})
                    self.worker.stopping.wait(poll)
                    continue
                self.worker.finished(outcome)
        finally:
            connections.close_all()


class Worker:
    def __init__(self, groups: list[list[str]]):
        self.groups = groups
        self.queues = [queue for group in groups for queue in group]
        self.worker_id = new_worker_id()
        self.stopping = registry.STOPPING
        # Set by the signal handler, which must not touch the event: Event.set takes a lock the interrupted main
        # thread may be holding (a second SIGTERM during the first one's set() deadlocked the process).
        self.stop_requested = False
        self.counts: Counter = Counter()
        self._lock = threading.Lock()

    def finished(self, outcome: runner.Outcome) -> None:
        with self._lock:
            self.counts["finished"] += 1
            self.counts["failed"] += not outcome.ok
        logger.info(
            "task finished",
            extra={
                "task": outcome.name,
                "queue": outcome.queue,
                "ok": outcome.ok,
                "waited_ms": round(outcome.waited * 1000, 1),
                "took_ms": round(outcome.took * 1000, 1),
            },
        )

    def serve(self) -> None:
        started = now()
        loops = [QueueLoop(self, group) for group in self.groups]
        for loop in loops:
            loop.start()
        logger.info("worker started", extra={"worker_id": self.worker_id, "queues": self.queues})
        next_run = {path: 0.0 for path in registry.PERIODIC}
        next_beat = 0.0
        try:
            while not self.stopping.is_set():
                close_old_connections()
                moment = time.monotonic()
                try:
                    if moment >= next_beat:
                        beat(self.worker_id, self.queues, started, self.counts)
                        next_beat = moment + settings.CMS_WORKER_BEAT_SECONDS
                    due = [each for path, each in registry.PERIODIC.items() if next_run[path] <= moment]
                    for each in due:
                        next_run[each.task.module_path] = moment + each.every
                    # Only the sweeps whose queue this worker serves: a worker for imports alone does not fill the
                    # publishing queue for other machines.
                    enqueue_periodic([each for each in due if each.task.queue_name in self.queues])
                except Exception:
                    logger.exception("worker housekeeping failed")
                # The sweeps' checks come due at whole seconds (the webhooks' every second).
                self._nap(1.0)
        finally:
            for loop in loops:
                loop.join()
            self.stop_hooks()
            WorkerBeat.objects.filter(worker_id=self.worker_id).delete()
            logger.info("worker stopped", extra={"worker_id": self.worker_id})

    def request_stop(self) -> None:
        """For a signal handler: only a flag; the main thread passes it on to the queue threads."""
        self.stop_requested = True

    def _nap(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while not self.stop_requested and time.monotonic() < deadline:
            time.sleep(0.05)
        if self.stop_requested:
            self.stopping.set()

    def stop_hooks(self) -> None:
        for name, hook in registry.STOPS.items():
            try:
                hook()
            except Exception:
                logger.exception("worker stop hook failed", extra={"hook": name})


def run_once(queues: list[str]) -> Counter:
    """One pass, in this thread: the periodic sweeps that have work enqueued, then every task of ``queues`` that
    was ready when the pass began run once (a task a task enqueues waits for the next pass)."""
    enqueue_periodic([each for each in registry.PERIODIC.values() if each.task.queue_name in queues])
    try:
        return drain(queues)
    finally:
        Worker([queues]).stop_hooks()


def drain(queues: list[str]) -> Counter:
    """Run, in this thread, every task of ``queues`` ready now. Answers what the tasks returned, summed by task
    name, for those that answered a count."""
    worker = Worker([queues])
    begun = now()
    handled: Counter = Counter()
    while (result := runner.claim(worker.worker_id, queues, before=begun)) is not None:
        outcome = runner.run(result)
        if outcome.ok and isinstance(outcome.value, int) and outcome.value:
            handled[outcome.name] += outcome.value
    return handled
