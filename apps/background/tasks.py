"""The worker's own upkeep, as periodic tasks on the maintenance queue."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django_tasks import task
from django_tasks_db.models import DBTaskResult, get_date_max

from apps.background.models import WorkerBeat
from apps.background.queues import MAINTENANCE
from apps.core.timefmt import now

logger = logging.getLogger("cms.tasks")

PRUNE_BATCH = 1000


def _dead_cutoff():
    return now() - timedelta(seconds=settings.CMS_WORKER_DEAD_SECONDS)


def orphans_possible() -> bool:
    return DBTaskResult.objects.running().filter(started_at__lte=_dead_cutoff()).exists()


@task(queue_name=MAINTENANCE)
def recover_orphans() -> int:
    """Put back in their queues the tasks a dead worker was running: a worker whose heartbeat is older than
    CMS_WORKER_DEAD_SECONDS (or that never beat) is dead, whatever it was doing. Every task is safe to run again
    (the module docstring of apps.background), so the next worker simply runs it."""
    cutoff = _dead_cutoff()
    alive = set(WorkerBeat.objects.filter(seen_at__gt=cutoff).values_list("worker_id", flat=True))
    recovered = 0
    for result in DBTaskResult.objects.running().filter(started_at__lte=cutoff).only("pk", "worker_ids"):
        if result.worker_ids and result.worker_ids[-1] in alive:
            continue
        with transaction.atomic():
            recovered += DBTaskResult.objects.filter(
                pk=result.pk, status="RUNNING", started_at__lte=cutoff
            ).update(status="READY", started_at=None, run_after=get_date_max())
    WorkerBeat.objects.filter(seen_at__lte=cutoff).delete()
    if recovered:
        logger.warning("tasks of dead workers put back in their queues", extra={"count": recovered})
    return recovered


def _expired():
    days = settings.CMS_TASK_RETENTION_DAYS
    if days <= 0:
        return DBTaskResult.objects.none()
    return DBTaskResult.objects.filter(
        status__in=["SUCCESSFUL", "FAILED"], finished_at__lt=now() - timedelta(days=days)
    )


def results_expired() -> bool:
    return _expired().exists()


@task(queue_name=MAINTENANCE)
def prune_task_results() -> int:
    """Delete finished task records older than CMS_TASK_RETENTION_DAYS (0 keeps them), a batch per transaction so
    the table is never locked for long."""
    deleted = 0
    while True:
        batch = list(_expired().values_list("pk", flat=True)[:PRUNE_BATCH])
        if not batch:
            return deleted
        with transaction.atomic():
            deleted += DBTaskResult.objects.filter(pk__in=batch).delete()[0]
