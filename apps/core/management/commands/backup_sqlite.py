"""``manage.py backup_sqlite DEST``: a consistent copy of the live SQLite database, taken while the server runs.

Copying the database file of a running server is not a backup: in WAL mode the newest commits live in the ``-wal``
file until a checkpoint, and a copy taken mid-write is torn. SQLite's online backup API (``sqlite3.Connection.backup``,
the same as the shell's ``.backup``) copies every page within one read transaction: a snapshot of committed data, with
writers going on beside it (WAL readers block no writer). The copy is written beside DEST, checked with
``PRAGMA integrity_check``, flushed to disk and only then renamed to DEST, so DEST is either absent or whole.
Restore is a file copy while the server is stopped (docs/operations.md "Backups and restore").
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import connections


class Command(BaseCommand):
    help = "Write a consistent online backup of the SQLite database to DEST (a new file)."

    def add_arguments(self, parser):
        parser.add_argument("dest", type=Path, help="The backup file to create; it must not exist.")
        parser.add_argument("--database", default="default", help="Which database (default: default).")

    def handle(self, *args, dest: Path, database: str, **options):
        connection = connections[database]
        if connection.vendor != "sqlite":
            raise CommandError(
                f"backup_sqlite backs up SQLite databases; this one is {connection.display_name}: use "
                "pg_dump --format=custom (docs/operations.md, 'Backups and restore')."
            )
        if dest.exists():
            raise CommandError(f"{dest} exists already: name a new file (a backup never overwrites one).")
        if not dest.parent.is_dir():
            raise CommandError(f"{dest.parent} is not a directory.")
        partial = dest.with_name(f".{dest.name}.partial")
        partial.unlink(missing_ok=True)
        connection.ensure_connection()
        target = sqlite3.connect(partial)
        try:
            # One step (pages=-1): a single read transaction, so the copy is one snapshot however busy the writers;
            # copied page by page it would restart whenever another connection commits.
            connection.connection.backup(target, pages=-1)
            verdict = target.execute("PRAGMA integrity_check").fetchone()[0]
            pages = target.execute("PRAGMA page_count").fetchone()[0]
        finally:
            target.close()
        if verdict != "ok":
            partial.unlink(missing_ok=True)
            raise CommandError(f"The copy failed SQLite's integrity check ({verdict}); nothing was written.")
        with open(partial, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(partial, dest)
        self.stdout.write(f"Backed up {pages} page(s), {dest.stat().st_size} bytes, to {dest}: integrity ok.")
