"""``get_db_backend()``: core's SQL for the database in use (CONVENTIONS 7), chosen as the search backend is.
Callers never branch on the vendor; they call the backend."""

from __future__ import annotations

from functools import cache

from django.core.exceptions import ImproperlyConfigured
from django.db import connection as default_connection

from apps.core.db.backends.base import DatabaseBackend


@cache
def _backend(vendor: str) -> DatabaseBackend:
    if vendor == "postgresql":
        from apps.core.db.backends.postgresql import PostgresqlBackend

        return PostgresqlBackend()
    if vendor == "sqlite":
        from apps.core.db.backends.sqlite import SqliteBackend

        return SqliteBackend()
    # The product supports these two databases only; another DATABASE_URL scheme is a configuration error.
    raise ImproperlyConfigured(f"No database backend for {vendor}; use PostgreSQL or SQLite.")


def get_db_backend(connection=None) -> DatabaseBackend:
    """The backend for ``connection`` (a query compiler's; the default connection when not given)."""
    return _backend((default_connection if connection is None else connection).vendor)
