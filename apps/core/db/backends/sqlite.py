"""SQLite: JSON keys through ``json_extract``, no lock beyond the write lock, ``bulk_create`` for bulk writes."""

from __future__ import annotations

import orjson

from apps.core.db.backends.base import DatabaseBackend, checked_key


class SqliteBackend(DatabaseBackend):
    vendor = "sqlite"
    # SQLite sorts NULLs first ascending and last descending by itself, the order one index walks both ways.
    sort_index_nulls = ""

    def json_key_sql(self, column_sql: str, key: str, *, numeric: bool) -> str:
        # Not the ``->>`` operator, which the index's expression would not match. ``json_extract`` returns JSON
        # numbers as numbers and strings as text, so one expression serves both.
        return f"json_extract({column_sql}, '$.{checked_key(key)}')"

    def json_pick_sql(self, column_sql: str, keys: list[str]) -> str:
        if not keys:
            return f"(CASE WHEN {column_sql} IS NULL THEN NULL ELSE '{{}}' END)"
        wanted = ", ".join(f"'{checked_key(key)}'" for key in keys)
        # json_each gives arrays and objects as JSON, so json_group_object nests them rather than quoting them.
        return (
            # Keys are checked field slugs, written as literals like JsonKey's.
            f"(CASE WHEN {column_sql} IS NULL THEN NULL ELSE (SELECT json_group_object(picked.key, picked.value) "  # noqa: S608
            f"FROM json_each({column_sql}) AS picked WHERE picked.key IN ({wanted})) END)"
        )

    def json_scalar_param(self, value):
        return value

    def json_param(self, value):
        return None if value is None else orjson.dumps(value).decode()

    def execute_ddl(self, cursor, sql: str) -> None:
        cursor.execute(sql)

    def index_exists(self, cursor, name: str) -> bool:
        cursor.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = %s", [name])
        return cursor.fetchone() is not None

    def json_key_removal(self, column_sql: str, key: str) -> tuple[str, str]:
        return f"json_remove({column_sql}, %s)", f"$.{key}"

    def transaction_lock(self, name: str) -> None:
        # Every write transaction already holds the database's write lock from its first statement (BEGIN
        # IMMEDIATE), which serialises writers as the lock would.
        return

    def bulk_insert(self, objs: list) -> None:
        type(objs[0]).objects.bulk_create(objs)

    def analyze(self, cursor, tables: list[str]) -> None:
        # SQLite is left without statistics for these tables, and any an earlier version wrote are removed: given
        # them, its planner took a collection's small partial field indexes over the (collection, created_at) index
        # for a page of entries and then sorted the whole collection, 4 ms instead of 1 for 50 entries of a 2,000-entry
        # collection beside a 10,000-post import (issue 21). Without, it takes the index that gives the order.
        cursor.execute("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'")
        if cursor.fetchone() is None:
            return
        for table in tables:
            cursor.execute("DELETE FROM sqlite_stat1 WHERE tbl = %s", [table.strip('"')])
        # Reload what is left, so that this connection's planner forgets the removed rows too.
        cursor.execute("ANALYZE sqlite_schema")
