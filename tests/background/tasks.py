"""Tasks the background tests enqueue (a task must live at an importable module path)."""

from __future__ import annotations

import os

from django_tasks import task


@task(queue_name="maintenance")
def note(n: int, path: str) -> int:
    """Append ``n`` to the file at ``path``: how a test sees which runs happened, and how many times."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, f"{n}\n".encode())
    finally:
        os.close(fd)
    return 1
