"""Background tasks run by ``manage.py worker``: each app registers a function that does one pass of its work.

Jobs live in the database (scheduled entries, import jobs), so no broker is needed and a crashed worker loses nothing:
the next pass finds the same rows. Apps register from ``AppConfig.ready()``; core knows none of them.
"""

from __future__ import annotations

from collections.abc import Callable

# name → function doing one pass; it returns how many items it handled.
TASKS: dict[str, Callable[[], int]] = {}
# name → function run once when the worker stops, for a task that keeps work between its passes to hand it back.
STOPS: dict[str, Callable[[], None]] = {}


def register(name: str, task: Callable[[], int], *, stop: Callable[[], None] | None = None) -> None:
    TASKS[name] = task
    if stop is not None:
        STOPS[name] = stop
