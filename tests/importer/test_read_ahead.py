"""Reading an export in a second process while the import writes (apps/importer/readahead.py): the same records in
the same order, the same errors, the reader's log lines in this process, and no reader left behind."""

from __future__ import annotations

import logging
import multiprocessing
import os
import subprocess
import sys
import time
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from apps.importer.models import ImportJob
from apps.importer.readahead import read_ahead
from apps.importer.sources.wxr import read_wxr
from tests.importer import readers
from tests.importer.conftest import THEME_UNIT_TEST

ROOT = Path(__file__).resolve().parents[2]


def test_a_large_file_is_read_by_another_process(admin_api, settings, caplog):
    settings.CMS_IMPORT_READ_AHEAD_BYTES = 0

    with caplog.at_level(logging.DEBUG, logger="apps.importer.readahead"):
        call_command("import_wxr", str(THEME_UNIT_TEST), "--no-progress", stdout=StringIO())

    assert ImportJob.objects.get().state == "completed"
    [reader] = [record for record in caplog.records if record.name == "apps.importer.readahead"]
    assert reader.reader_pid != os.getpid()
    records = sum(1 for _ in read_wxr(THEME_UNIT_TEST))
    assert reader.getMessage() == (
        f"import reader {reader.reader_pid} delivered {records} records (peak memory {reader.reader_peak_kb} kB)"
    )
    assert 0 < reader.reader_peak_kb < 200_000


def test_records_arrive_in_order():
    assert list(read_ahead(readers.counting, 1000)) == list(range(1000))


def test_a_reader_that_dies_is_replaced_by_reading_here(caplog):
    with caplog.at_level(logging.WARNING, logger="apps.importer.readahead"):
        assert list(read_ahead(readers.dying, 300, 100)) == list(range(300))
    assert [record.getMessage() for record in caplog.records] == [
        "the import reader process stopped (exit code 3)"
    ]


def test_an_error_is_raised_here_after_the_records_before_it():
    received = []
    with pytest.raises(ValueError, match="item 70 is broken"):
        for number in read_ahead(readers.failing, 300, 70):
            received.append(number)
    assert received == list(range(70))


def test_the_readers_log_lines_arrive_here(caplog):
    with caplog.at_level(logging.WARNING, logger="apps.importer.sources.wxr"):
        assert list(read_ahead(readers.logging_one, 3)) == [0, 1, 2]
    assert [(record.name, record.getMessage()) for record in caplog.records] == [
        ("apps.importer.sources.wxr", "Could not convert item 1")
    ]


def test_stopping_early_stops_the_reader():
    records = read_ahead(readers.counting, 100_000)
    assert [next(records) for _ in range(5)] == [0, 1, 2, 3, 4]
    records.close()
    assert multiprocessing.active_children() == []


def test_without_a_reader_process_the_records_are_read_here(monkeypatch, caplog):
    def no_semaphores(*args, **kwargs):
        raise OSError("no /dev/shm")

    monkeypatch.setattr("multiprocessing.context.SpawnContext.Queue", no_semaphores)
    with caplog.at_level(logging.WARNING, logger="apps.importer.readahead"):
        assert list(read_ahead(readers.counting, 5)) == [0, 1, 2, 3, 4]
    assert [record.getMessage() for record in caplog.records] == [
        "the import reads in this process: no reader process (no /dev/shm)"
    ]


def test_a_reader_whose_importer_was_killed_stops():
    importer = subprocess.run(
        [sys.executable, "-c", "from tests.importer.readers import orphaned_reader; orphaned_reader()"],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert importer.returncode == 9, importer.stderr
    reader = int(importer.stdout.split()[0])
    # A liveness deadline, not a timing assertion: the reader notices within a few of its 2-second polls.
    deadline = time.monotonic() + 60
    while _running(reader) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _running(reader)


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] != "Z"
    except FileNotFoundError:
        return False
