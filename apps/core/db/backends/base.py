"""The database backend interface (CONVENTIONS 7): the SQL core writes differently for PostgreSQL and SQLite.

Each concern module of ``apps.core.db`` (JSON keys, generated indexes, locks, bulk writes) keeps what both databases
share and asks ``get_db_backend()`` for the rest, so no caller branches on the vendor. Not to be confused with
``apps.core.dbbackends``, the Django database engine (``DATABASES["ENGINE"]``) that PostgreSQL connections run on.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod

_KEY_RE = re.compile(r"^[a-z][a-z0-9_]*$")


def checked_key(key: str) -> str:
    """``key`` if it is a field slug, which is what lets it appear in SQL as a literal (both planners need a literal
    to match an expression index); anything else is refused before it reaches SQL."""
    if not _KEY_RE.match(key):
        raise ValueError(f"not a field slug: {key!r}")
    return key


class DatabaseBackend(ABC):
    vendor: str = ""
    # What a generated sort index says after its key expression so that one index serves both directions.
    sort_index_nulls: str = ""

    # --- JSON keys ------------------------------------------------------------------------------------------------

    @abstractmethod
    def json_key_sql(self, column_sql: str, key: str, *, numeric: bool) -> str:
        """The scalar at ``key`` of the JSON column ``column_sql``: text, or a number when ``numeric``. Queries and
        index DDL both take it from here, so the planner sees the index's own expression."""

    @abstractmethod
    def json_pick_sql(self, column_sql: str, keys: list[str]) -> str:
        """The JSON object ``column_sql`` with only those of ``keys`` it has, as text; NULL when it is NULL."""

    @abstractmethod
    def json_scalar_param(self, value):
        """``value`` as the key expression yields it, for comparing with it."""

    @abstractmethod
    def json_param(self, value):
        """``value`` (a JSON-able object, or None for SQL NULL) as a parameter for a JSON column, serialised by
        orjson: a JSONField's own preparation goes through ``json.dumps`` with Django's encoder, several times slower
        on the hot write paths that build their own SQL (the webhook outbox on every content write)."""

    # --- generated indexes ----------------------------------------------------------------------------------------

    @abstractmethod
    def execute_ddl(self, cursor, sql: str) -> None:
        """Run CREATE or DROP INDEX inside the current transaction."""

    @abstractmethod
    def index_exists(self, cursor, name: str) -> bool: ...

    @abstractmethod
    def json_key_removal(self, column_sql: str, key: str) -> tuple[str, str]:
        """The expression for the JSON column ``column_sql`` without ``key``, and its one parameter."""

    # --- writes ---------------------------------------------------------------------------------------------------

    @abstractmethod
    def transaction_lock(self, name: str) -> None:
        """Hold, until the current transaction ends, a lock that every writer using ``name`` waits for."""

    @abstractmethod
    def bulk_insert(self, objs: list) -> None:
        """Insert new instances of one model (a non-empty list) as ``bulk_create`` would, serial keys not read
        back."""

    # --- planner statistics ---------------------------------------------------------------------------------------

    @abstractmethod
    def analyze(self, cursor, tables: list[str]) -> None:
        """Refresh the planner's statistics of ``tables`` (quoted names), after a bulk write changed them."""
