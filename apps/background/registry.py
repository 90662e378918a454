"""What a worker does besides running the tasks it is handed: periodic sweeps and stop hooks.

Apps register from ``AppConfig.ready()``; this app knows none of them.

- A *periodic* task is a sweep for work that no event announced (a job whose worker died, an entry whose delayed
  task was lost, a webhook attempt come due). Every ``every`` seconds each worker process asks its ``needed`` check
  (one cheap read) and enqueues the task when there is work and no run of it is already waiting or running: an idle
  site writes no task rows. Sweeps must be safe to run twice.
- A *stop hook* runs once when the worker process stops (an import job's open reader is handed back).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Periodic:
    task: Any  # a django_tasks Task
    every: float
    needed: Callable[[], bool]


# Set when this worker process has been told to stop: a long task (an import slice) checks it between batches and
# ends early, so a stopping worker hands its work back in seconds instead of at the end of the slice.
STOPPING = threading.Event()

PERIODIC: dict[str, Periodic] = {}
STOPS: dict[str, Callable[[], None]] = {}


def periodic(task: Any, *, every: float, needed: Callable[[], bool]) -> None:
    PERIODIC[task.module_path] = Periodic(task, every, needed)


def on_stop(name: str, hook: Callable[[], None]) -> None:
    STOPS[name] = hook
