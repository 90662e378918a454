"""Locks for check-then-insert sequences that no unique constraint can guard (media deduplication by content hash)."""

from __future__ import annotations

from apps.core.db.backends import get_db_backend


def transaction_lock(name: str) -> None:
    """Serialise, until the end of the current transaction, every writer that takes the lock of the same ``name``.

    PostgreSQL: a transaction-scoped advisory lock on a 64-bit hash of the name. SQLite: nothing to do, since every
    write transaction already holds the database's write lock from its first statement (BEGIN IMMEDIATE)."""
    get_db_backend().transaction_lock(name)
