"""``manage.py worker``: the long-running background process (scheduled publishing, import jobs).

Every ``--interval`` seconds it runs one pass of each registered task (apps/core/worker.py). `make run` starts it next
to the web server; several workers may run at once (each task is safe for that). SIGTERM or SIGINT stops it after the
current pass; tasks that keep work between passes (an import job's open reader) hand it back then.
"""

from __future__ import annotations

import logging
import signal
import time

from django.core.management.base import BaseCommand
from django.db import close_old_connections

from apps.core.worker import STOPS, TASKS

logger = logging.getLogger("cms.worker")


class Command(BaseCommand):
    help = "Run background work: publish scheduled entries when due, run queued import jobs."

    def add_arguments(self, parser):
        parser.add_argument("--interval", type=float, default=1.0, help="Seconds between passes (default 1).")
        parser.add_argument("--once", action="store_true", help="Run one pass of every task and exit.")

    def handle(self, *args, interval: float, once: bool, **options):
        self.stopping = False
        if not once:
            signal.signal(signal.SIGTERM, self._stop)
            signal.signal(signal.SIGINT, self._stop)
            logger.info("worker started", extra={"tasks": sorted(TASKS), "interval": interval})
        try:
            self._loop(interval, once)
        finally:
            for name, stop in STOPS.items():
                close_old_connections()
                try:
                    stop()
                except Exception:
                    logger.exception("task stop failed", extra={"task": name})
        if not once:
            logger.info("worker stopped")

    def _loop(self, interval: float, once: bool) -> None:
        while not self.stopping:
            started = time.monotonic()
            for name, task in TASKS.items():
                # A lost database connection must not kill the worker: drop it and try again next pass.
                close_old_connections()
                try:
                    handled = task()
                except Exception:
                    logger.exception("task failed", extra={"task": name})
                    continue
                if handled:
                    logger.info("task pass", extra={"task": name, "handled": handled})
                    if once:
                        self.stdout.write(f"{name}: {handled}")
            if once:
                return
            time.sleep(max(0.0, interval - (time.monotonic() - started)))

    def _stop(self, signum, frame):
        self.stopping = True
