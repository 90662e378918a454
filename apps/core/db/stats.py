"""Planner statistics after bulk writes: ``analyze(models)`` refreshes them for the models' tables."""

from __future__ import annotations

import logging
import time

from django.db import connection

from apps.core.db.backends import get_db_backend

logger = logging.getLogger("cms.db")


def analyze(models) -> float:
    """Refresh the planner statistics of ``models``' tables; the seconds it took.

    A bulk write (an import) leaves PostgreSQL without statistics for the rows it added until autovacuum runs, which
    is minutes later, or never where it is off; until then the planner guesses, and a single-entry read was measured
    25% slower (issue 21). SQLite's planner does better without statistics on these tables (see its backend), so
    there they are removed instead. Run it outside the writer's transactions: it reads every table it refreshes."""
    tables = [connection.ops.quote_name(model._meta.db_table) for model in models]
    if not tables:
        return 0.0
    started = time.monotonic()
    with connection.cursor() as cursor:
        get_db_backend().analyze(cursor, tables)
    took = time.monotonic() - started
    logger.info("analyzed %s in %.3f s", ", ".join(tables), took, extra={"tables": tables, "seconds": took})
    return took
