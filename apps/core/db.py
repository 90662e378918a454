"""Database-specific SQL behind one small interface per concern (CONVENTIONS 7).

Runtime fields live inside a JSON column, so sorting, filtering and uniqueness on them go through expression
indexes generated when a field is created. An expression index is only used when the query spells the same
expression: ``JsonKey`` is the one way queries read a key, and ``IndexBackend`` writes the index DDL from the same
text. SQLite reads keys with ``json_extract`` (its ``->>`` operator would not match the index); PostgreSQL with
``->>``, cast to double precision for numbers. Keys are field slugs (``^[a-z][a-z0-9_]*$``), so they appear in SQL as
literals, which both planners need in order to match an index.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime
from typing import Any

import xxhash
from django.db import connection, models
from django.db.models import Expression, FloatField, TextField

_KEY_RE = re.compile(r"^[a-z][a-z0-9_]*$")
_ID_RE = re.compile(r"^[0-9A-Za-z]+$")


def _checked_key(key: str) -> str:
    if not _KEY_RE.match(key):
        raise ValueError(f"not a field slug: {key!r}")
    return key


def json_key_sql(vendor: str, column_sql: str, key: str, *, numeric: bool) -> str:
    key = _checked_key(key)
    if vendor == "postgresql":
        text = f"({column_sql} ->> '{key}')"
        return f"({text})::double precision" if numeric else text
    # SQLite returns JSON numbers as numbers and strings as text, so one function serves both.
    return f"json_extract({column_sql}, '$.{key}')"


def json_scalar_param(value):
    """A scalar as ``JsonKey`` yields it, for comparisons: text on PostgreSQL (``->>``), native on SQLite."""
    if connection.vendor == "postgresql" and not isinstance(value, str):
        return "true" if value is True else "false" if value is False else str(value)
    return value


class JsonKey(Expression):
    """The scalar value of ``key`` in a JSON column, as text (or a number when ``numeric``)."""

    def __init__(self, column: str, key: str, *, numeric: bool = False):
        super().__init__(output_field=FloatField() if numeric else TextField())
        self.column = column
        self.key = _checked_key(key)
        self.numeric = numeric

    def resolve_expression(self, query=None, allow_joins=True, reuse=None, summarize=False, for_save=False):
        resolved = self.copy()
        resolved.target = query.resolve_ref(self.column, allow_joins, reuse, summarize)
        return resolved

    def as_sql(self, compiler, connection):
        column_sql, params = compiler.compile(self.target)
        return json_key_sql(connection.vendor, column_sql, self.key, numeric=self.numeric), params

    def get_group_by_cols(self):
        return [self]

    def __repr__(self) -> str:
        return f"JsonKey({self.column!r}, {self.key!r}, numeric={self.numeric})"


class IndexBackend:
    """Creates and drops the generated per-field indexes of one collection's rows."""

    def __init__(self, vendor: str):
        self.vendor = vendor

    def _quote(self, name: str) -> str:
        return connection.ops.quote_name(name)

    def _ddl(self, sql: str) -> None:
        with connection.cursor() as cursor:
            if self.vendor == "postgresql":
                # PostgreSQL refuses CREATE/DROP INDEX on a table with pending trigger events, which the deferred
                # foreign-key checks of rows written earlier in the same transaction are (an import that adds
                # entries, then a field). Run those checks now, then defer again for the rest of the transaction.
                cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
                cursor.execute(sql)
                cursor.execute("SET CONSTRAINTS ALL DEFERRED")
            else:
                cursor.execute(sql)

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
        expression = json_key_sql(self.vendor, self._quote(json_column), key, numeric=numeric)
        # NULLs first ascending equals NULLs last descending: one index walks both ways, the order SQLite uses natively.
        nulls = " NULLS FIRST" if self.vendor == "postgresql" else ""
        # The scope column leads although the predicate fixes it: without statistics SQLite prices any index that
        # starts with an equality on the scope (the created/updated/published ones) below a scan of this index, and
        # sorted all of the collection's rows instead. Leading with it too, this index wins the same search and
        # delivers the order. An expression element must be parenthesised as a whole (PostgreSQL refuses the
        # numeric form `(…)::double precision` bare); parentheses do not change the expression the planners match.
        sql = (
            f"CREATE INDEX {self._quote(name)} ON {self._quote(table)} "
            f"({self._quote(scope_column)}, ({expression}){nulls}, {self._quote('id')}) "
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
        expression = json_key_sql(self.vendor, self._quote(json_column), key, numeric=False)
        sql = (
            f"CREATE UNIQUE INDEX {self._quote(name)} ON {self._quote(table)} ({self._quote(per_column)}, {expression}) "
            f"WHERE {self._where(scope_column, scope)}"
        )
        self._ddl(sql)

    def drop_index(self, name: str) -> None:
        self._ddl(f"DROP INDEX IF EXISTS {self._quote(name)}")

    def index_exists(self, name: str) -> bool:
        with connection.cursor() as cursor:
            if self.vendor == "postgresql":
                cursor.execute("SELECT 1 FROM pg_indexes WHERE indexname = %s", [name])
            else:
                cursor.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = %s", [name])
            return cursor.fetchone() is not None

    def remove_json_key(
        self, *, table: str, columns: tuple[str, ...], key: str, scope_column: str, scope: str
    ) -> int:
        """Delete ``key`` from the JSON ``columns`` of every row in the scope (trash included). Returns rows changed."""
        key = _checked_key(key)
        if self.vendor == "postgresql":
            assignments = ", ".join(f"{self._quote(c)} = {self._quote(c)} - %s" for c in columns)
            params = [key] * len(columns)
        else:
            assignments = ", ".join(f"{self._quote(c)} = json_remove({self._quote(c)}, %s)" for c in columns)
            params = [f"$.{key}"] * len(columns)
        # Only quoted identifiers are interpolated; the key and the scope travel as parameters.
        sql = f"UPDATE {self._quote(table)} SET {assignments} WHERE {self._quote(scope_column)} = %s"  # noqa: S608  # nosec B608
        with connection.cursor() as cursor:
            cursor.execute(sql, [*params, scope])
            return cursor.rowcount


def index_backend() -> IndexBackend:
    return IndexBackend(connection.vendor)


def transaction_lock(name: str) -> None:
    """Serialise, until the end of the current transaction, every writer that takes the lock of the same ``name``.

    For check-then-insert sequences that no unique constraint can guard (media deduplication by content hash).
    PostgreSQL: a transaction-scoped advisory lock on a 64-bit hash of the name. SQLite: nothing to do, since every
    write transaction already holds the database's write lock from its first statement (BEGIN IMMEDIATE)."""
    if connection.vendor != "postgresql":
        return
    digest = xxhash.xxh64_intdigest(name.encode())
    signed = digest - (1 << 64) if digest >= (1 << 63) else digest
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [signed])


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


