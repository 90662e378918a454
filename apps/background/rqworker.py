"""The RQ worker class every ``manage.py rqworker`` of this project runs (settings ``RQ["WORKER_CLASS"]``).

RQ's default worker forks a fresh process per task. Ours runs tasks in the worker process itself, one after another,
as each queue thread of the database worker does: an import job's slice leaves its reader open for the next slice
(apps/importer/jobs.py), which a forked task would lose, leaving the job idle until its lease expired. A task's
deadline (``CMS_TASK_RQ_TIMEOUT``) is still enforced, by an alarm signal instead of a kill.
"""

from __future__ import annotations

import logging

from django.db import close_old_connections
from rq import SimpleWorker

from apps.background import registry

logger = logging.getLogger("cms.worker")


class CmsWorker(SimpleWorker):
    def execute_job(self, job, queue):
        # As Django does around a request: a connection the database closed meanwhile is not reused.
        close_old_connections()
        try:
            super().execute_job(job, queue)
        finally:
            close_old_connections()

    def handle_warm_shutdown_request(self):
        super().handle_warm_shutdown_request()
        # A running import slice ends at its next batch. Nothing in this process ever waits on the event (tasks
        # read is_set()), so setting it from the signal handler cannot meet its lock held by the interrupted code.
        registry.STOPPING.set()

    def teardown(self):
        # The stop hooks: an import job held between slices goes back to the queue at its cursor.
        for name, hook in registry.STOPS.items():
            try:
                hook()
            except Exception:
                logger.exception("worker stop hook failed", extra={"hook": name})
        super().teardown()
