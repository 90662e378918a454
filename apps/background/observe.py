"""Background work as operators' tooling sees it: the readiness check ``tasks`` and the task metrics (the queues read
at scrape time, each finished task counted by the worker that ran it)."""

from __future__ import annotations

import logging

import redis
from django.db import DatabaseError
from prometheus_client.core import GaugeMetricFamily

from apps.background import rqbroker, selectors
from apps.core import metrics, readiness

logger = logging.getLogger("cms.tasks")

NO_WORKER = "No worker is running: scheduled publishing, mail, webhooks and imports wait. Start `python manage.py worker`."


def tasks_check() -> readiness.CheckResult | None:
    """Ready when every queue is served by a worker that beat within CMS_WORKER_DEAD_SECONDS (with RQ: by an RQ
    worker registered in Redis). Not applicable with another backend (its workers keep no heartbeat we can read)."""
    from django_tasks import task_backends
    from django_tasks_db import DatabaseBackend

    if not rqbroker.in_use() and not isinstance(task_backends["default"], DatabaseBackend):
        return None
    try:
        workers = selectors.live_workers()
    except DatabaseError as error:
        logger.warning("readiness: task table not readable: %s", type(error).__name__)
        return readiness.failed("Not checked: the database is not reachable.")
    except redis.RedisError as error:
        logger.warning("readiness: task broker not readable: %s", type(error).__name__)
        return readiness.failed("Not checked: the task broker (Redis) is not reachable.")
    if not workers:
        return readiness.failed(NO_WORKER)
    unserved = selectors.unserved_queues(workers)
    if unserved:
        return readiness.failed(f"No live worker serves: {', '.join(unserved)}.")
    return readiness.passed()


class QueueCollector:
    """Each queue's depth read from the task table (or RQ's Redis) when scraped, so every node reports the same
    figures. A broker that does not answer leaves the task figures out of that scrape, not the whole scrape."""

    def collect(self):
        try:
            states = selectors.queue_states()
            alive = len(selectors.live_workers())
        except redis.RedisError as error:
            logger.warning("metrics: task broker not readable: %s", type(error).__name__)
            return []
        families = {
            "ready": GaugeMetricFamily("cms_task_queue_ready", "Tasks that could run now.", labels=["queue"]),
            "later": GaugeMetricFamily(
                "cms_task_queue_waiting", "Tasks waiting for their time (delayed, retries).", labels=["queue"]
            ),
            "running": GaugeMetricFamily("cms_task_queue_running", "Tasks running now.", labels=["queue"]),
            "failed_recently": GaugeMetricFamily(
                "cms_task_queue_failed_last_day", "Tasks that failed within the last day.", labels=["queue"]
            ),
            "oldest_ready_seconds": GaugeMetricFamily(
                "cms_task_queue_oldest_ready_seconds",
                "How long the oldest ready task has waited: a queue falling behind shows here.",
                labels=["queue"],
            ),
        }
        for state in states:
            for field, family in families.items():
                family.add_metric([state.name], getattr(state, field))
        workers = GaugeMetricFamily("cms_task_workers_alive", "Worker processes that beat recently.")
        workers.add_metric([], alive)
        return [*families.values(), workers]


def register() -> None:
    readiness.register("tasks", tasks_check)
    metrics.register_collector(QueueCollector())
