"""Enqueueing: one place that knows how a task reaches its backend, and how a failed attempt is tried again.

With the database backend a task is a row written in the caller's transaction: it exists exactly when the write
that asked for it commits (an outbox, for free). Any other backend (a broker) is handed the task once the
transaction commits, so a rolled-back write enqueues nothing.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction

from apps.core.timefmt import now

logger = logging.getLogger("cms.tasks")

PUBLISHING = "publishing"
MAIL = "mail"
WEBHOOKS = "webhooks"
IMPORTS = "imports"
RENDITIONS = "renditions"
MAINTENANCE = "maintenance"


def writes_rows(task: Any) -> bool:
    from django_tasks_db import DatabaseBackend

    return isinstance(task.get_backend(), DatabaseBackend)


def enqueue(task: Any, *args: Any, run_after: datetime | None = None, **kwargs: Any) -> None:
    """Enqueue ``task(*args, **kwargs)`` as part of the current transaction (see the module's docstring)."""
    bound = task.using(run_after=run_after) if run_after is not None else task
    if writes_rows(task):
        bound.enqueue(*args, **kwargs)
    else:
        transaction.on_commit(lambda: bound.enqueue(*args, **kwargs), robust=True)


class TryAgain(Exception):
    """A transient failure (a mail server or a remote host that did not answer): the attempt failed, another will
    follow. Raised by ``retry_or_raise`` after the next attempt is enqueued, so this attempt is recorded as failed."""


def backoff(attempt: int, *, base: float, cap: float) -> timedelta:
    """The wait before attempt ``attempt + 1``: base · 2^(attempt-1), at most ``cap``."""
    return timedelta(seconds=min(cap, base * 2 ** max(0, attempt - 1)))


def retry_or_raise(
    task: Any,
    error: Exception,
    *args: Any,
    attempt: int,
    attempts: int,
    base: float,
    cap: float,
    **kwargs: Any,
) -> None:
    """Enqueue the next attempt of ``task`` after an exponential backoff and raise ``TryAgain``; after the last
    attempt re-raise ``error``. The attempt number travels in the task's own ``attempt`` keyword."""
    if attempt >= attempts:
        raise error
    delay = backoff(attempt, base=base, cap=cap)
    with transaction.atomic():
        enqueue(task, *args, run_after=now() + delay, attempt=attempt + 1, **kwargs)
    logger.warning(
        "task attempt failed, trying again",
        extra={
            "task": task.name,
            "attempt": attempt,
            "next_in_seconds": delay.total_seconds(),
            "error": repr(error),
        },
    )
    raise TryAgain(f"attempt {attempt} of {attempts} failed: {error!r}") from error
