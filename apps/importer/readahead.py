"""Reading an import source in a second process while this one writes (``read_ahead``).

An import spends about a third of its time parsing the export and converting its content to Portable Text, and the
rest writing; one process does one at a time and uses one core. Reading ahead in a child process lets the two
overlap. The records come back in order, in chunks, through a bounded queue, so memory stays bounded whatever the
file's size; the parent stays the only process that touches the database.

Failures keep the in-process behaviour exactly: when the child stops early (the source raised, the child was
killed or ran out of memory), the parent reads the source itself from the start and yields from where the child
stopped. Reading is deterministic, so an error is raised with the same message and line as without reading ahead.
"""

from __future__ import annotations

import logging
import logging.handlers
import multiprocessing
import queue as queue_module
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from apps.core.memory import bulk_work

logger = logging.getLogger(__name__)

CHUNK = 32  # records per message: pickling and waking the parent per record would cost more than the records
DEPTH = 8  # chunks waiting at most: the child runs at most this far ahead
POLL_SECONDS = 2.0


class _LogToParent(logging.handlers.QueueHandler):
    def __init__(self, send: Callable[[tuple], None]) -> None:
        super().__init__(None)
        self.send = send

    def enqueue(self, record: logging.LogRecord) -> None:
        self.send(("log", record))


class _ParentGone(Exception):
    pass


def _sender(out: Any) -> Callable[[tuple], None]:
    parent = multiprocessing.parent_process()

    def send(message: tuple) -> None:
        # A parent killed outright (SIGKILL, out of memory) never reads again: stop instead of waiting forever.
        while True:
            try:
                out.put(message, timeout=POLL_SECONDS)
                return
            except queue_module.Full:
                if parent is not None and not parent.is_alive():
                    raise _ParentGone from None

    return send


def _produce(function: Callable[..., Iterable[Any]], args: tuple, out: Any) -> None:
    with bulk_work():
        _send_all(function, args, out)


def _send_all(function: Callable[..., Iterable[Any]], args: tuple, out: Any) -> None:
    send = _sender(out)
    # The child's log records go to the parent's handlers (its settings are the parent's, not this process's).
    root = logging.getLogger()
    root.handlers[:] = [_LogToParent(send)]
    root.setLevel(logging.INFO)
    chunk: list[Any] = []
    try:
        try:
            for record in function(*args):
                chunk.append(record)
                if len(chunk) >= CHUNK:
                    send(("records", chunk))
                    chunk = []
        except _ParentGone:
            raise
        except BaseException:
            send(("records", chunk))
            send(("stopped", None))
            return
        send(("records", chunk))
        send(("done", _peak_kb()))
    except _ParentGone:
        out.cancel_join_thread()  # what is still buffered has no reader


def _peak_kb() -> int | None:
    """This process's peak resident memory since it started its program. ``ru_maxrss`` would also count the
    importing process's pages that the child shared for a moment between fork and exec."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def read_ahead(function: Callable[..., Iterable[Any]], *args: Any) -> Iterator[Any]:
    """What ``function(*args)`` yields, produced in a child process. ``function`` must be importable by name, and
    its records and arguments picklable."""
    # Not fork: this process holds database connections and may run threads.
    context = multiprocessing.get_context("spawn")
    try:
        channel = context.Queue(maxsize=DEPTH)
        child = context.Process(
            target=_produce, args=(function, args, channel), daemon=True, name="import-reader"
        )
        child.start()
    except (OSError, ImportError) as error:
        # Where processes or their semaphores are unavailable (some sandboxes and containers), read here.
        logger.warning("the import reads in this process: no reader process (%s)", error)
        yield from function(*args)
        return
    delivered = 0
    completed = False
    peak_kb = None
    try:
        while True:
            try:
                kind, payload = channel.get(timeout=POLL_SECONDS)
            except queue_module.Empty:
                if child.is_alive():
                    continue
                logger.warning("the import reader process stopped (exit code %s)", child.exitcode)
                break
            if kind == "records":
                for record in payload:
                    delivered += 1
                    yield record
            elif kind == "log":
                logging.getLogger(payload.name).handle(payload)
            elif kind == "done":
                completed = True
                peak_kb = payload
                break
            else:
                break
    finally:
        if completed:
            child.join(POLL_SECONDS)  # it is only flushing its last message
        if child.is_alive():
            child.kill()
        child.join()
        channel.close()
        channel.cancel_join_thread()
    if completed:
        logger.debug(
            "import reader %s delivered %s records (peak memory %s kB)",
            child.pid,
            delivered,
            peak_kb,
            extra={"reader_pid": child.pid, "reader_peak_kb": peak_kb},
        )
        return
    for index, record in enumerate(function(*args)):
        if index >= delivered:
            yield record
