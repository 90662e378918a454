"""Writes of hundreds of rows at once (imports)."""

from __future__ import annotations

from apps.core.db.backends import get_db_backend


def bulk_insert(objs: list) -> None:
    """Insert new model instances of one model, as ``bulk_create`` does (defaults and ``auto_now`` applied, no
    signals; serial keys are not read back).

    PostgreSQL: ``COPY`` (``apps.core.db.backends.postgresql.copy_rows``, which rows that are not model instances can
    use directly). SQLite: ``bulk_create``.
    """
    if objs:
        get_db_backend().bulk_insert(objs)