def bulk_insert(objs: list) -> None:
    """Insert new model instances of one model, as ``bulk_create`` does (defaults and ``auto_now`` applied, no
    signals; serial keys are not read back), for writes of hundreds of rows at once (imports).

    PostgreSQL: ``copy_rows`` (together that made a fifth of an import faster). SQLite: ``bulk_create``.
    """
    if not objs:
        return
    model = type(objs[0])
    if connection.vendor != "postgresql":
        model.objects.bulk_create(objs)
        return
    # Serial keys are left to the database (and not read back: COPY returns nothing).
    fields = [field for field in model._meta.concrete_fields if field is not model._meta.auto_field]
    plain = [_plain_types(field) for field in fields]
    copy_rows(
        model._meta.db_table,
        [field.column for field in fields],
        ([_db_value(field, types, obj) for field, types in zip(fields, plain, strict=True)] for obj in objs),
    )
    for obj in objs:
        obj._state.adding = False
        obj._state.db = connection.alias


class PreparedQuery:
    """A queryset compiled to SQL once per process, then run with new parameter values.

    Django compiles a queryset on every evaluation, which costs about ten times the indexed lookup it produces (0.35 ms
    against 0.03 ms on SQLite). The hottest reads (bearer token lookup, entry by id or slug) run on every request, so
    they are built once with placeholder values and afterwards only executed; rows become model instances exactly as
    Django's own iterator makes them (deferred fields, annotations and ``select_related`` included).

    ``build(**placeholders)`` must return the queryset with each keyword used as a plain filter value (no transform
    that would change it before it reaches the SQL parameters).
    """

    def __init__(self, build, *names: str):
        self._build = build
        self._names = names
        self._compiled: dict[str, tuple] = {}

    def _compile(self, alias: str) -> tuple:
        from django.db.models.query import get_related_populators

        sentinels = {name: f"\x00prepared:{name}\x00" for name in self._names}
        by_sentinel = {value: name for name, value in sentinels.items()}
        compiler = self._build(**sentinels).query.get_compiler(using=alias)
        sql, params = compiler.as_sql()
        slots = [(by_sentinel[param], None) if param in by_sentinel else (None, param) for param in params]
        unused = set(self._names) - {name for name, _ in slots if name}
        if unused:
            raise ValueError(f"placeholders not found in the query's parameters: {sorted(unused)}")
        select, klass_info = compiler.select, compiler.klass_info
        start, end = klass_info["select_fields"][0], klass_info["select_fields"][-1] + 1
        fields = [column[0] for column in select[0 : compiler.col_count]]
        compiled = (
            sql,
            slots,
            compiler,
            compiler.get_converters(fields),
            klass_info["model"],
            [column[0].target.attname for column in select[start:end]],
            (start, end),
            get_related_populators(klass_info, select, alias),
            dict(compiler.annotation_col_map),
        )
        self._compiled[alias] = compiled
        return compiled

    def fetch(self, *, using: str = "default", **values) -> list:
        from django.db import connections

        compiled = self._compiled.get(using) or self._compile(using)
        sql, slots, compiler, converters, model, attnames, (start, end), populators, annotations = compiled
        params = [values[name] if name else fixed for name, fixed in slots]
        with connections[using].cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        objects = []
        if converters:
            rows = compiler.apply_converters(rows, converters)
        for row in rows:
            obj = model.from_db(using, attnames, row[start:end])
            for populator in populators:
                populator.populate(row, obj)
            for attr, position in annotations.items():
                setattr(obj, attr, row[position])
            objects.append(obj)
        return objects

    def first(self, *, using: str = "default", **values):
        found = self.fetch(using=using, **values)
        return found[0] if found else None


