"""Sources for the read-ahead tests. The reader process imports this module by name, so it imports nothing of Django."""

from __future__ import annotations

import logging
import multiprocessing
import os


def _in_reader() -> bool:
    return multiprocessing.parent_process() is not None


def counting(count: int):
    yield from range(count)


def dying(count: int, die_at: int):
    """Counts; the reader process dies without a word at ``die_at`` (killed, out of memory)."""
    for number in range(count):
        if number == die_at and _in_reader():
            os._exit(3)
        yield number


def failing(count: int, fail_at: int):
    for number in range(count):
        if number == fail_at:
            raise ValueError(f"item {number} is broken")
        yield number


def logging_one(count: int):
    for number in range(count):
        if number == 1:
            logging.getLogger("apps.importer.sources.wxr").warning("Could not convert item %s", number)
        yield number


def orphaned_reader() -> None:
    """Start a reader, take a few records, print the reader's pid and die without any cleanup (as SIGKILL would)."""
    from apps.importer.readahead import read_ahead

    records = read_ahead(counting, 10_000_000)
    for _ in range(5):
        next(records)
    print(multiprocessing.active_children()[0].pid, flush=True)
    os._exit(9)
