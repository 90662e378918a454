"""Core's database helpers, one module per concern; what differs between PostgreSQL and SQLite is behind
``backends.get_db_backend()`` (CONVENTIONS 7), so no module here branches on the vendor.

- ``jsonkeys``: ``JsonKey`` reads a key of a JSON column as the generated indexes spell it; ``json_scalar_param``.
- ``indexes``: ``index_backend()`` creates and drops those indexes and removes JSON keys in bulk.
- ``locks``: ``transaction_lock(name)`` for check-then-insert sequences no unique constraint guards.
- ``bulk``: ``bulk_insert(objs)`` for rows by the hundred (``COPY`` on PostgreSQL).
- ``prepared``: ``PreparedQuery``, a queryset compiled once per process.
- ``request_scalars``: values read alongside a request's first query and kept for the request.
- ``stats``: ``analyze(models)`` refreshes the planner statistics of tables a bulk write filled.

The Django database engine PostgreSQL connections use is elsewhere: ``apps.core.dbbackends.postgresql``.
"""

# Code written before the split imports these names from here; new code imports from the concern module.
from apps.core.db.bulk import bulk_insert
from apps.core.db.indexes import index_backend
from apps.core.db.jsonkeys import JsonKey, json_scalar_param
from apps.core.db.locks import transaction_lock
from apps.core.db.prepared import PreparedQuery
from apps.core.db.request_scalars import (
    NOT_KEPT,
    forget_request_scalar,
    keep_request_scalars,
    register_request_scalar,
    request_scalar,
    request_scalar_annotations,
    request_scalars_scope,
)

__all__ = [
    "NOT_KEPT",
    "JsonKey",
    "PreparedQuery",
    "bulk_insert",
    "forget_request_scalar",
    "index_backend",
    "json_scalar_param",
    "keep_request_scalars",
    "register_request_scalar",
    "request_scalar",
    "request_scalar_annotations",
    "request_scalars_scope",
    "transaction_lock",
]
