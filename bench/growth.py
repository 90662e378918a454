"""How much the audit log, the revisions and the search tables grow per 1,000 edits (issue 24, docs/operations.md
"Retention").

    python -m bench.growth [--db sqlite,postgres] [--edits 1000] [--entries 100]

On a fresh database of each kind: a searchable collection (title, a paragraph of Portable Text) with ``--entries``
entries, then ``--edits`` PATCHes through the REST API (Django's test client, in process: the same view, services and
transactions as over HTTP), spread round-robin over the entries, each changing the title and the text. Sizes are read
before and after, per table with its indexes: PostgreSQL ``pg_total_relation_size`` (after a CHECKPOINT; dead row
versions count, as they do on disk until autovacuum reuses them), SQLite the ``dbstat`` virtual table (every b-tree's
pages, FTS5's shadow tables included); then again after ``VACUUM FULL`` (SQLite: ``VACUUM``), which leaves only live
rows: the permanent growth. Prints one JSON line per database.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from bench.run import PG_DEFAULT, ROOT

GROUPS = {
    "audit": ("plugins_auditevent",),
    "revisions": ("content_revision",),
    "search": ("search_",),
    "entries": ("content_entry",),
}
WORDS = ["river", "stone", "garden", "coffee", "winter", "harbor", "bridge", "morning", "letter", "signal"]


def _group(table: str) -> str | None:
    for group, prefixes in GROUPS.items():
        if any(table == prefix or (prefix.endswith("_") and table.startswith(prefix)) for prefix in prefixes):
            return group
    return None


def sizes() -> dict[str, int]:
    from django.db import connection

    totals = dict.fromkeys([*GROUPS, "database"], 0)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("CHECKPOINT")
            cursor.execute(
                "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c "
                "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r'"
            )
            rows = cursor.fetchall()
            cursor.execute("SELECT pg_database_size(current_database())")
            totals["database"] = cursor.fetchone()[0]
        else:
            cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            cursor.execute(
                "SELECT m.tbl_name, SUM(d.pgsize) FROM dbstat d JOIN sqlite_master m ON m.name = d.name "
                "GROUP BY m.tbl_name"
            )
            rows = cursor.fetchall()
            cursor.execute("SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()")
            totals["database"] = cursor.fetchone()[0]
    for table, size in rows:
        group = _group(table)
        if group:
            totals[group] += int(size or 0)
    return totals


def counts() -> dict[str, int]:
    from apps.content.models import Revision
    from apps.plugins.models import AuditEvent
    from apps.search.models import SearchDocument

    return {
        "audit": AuditEvent.objects.count(),
        "revisions": Revision.objects.count(),
        "search": SearchDocument.objects.count(),
    }


def child(entries: int, edits: int) -> dict:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cms_project.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.test import Client

    from apps.accounts import services
    from apps.accounts.permissions import Actor

    call_command("migrate", verbosity=0)
    user, _ = services.admin_setup(email="growth@example.com", name="Growth")
    _, raw = services.api_token_create(actor=Actor.system(), user=user, name="growth", scopes=["admin"])
    client = Client(headers={"Authorization": f"Bearer {raw}"})

    def call(method: str, path: str, body: dict) -> dict:
        response = getattr(client, method)(f"/_cms/api{path}", body, content_type="application/json")
        if response.status_code not in (200, 201):
            raise RuntimeError(f"{method} {path}: {response.status_code} {response.content[:300]!r}")
        return response.json()["data"]

    def text(n: int) -> list[dict]:
        words = " ".join(WORDS[(n + i) % len(WORDS)] for i in range(60))
        return [{"_type": "block", "_key": "b", "children": [{"_type": "span", "_key": "s", "text": words}]}]

    call(
        "post",
        "/schema/collections",
        {"slug": "notes", "label": "Notes", "supports": ["drafts", "revisions", "search"]},
    )
    call("post", "/schema/collections/notes/fields", {"slug": "title", "label": "Title", "type": "string"})
    call(
        "post", "/schema/collections/notes/fields", {"slug": "body", "label": "Body", "type": "portableText"}
    )
    ids = [
        call(
            "post", "/content/notes", {"data": {"title": f"Note {n}", "body": text(n)}, "status": "published"}
        )["item"]["id"]
        for n in range(entries)
    ]
    before, rows_before = sizes(), counts()
    for n in range(edits):
        call(
            "patch",
            f"/content/notes/{ids[n % entries]}",
            {"data": {"title": f"Note {n} edit", "body": text(n)}},
        )
    after, rows_after = sizes(), counts()
    # What stays once dead row versions and free pages are reclaimed: the permanent growth.
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM FULL" if connection.vendor == "postgresql" else "VACUUM")
    compacted = sizes()
    return {
        "edits": edits,
        "entries": entries,
        "bytes_per_1000_edits": {key: round((after[key] - before[key]) * 1000 / edits) for key in before},
        "bytes_per_1000_edits_after_vacuum_full": {
            key: round((compacted[key] - before[key]) * 1000 / edits) for key in before
        },
        "rows_per_1000_edits": {
            key: (rows_after[key] - rows_before[key]) * 1000 // edits for key in rows_before
        },
        "before": before,
        "after": after,
    }


def run(kind: str, entries: int, edits: int, work: Path) -> dict:
    if kind == "sqlite":
        url = f"sqlite:///{work / 'growth.sqlite3'}"
    else:
        import psycopg

        base = os.environ.get("GROWTH_DATABASE_URL", PG_DEFAULT)
        parts = urlsplit(base)
        url = urlunsplit(parts._replace(path=f"{parts.path}_growth"))
        with psycopg.connect(urlunsplit(parts._replace(path="/postgres")), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{parts.path[1:]}_growth" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{parts.path[1:]}_growth"')
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "CMS_VAR_DIR": str(work),
        "ALLOWED_HOSTS": "testserver",
        "CMS_RATE_LIMIT_ENABLED": "false",
        "CMS_REQUEST_LOG": "false",
        "PYTHONPATH": str(ROOT),
    }
    done = subprocess.run(
        [sys.executable, "-m", "bench.growth", "--child", "--entries", str(entries), "--edits", str(edits)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-3000:])
    return {"database": kind, **json.loads(done.stdout.strip().splitlines()[-1])}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--db", default="sqlite,postgres")
    parser.add_argument("--entries", type=int, default=100)
    parser.add_argument("--edits", type=int, default=1000)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.entries, args.edits)))
        return 0
    for kind in args.db.split(","):
        with tempfile.TemporaryDirectory(prefix="cms-growth-") as work:
            print(json.dumps(run(kind, args.entries, args.edits, Path(work))), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
