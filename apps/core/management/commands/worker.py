"""``manage.py worker``: run background tasks (apps/background): scheduled publishing, mail, webhooks, imports,
renditions and upkeep, each queue in its own thread.

`make run` starts one next to the web server. Any number may run at once, on this machine or others sharing the
database; ``--queues`` makes one serve only some queues (say, a machine for imports). SIGTERM or SIGINT stops it
after the tasks in hand; a task cut short by a kill is run again once the worker is seen to be dead. With
``CMS_TASK_BACKEND=rq`` it supervises one RQ worker per queue instead (apps/background/rqbroker.py).
"""

from __future__ import annotations

import signal

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django_tasks import task_backends
from django_tasks_db import DatabaseBackend

from apps.background import rqbroker
from apps.background.worker import Worker, run_once


class Command(BaseCommand):
    help = "Run background tasks (scheduled publishing, mail, webhooks, imports, renditions, upkeep)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--queues",
            default="",
            help="Comma-separated queues to serve (default: all of them, each in its own thread).",
        )
        parser.add_argument(
            "--interval", type=float, default=None, help="Seconds an idle queue waits before looking again."
        )
        parser.add_argument(
            "--once",
            action="store_true",
            help="Run the tasks ready now (and the periodic sweeps) once, then exit.",
        )

    def handle(self, *args, queues: str, interval: float | None, once: bool, **options):
        known = list(settings.CMS_TASK_QUEUES)
        chosen = [name.strip() for name in queues.split(",") if name.strip()] or known
        unknown = sorted(set(chosen) - set(known))
        if unknown:
            raise CommandError(f"Unknown queue(s): {', '.join(unknown)}. The queues are: {', '.join(known)}.")
        if rqbroker.in_use():
            if once:
                raise CommandError("--once serves the database backend; on RQ, `manage.py rqworker --burst`.")
            self.serve(rqbroker.Supervisor(chosen))
            return
        if not isinstance(task_backends["default"], DatabaseBackend):
            raise CommandError(
                "This command serves the database and RQ task backends; yours has its own worker."
            )
        if interval is not None:
            settings.CMS_WORKER_POLL_SECONDS = interval
        if once:
            for name, count in sorted(run_once(chosen).items()):
                self.stdout.write(f"{name}: {count}")
            return
        self.serve(Worker([[queue] for queue in chosen]))

    def serve(self, worker) -> None:
        def stop(signum, frame):
            worker.request_stop()

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        worker.serve()
