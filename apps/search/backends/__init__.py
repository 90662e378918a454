"""``get_search_backend()``: the search backend for the database in use (CONVENTIONS 7). Callers never branch on the
vendor; they call the backend."""

from __future__ import annotations

from functools import cache

from django.core.exceptions import ImproperlyConfigured
from django.db import connection

from apps.search.backends.base import SearchBackend


@cache
def _backend(vendor: str) -> SearchBackend:
    if vendor == "postgresql":
        from apps.search.backends.postgres import PostgresBackend

        return PostgresBackend()
    if vendor == "sqlite":
        from apps.search.backends.sqlite import SqliteBackend

        return SqliteBackend()
    # The product supports these two databases only; another DATABASE_URL scheme is a configuration error.
    raise ImproperlyConfigured(f"Search has no backend for {vendor}; use PostgreSQL or SQLite.")


def get_search_backend() -> SearchBackend:
    return _backend(connection.vendor)
