"""Taking a task from the database backend and running it: what every worker thread and ``worker --once`` do.

A task is claimed inside an exclusive transaction (``SELECT … FOR UPDATE SKIP LOCKED`` on PostgreSQL, an immediate
write lock on SQLite), so of two workers reaching for the same row exactly one gets it. An idle queue is first
looked at without any lock: a worker with nothing to do then costs the database one indexed read per poll, not a
write lock that would queue behind the site's own writes.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import OperationalError
from django.utils import timezone
from django_tasks_db.models import DBTaskResult, get_date_max
from django_tasks_db.utils import exclusive_transaction, is_locked_database_exception

from apps.background.queues import TryAgain
from apps.core import metrics

logger = logging.getLogger("cms.tasks")

# Tasks whose arguments their record must not keep once they have run (a mail holds a sign-in link): by name.
REDACTING: set[str] = set()
REDACTED = {"args": [], "kwargs": {"redacted": True}}


@dataclass
class Outcome:
    name: str
    queue: str
    ok: bool
    value: Any
    waited: float  # seconds between when it could first run and when it started
    took: float


def ready(queues: Iterable[str] | None = None, *, before: datetime | None = None):
    tasks = DBTaskResult.objects.ready().filter(backend_name="default")
    if queues is not None:
        tasks = tasks.filter(queue_name__in=list(queues))
    if before is not None:
        tasks = tasks.filter(enqueued_at__lte=before)
    return tasks


def claim(worker_id: str, queues: Iterable[str] | None = None, *, before: datetime | None = None):
    """The next ready task of ``queues``, now running under ``worker_id``; None when there is none (or the database
    is busy: the next poll tries again)."""
    tasks = ready(queues, before=before)
    if not tasks.exists():
        return None
    try:
        with exclusive_transaction(tasks.db):
            result = tasks.get_locked()
            if result is not None:
                result.claim(worker_id)
            return result
    except OperationalError as error:
        if is_locked_database_exception(error):
            return None
        raise


def run(result: DBTaskResult) -> Outcome:
    """Run a claimed task and record how it ended (Django's task signals fire as in the backend's own worker)."""
    from django_tasks_db.compat import TaskContext, task_finished, task_started

    started = timezone.now()
    due = (
        result.enqueued_at
        if result.run_after == get_date_max()
        else max(result.enqueued_at, result.run_after)
    )
    name, queue, value, ok = result.task_path.rpartition(".")[2], result.queue_name, None, False
    try:
        task = result.task
        backend = type(task.get_backend())
        task_result = result.task_result
        task_started.send(sender=backend, task_result=task_result)
        arguments = task_result.args, task_result.kwargs
        if task.takes_context:
            value = task.call(TaskContext(task_result=task_result), *arguments[0], **arguments[1])
        else:
            value = task.call(*arguments[0], **arguments[1])
        result.set_successful(value)
        ok = True
        task_finished.send(sender=backend, task_result=result.task_result)
    except BaseException as error:
        if not isinstance(error, TryAgain):
            logger.exception("task failed", extra={"task": name, "queue": queue, "task_id": str(result.pk)})
        result.set_failed(error)
        if isinstance(error, (KeyboardInterrupt, SystemExit)):
            raise
    finally:
        if name in REDACTING:
            DBTaskResult.objects.filter(pk=result.pk).update(args_kwargs=REDACTED)
    finished = timezone.now()
    outcome = Outcome(
        name=name,
        queue=queue,
        ok=ok,
        value=value,
        waited=max(0.0, (started - due).total_seconds()),
        took=(finished - started).total_seconds(),
    )
    metrics.task_finished(queue=queue, task=name, ok=ok, waited=outcome.waited, took=outcome.took)
    return outcome
