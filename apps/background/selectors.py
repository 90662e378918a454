"""What the queues hold and who works them: the Django admin's overview, the metrics and the readiness check."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Count, Min, Q
from django_tasks_db.models import DBTaskResult, get_date_max

from apps.background import rqbroker
from apps.background.models import WorkerBeat
from apps.core.timefmt import now


@dataclass(frozen=True)
class QueueState:
    name: str
    ready: int  # could run now
    later: int  # waiting for their time (scheduled publications, retries)
    running: int
    failed_recently: int  # failed within the last day
    # How long the oldest ready task has waited: a queue falling behind shows here.
    oldest_ready_seconds: float


def queue_states(moment: datetime | None = None) -> list[QueueState]:
    """Read from the task table, or from Redis with the RQ backend (redis.RedisError when it does not answer)."""
    moment = moment or now()
    if rqbroker.in_use():
        return [
            QueueState(name=name, **asdict(counts)) for name, counts in rqbroker.queue_counts(moment).items()
        ]
    day_ago = moment - timedelta(days=1)
    ready = Q(status="READY") & (Q(run_after=get_date_max()) | Q(run_after__lte=moment))
    rows = {
        row["queue_name"]: row
        for row in DBTaskResult.objects.values("queue_name").annotate(
            ready=Count("pk", filter=ready),
            later=Count("pk", filter=Q(status="READY") & ~ready),
            running=Count("pk", filter=Q(status="RUNNING")),
            failed=Count("pk", filter=Q(status="FAILED", finished_at__gte=day_ago)),
            oldest=Min("enqueued_at", filter=ready),
        )
    }
    states = []
    for name in settings.CMS_TASK_QUEUES:
        row = rows.get(name, {})
        oldest = row.get("oldest")
        states.append(
            QueueState(
                name=name,
                ready=row.get("ready", 0),
                later=row.get("later", 0),
                running=row.get("running", 0),
                failed_recently=row.get("failed", 0),
                oldest_ready_seconds=max(0.0, (moment - oldest).total_seconds()) if oldest else 0.0,
            )
        )
    return states


def live_workers(moment: datetime | None = None) -> list[WorkerBeat] | list[rqbroker.RQWorker]:
    """Worker processes that said they were alive within CMS_WORKER_DEAD_SECONDS; with the RQ backend, the RQ
    workers registered in Redis."""
    if rqbroker.in_use():
        return rqbroker.live_workers()
    cutoff = (moment or now()) - timedelta(seconds=settings.CMS_WORKER_DEAD_SECONDS)
    return list(WorkerBeat.objects.filter(seen_at__gt=cutoff))


def unserved_queues(workers: list[WorkerBeat] | list[rqbroker.RQWorker]) -> list[str]:
    served = {queue for worker in workers for queue in worker.queues}
    return [name for name in settings.CMS_TASK_QUEUES if name not in served]
