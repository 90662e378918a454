"""``manage.py reindex [--collection slug …] [--full] [--index rum|gin]``: rebuild the search index with a progress
bar (entries done, rate, time left).

It works in batches, each its own short transaction that locks the batch's entries while reading them, so it is safe
while the server serves: searches keep answering from the index as it is, and edits made meanwhile are indexed by
their own transaction. Without ``--full`` only documents that differ from what they should be are rewritten (a
correct index is left as it is); ``--full`` deletes each collection's documents first and writes them all again.
``--index`` (PostgreSQL) replaces the tsvector index with a RUM or GIN one, e.g. after installing the ``rum``
extension. ``--full`` without ``--collection`` is a bulk load: on PostgreSQL the tsvector index is dropped while the
documents are written and built once at the end (several times faster; searches are slow meanwhile).
"""

from __future__ import annotations

import json
import time

from django.core.management.base import BaseCommand, CommandError, OutputWrapper
from django.db import connection

from apps.accounts.permissions import Actor
from apps.core.errors import ValidationError
from apps.search import services
from apps.search.backends import get_search_backend

BAR = 28


class Progress:
    """Draws one line per collection: a bar, entries done of the total, the rate and the time left. On a terminal the
    line is redrawn in place; otherwise (logs, CI) a line is written every tenth of the way."""

    def __init__(self, stream: OutputWrapper, enabled: bool):
        self.stream = stream
        self.enabled = enabled
        self.tty = stream.isatty()
        self.started: dict[str, float] = {}
        self.shown: dict[str, int] = {}

    def __call__(self, counts, total: int) -> None:
        if not self.enabled:
            return
        started = self.started.setdefault(counts.collection, time.monotonic())
        elapsed = max(time.monotonic() - started, 1e-6)
        done = counts.entries
        rate = done / elapsed
        fraction = done / total if total else 1.0
        filled = int(BAR * fraction)
        left = (total - done) / rate if rate else 0
        line = (
            f"{counts.collection:<20} [{'#' * filled}{'.' * (BAR - filled)}] {done:,}/{total:,} entries "
            f"{rate:,.0f}/s, {left:,.0f} s left"
        )
        if self.tty:
            self.stream.write("\r" + line + "\x1b[K", ending="\n" if done >= total else "")
        else:
            tenth = int(fraction * 10)
            if tenth > self.shown.get(counts.collection, -1) or done >= total:
                self.shown[counts.collection] = tenth
                self.stream.write(line)
        self.stream.flush()


class Command(BaseCommand):
    help = "Rebuild the full-text search index (all collections, or those named), showing progress."
    # As for import_wxr: the system checks inspect URLs, views and admin, which a rebuild does not use.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser):
        parser.add_argument(
            "--collection",
            action="append",
            dest="collections",
            metavar="SLUG",
            help="Only this collection (repeatable).",
        )
        parser.add_argument("--full", action="store_true", help="Delete and rewrite every document.")
        parser.add_argument("--batch-size", type=int, default=services.BATCH_SIZE)
        parser.add_argument(
            "--index",
            choices=["rum", "gin"],
            help="PostgreSQL: replace the tsvector index with this kind first.",
        )
        parser.add_argument("--json", action="store_true", help="Print the summary as one JSON object.")
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args, **options):
        backend = get_search_backend()
        if options["index"] and connection.vendor != "postgresql":
            raise CommandError("--index applies to PostgreSQL only; SQLite always uses FTS5.")
        progress = Progress(self.stderr, enabled=not options["no_progress"])
        try:
            result = services.search_rebuild(
                actor=Actor.system(),
                collections=options["collections"],
                full=options["full"],
                batch_size=options["batch_size"],
                progress=progress,
                index=options["index"],
            )
        except ValidationError as exc:
            raise CommandError(exc.message) from exc
        if options["index"]:
            self.stderr.write(f"The tsvector index is {options['index'].upper()}.")
        result["engine"] = backend.engine()
        result["documentsPerSecond"] = (
            round(result["written"] / result["seconds"], 1) if result["seconds"] else 0.0
        )
        if options["json"]:
            self.stdout.write(json.dumps(result))
            return
        for item in result["collections"]:
            if not item["searchable"]:
                note = (
                    f"not searchable; {item['removed']} document(s) removed"
                    if item["removed"]
                    else "not searchable"
                )
                self.stdout.write(f"{item['collection']}: {note}")
                continue
            rate = item["written"] / item["seconds"] if item["seconds"] else 0
            self.stdout.write(
                f"{item['collection']}: {item['entries']:,} entries, {item['documents']:,} documents "
                f"({item['written']:,} written, {item['removed']:,} removed) in {item['seconds']:.1f} s, "
                f"{rate:,.0f} documents/s"
            )
        self.stdout.write(
            f"Index ({result['engine']}): {result['documents']:,} documents; {result['written']:,} written in "
            f"{result['seconds']:.1f} s ({result['documentsPerSecond']:,.0f} documents/s)."
        )
