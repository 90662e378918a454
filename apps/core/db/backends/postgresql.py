"""PostgreSQL: JSON keys through ``->>``, advisory locks, and ``COPY`` for bulk writes."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import orjson
import xxhash
from django.db import connection, models
from psycopg.types.json import Jsonb

from apps.core.db.backends.base import DatabaseBackend, checked_key


def _orjson_text(value: Any) -> str:
    return orjson.dumps(value).decode()


class PostgresqlBackend(DatabaseBackend):
    vendor = "postgresql"
    # NULLs first ascending equals NULLs last descending: one index walks both ways, the order SQLite uses natively.
    sort_index_nulls = " NULLS FIRST"

    def json_key_sql(self, column_sql: str, key: str, *, numeric: bool) -> str:
        text = f"({column_sql} ->> '{checked_key(key)}')"
        return f"({text})::double precision" if numeric else text

    def json_pick_sql(self, column_sql: str, keys: list[str]) -> str:
        if not keys:
            return f"(CASE WHEN {column_sql} IS NULL THEN NULL ELSE '{{}}' END)"
        wanted = ", ".join(f"'{checked_key(key)}'" for key in keys)
        return (
            # Keys are checked field slugs, written as literals like JsonKey's.
            f"(CASE WHEN {column_sql} IS NULL THEN NULL ELSE COALESCE((SELECT jsonb_object_agg(picked.key, "  # noqa: S608
            f"picked.value) FROM jsonb_each({column_sql}) AS picked WHERE picked.key IN ({wanted})), '{{}}'::jsonb)"
            "::text END)"
        )

    def json_scalar_param(self, value):
        # ``->>`` yields text whatever the JSON type, so numbers and booleans are compared as JSON writes them.
        if isinstance(value, str):
            return value
        return "true" if value is True else "false" if value is False else str(value)

    def json_param(self, value):
        return None if value is None else Jsonb(value, dumps=_orjson_text)

    def execute_ddl(self, cursor, sql: str) -> None:
        # PostgreSQL refuses CREATE/DROP INDEX on a table with pending trigger events, which the deferred foreign-key
        # checks of rows written earlier in the same transaction are (an import that adds entries, then a field). Run
        # those checks now, then defer again for the rest of the transaction.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute(sql)
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")

    def index_exists(self, cursor, name: str) -> bool:
        cursor.execute("SELECT 1 FROM pg_indexes WHERE indexname = %s", [name])
        return cursor.fetchone() is not None

    def json_key_removal(self, column_sql: str, key: str) -> tuple[str, str]:
        return f"{column_sql} - %s", key

    def transaction_lock(self, name: str) -> None:
        # A transaction-scoped advisory lock on a 64-bit hash of the name.
        digest = xxhash.xxh64_intdigest(name.encode())
        signed = digest - (1 << 64) if digest >= (1 << 63) else digest
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [signed])

    def analyze(self, cursor, tables: list[str]) -> None:
        # One statement for all of them; autovacuum would get there too, but minutes late or (where it is off) never.
        cursor.execute(f"ANALYZE {', '.join(tables)}")

    def bulk_insert(self, objs: list) -> None:
        # COPY (together with the values prepared below, that made a fifth of an import faster). Serial keys are left
        # to the database (and not read back: COPY returns nothing).
        model = type(objs[0])
        fields = [field for field in model._meta.concrete_fields if field is not model._meta.auto_field]
        plain = [_plain_types(field) for field in fields]
        copy_rows(
            model._meta.db_table,
            [field.column for field in fields],
            (
                [_db_value(field, types, obj) for field, types in zip(fields, plain, strict=True)]
                for obj in objs
            ),
        )
        for obj in objs:
            obj._state.adding = False
            obj._state.db = connection.alias


def copy_rows(table: str, columns: list[str], rows) -> None:
    """Write ``rows`` (sequences of Python values in ``columns`` order) into ``table`` with PostgreSQL's ``COPY …
    FROM STDIN``: the server's cheapest way in, each value adapted by psycopg's C dumpers. A multi-row INSERT of
    hundreds of rows is a statement with thousands of placeholders, which psycopg rewrites in Python every time (and
    Django first compiles, for a queryset's). Generated columns and defaults the rows leave out are filled in by the
    server as for an INSERT; constraint violations raise Django's IntegrityError as an INSERT's would. PostgreSQL
    only: callers write plain INSERTs on SQLite."""
    quote = connection.ops.quote_name
    sql = f"COPY {quote(table)} ({', '.join(quote(column) for column in columns)}) FROM STDIN"
    with connection.cursor() as cursor, connection.wrap_database_errors, cursor.cursor.copy(sql) as copy:
        for row in rows:
            copy.write_row(row)


# Per field class, the Python types of values its preparation for the database returns unchanged (on PostgreSQL,
# which takes aware datetimes as they are). Exact classes: a subclass may prepare values its own way.
_TEXT, _INTEGER = (str, type(None)), (int, type(None))
_PLAIN_VALUES = {
    models.CharField: _TEXT,
    models.TextField: _TEXT,
    models.IntegerField: _INTEGER,
    models.BigIntegerField: _INTEGER,
    models.SmallIntegerField: _INTEGER,
    models.PositiveIntegerField: _INTEGER,
    models.PositiveSmallIntegerField: _INTEGER,
    models.BooleanField: (bool, type(None)),
    models.DateTimeField: (datetime, type(None)),
}


def _plain_types(field) -> tuple[type, ...]:
    """The value types ``field`` passes unchanged (none for auto_now timestamps: their pre_save sets them)."""
    target = field.target_field if field.is_relation else field
    if field.is_relation and type(field) not in (models.ForeignKey, models.OneToOneField):
        return ()
    if isinstance(target, models.DateTimeField) and (target.auto_now or target.auto_now_add):
        return ()
    return _PLAIN_VALUES.get(type(target), ())


def _db_value(field, plain: tuple[type, ...], obj) -> Any:
    """What ``field.get_db_prep_save(field.pre_save(obj, True))`` gives, without its generic steps where the value
    needs none: those steps were half the Python time of writing an import's rows."""
    if plain:
        value = getattr(obj, field.attname)
        kind = type(value)
        if kind in plain and (kind is not datetime or value.tzinfo is not None):
            return value
    return field.get_db_prep_save(field.pre_save(obj, True), connection)
