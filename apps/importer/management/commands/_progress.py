"""How ``import_wxr`` shows its progress, on stderr so that stdout holds only the report.

On a terminal, a bar redrawn in place with a carriage return. Anywhere else (a pipe, a log file, CI), where carriage
returns pile up into one endless line, a plain line each time another tenth of the items is done, or 1,000 items,
whichever comes first. Both count the export's items (the job's cursor), the unit the command's header names.
"""

from __future__ import annotations

import math
import time

from django.core.management.base import OutputWrapper

from apps.importer.models import ImportJob

LINES = 10  # a line per tenth of the items …
LINE_ITEMS = 1000  # … or per 1,000 items when that comes sooner
BAR_WIDTH = 30


def _plain(text: str) -> str:
    # Django styles stderr as errors on a terminal; progress is not one.
    return text


class Progress:
    def __init__(self, stream: OutputWrapper, job: ImportJob) -> None:
        self.stream = stream
        self.terminal = stream.isatty()
        result = job.analysis.result if job.analysis else {}
        self.total = max(result.get("itemCount") or job.total, 1)
        self.every = max(1, min(LINE_ITEMS, math.ceil(self.total / LINES)))
        # A resumed job's rate counts the items of this run only.
        self.first = self.shown = job.cursor
        self.started = time.monotonic()

    def __call__(self, current: int, phase: str) -> None:
        if self.terminal:
            self._draw(current, phase, ending="")
        elif current < self.total and current // self.every > self.shown // self.every:
            self.shown = current
            rate, left = self._rate(current)
            self.stream.write(
                f"{current}/{self.total} items ({current * 100 // self.total}%), {rate:.0f} items/s, "
                f"about {left:.0f} s left",
                style_func=_plain,
            )
        self.stream.flush()

    def finish(self, current: int) -> None:
        if self.terminal:
            self._draw(current, "done", ending="\n")
        else:
            rate, _ = self._rate(current)
            self.stream.write(
                f"{current}/{self.total} items ({current * 100 // self.total}%) in "
                f"{time.monotonic() - self.started:.0f} s, {rate:.0f} items/s",
                style_func=_plain,
            )
        self.stream.flush()

    def _rate(self, current: int) -> tuple[float, float]:
        elapsed = max(time.monotonic() - self.started, 1e-6)
        rate = (current - self.first) / elapsed
        return rate, (max(self.total - current, 0) / rate if rate else 0.0)

    def _draw(self, current: int, phase: str, *, ending: str) -> None:
        rate, left = self._rate(current)
        filled = int(BAR_WIDTH * min(current, self.total) / self.total)
        self.stream.write(
            f"\r[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {current}/{self.total} items  {rate:.0f} items/s  "
            f"ETA {left:.0f}s  ({phase})",
            style_func=_plain,
            ending=ending,
        )
