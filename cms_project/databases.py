"""``DATABASES`` from URLs: the primary (``DATABASE_URL``), an optional read replica (``DATABASE_REPLICA_URL``) and
the settings a connection through PgBouncer in transaction mode needs (``CMS_PGBOUNCER``). docs/operations.md lists
them; apps/core/replicas.py decides which alias a query reads from."""

from __future__ import annotations

from pathlib import Path

import dj_database_url

REPLICA = "replica"


def database(url: str, *, conn_max_age: int, pgbouncer: bool, connect_timeout: int = 5) -> dict:
    """One alias's settings, parsed the same way for the primary and the replica."""
    db = dj_database_url.parse(
        url,
        # Persistent connections: opening one per request costs more than most of our queries.
        conn_max_age=conn_max_age,
        conn_health_checks=True,
    )
    if db["ENGINE"] == "django.db.backends.postgresql":
        # Django's backend with a health check that needs no round trip while the connection is quiet (see its module).
        db["ENGINE"] = "apps.core.dbbackends.postgresql"
        # libpq waits for a connection as long as TCP does (minutes when packets are dropped); a request should
        # answer 503 long before that. A connect_timeout in the URL's query wins.
        db.setdefault("OPTIONS", {}).setdefault("connect_timeout", connect_timeout)
        if pgbouncer:
            # Transaction pooling hands each transaction any server connection: a named server-side cursor or a
            # prepared statement made on one is unknown on the next (PgBouncer 1.18 does not track them).
            db["DISABLE_SERVER_SIDE_CURSORS"] = True
            db.setdefault("OPTIONS", {})["prepare_threshold"] = None
    if db["ENGINE"] == "django.db.backends.sqlite3":
        db.setdefault("OPTIONS", {}).update(
            {
                # Wait for a competing writer instead of failing at once.
                "timeout": 20,
                # BEGIN IMMEDIATE takes the write lock up front, so two transactions never deadlock upgrading a read
                # lock.
                "transaction_mode": "IMMEDIATE",
                # WAL lets readers run beside the writer; NORMAL sync is durable across application crashes in WAL.
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;"
                " PRAGMA cache_size=-20000; PRAGMA temp_store=MEMORY",
            }
        )
    return db


def databases(
    url: str,
    replica_url: str | None,
    *,
    var_dir: Path,
    conn_max_age: int,
    pgbouncer: bool,
    connect_timeout: int = 5,
) -> dict:
    primary = database(url, conn_max_age=conn_max_age, pgbouncer=pgbouncer, connect_timeout=connect_timeout)
    if primary["ENGINE"] == "django.db.backends.sqlite3":
        # The test database is a file too (Django's default is a shared in-memory one, whose table locks fail at once
        # instead of waiting), so tests with concurrent writers see the locking production has.
        primary["TEST"] = {"NAME": str(var_dir / "test.sqlite3")}
    found = {"default": primary}
    if replica_url:
        found[REPLICA] = database(
            replica_url, conn_max_age=conn_max_age, pgbouncer=pgbouncer, connect_timeout=connect_timeout
        )
        # Tests have no replication: the replica alias reads the test database itself (Django's test mirror).
        found[REPLICA]["TEST"] = {"MIRROR": "default"}
    return found