# --- Values read alongside a request's first query ------------------------------------------------------------------
# Some checks every request makes are one scalar each (the schema's version token). Instead of a round trip of their
# own, they are selected as extra columns of the first query nearly every API request makes (its bearer token lookup)
# and kept for the rest of that request. A request without such a query, and code outside requests (commands, the
# worker), simply finds nothing kept and queries as before.
_REQUEST_SCALARS: dict[str, Callable[[], Expression]] = {}
_kept_scalars: ContextVar[dict[str, Any] | None] = ContextVar("cms_request_scalars", default=None)
_PREFIX = "_request_scalar_"
NOT_KEPT = object()


def register_request_scalar(name: str, expression: Callable[[], Expression]) -> None:
    """Have ``expression`` (a one-row scalar, e.g. a ``Subquery``) read alongside each request's first query.
    Register from ``AppConfig.ready()``: the queries that carry the values are compiled once, at first use."""
    _REQUEST_SCALARS[name] = expression


def request_scalar_annotations() -> dict[str, Expression]:
    """The annotations that carry the registered scalars, for the query that carries them."""
    return {_PREFIX + name: expression() for name, expression in _REQUEST_SCALARS.items()}


def keep_request_scalars(row) -> None:
    """Keep the scalars ``row`` was annotated with for the rest of the current request (if there is one)."""
    kept = _kept_scalars.get()
    if kept is not None:
        for name in _REQUEST_SCALARS:
            kept[name] = getattr(row, _PREFIX + name, NOT_KEPT)


def request_scalar(name: str):
    """The value kept for ``name`` in this request, or ``NOT_KEPT``."""
    kept = _kept_scalars.get()
    return NOT_KEPT if kept is None else kept.get(name, NOT_KEPT)


def forget_request_scalar(name: str) -> None:
    """Drop a kept value once this request has changed what it reflects (later reads query it again)."""
    kept = _kept_scalars.get()
    if kept is not None:
        kept.pop(name, None)


@contextmanager
def request_scalars_scope():
    """The span of one request (RequestContextMiddleware), outside which nothing is kept."""
    reset = _kept_scalars.set({})
    try:
        yield
    finally:
        _kept_scalars.reset(reset)
