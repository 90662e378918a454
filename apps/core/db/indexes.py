"""The generated per-field indexes of one collection's rows: expression indexes on a key of a JSON column, spelt as
``JsonKey`` reads the key so that the planners use them."""

from __future__ import annotations

import re

from django.db import connection

from apps.core.db.backends import get_db_backend
from apps.core.db.backends.base import DatabaseBackend, checked_key

_ID_RE = re.compile(r"^[0-9A-Za-z]+$")


class IndexBackend:
    """Creates and drops the generated per-field indexes of one collection's rows."""

    def __init__(self, db: DatabaseBackend):
        self.db = db

    def _quote(self, name: str) -> str:
        return connection.ops.quote_name(name)

    def _ddl(self, sql: str) -> None:
        with connection.cursor() as cursor:
            self.db.execute_ddl(cursor, sql)

    def _where(self, column: str, value: str) -> str:
        if not _ID_RE.match(value):
            raise ValueError(f"not an id: {value!r}")
        return f"{self._quote(column)} = '{value}' AND {self._quote('deleted_at')} IS NULL"

    def create_sort_index(
        self,
        *,
        name: str,
        table: str,
        json_column: str,
        key: str,
        numeric: bool,
        scope_column: str,
        scope: str,
    ) -> None:
        """An index that serves ORDER BY this key (both directions, NULLs lowest) with the id as tie-break."""
        expression = self.db.json_key_sql(self._quote(json_column), key, numeric=numeric)
        # The scope column leads although the predicate fixes it: without statistics SQLite prices any index that
        # starts with an equality on the scope (the created/updated/published ones) below a scan of this index, and
        # sorted all of the collection's rows instead. Leading with it too, this index wins the same search and
        # delivers the order. An expression element must be parenthesised as a whole (PostgreSQL refuses the
        # numeric form `(…)::double precision` bare); parentheses do not change the expression the planners match.
        sql = (
            f"CREATE INDEX {self._quote(name)} ON {self._quote(table)} "
            f"({self._quote(scope_column)}, ({expression}){self.db.sort_index_nulls}, {self._quote('id')}) "
            f"WHERE {self._where(scope_column, scope)}"
        )
        self._ddl(sql)

    def create_unique_index(
        self,
        *,
        name: str,
        table: str,
        json_column: str,
        key: str,
        scope_column: str,
        scope: str,
        per_column: str,
    ) -> None:
        """Unique values of this key among live rows of the scope, per ``per_column`` (the locale)."""
        expression = self.db.json_key_sql(self._quote(json_column), key, numeric=False)
        sql = (
            f"CREATE UNIQUE INDEX {self._quote(name)} ON {self._quote(table)} ({self._quote(per_column)}, {expression}) "
            f"WHERE {self._where(scope_column, scope)}"
        )
        self._ddl(sql)

    def drop_index(self, name: str) -> None:
        self._ddl(f"DROP INDEX IF EXISTS {self._quote(name)}")

    def index_exists(self, name: str) -> bool:
        with connection.cursor() as cursor:
            return self.db.index_exists(cursor, name)

    def remove_json_key(
        self, *, table: str, columns: tuple[str, ...], key: str, scope_column: str, scope: str
    ) -> int:
        """Delete ``key`` from the JSON ``columns`` of every row in the scope (trash included). Returns rows changed."""
        key = checked_key(key)
        assignments, params = [], []
        for column in columns:
            quoted = self._quote(column)
            expression, param = self.db.json_key_removal(quoted, key)
            assignments.append(f"{quoted} = {expression}")
            params.append(param)
        set_sql = ", ".join(assignments)
        # Only quoted identifiers are interpolated; the key and the scope travel as parameters.
        sql = f"UPDATE {self._quote(table)} SET {set_sql} WHERE {self._quote(scope_column)} = %s"  # noqa: S608  # nosec B608
        with connection.cursor() as cursor:
            cursor.execute(sql, [*params, scope])
            return cursor.rowcount


def index_backend() -> IndexBackend:
    return IndexBackend(get_db_backend())
