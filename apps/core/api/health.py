"""``GET /_cms/api/health`` for load balancers: the database answers and every migration is applied."""

from __future__ import annotations

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor

from apps.core.api.views import CmsAPIView, endpoint, ok
from apps.core.errors import ServiceUnavailable
from apps.core.presenters import HealthOut

# Once the plan is empty it stays empty for this process's code, so it is checked until it first succeeds.
_migrations_applied = False


class HealthView(CmsAPIView):
    authentication_classes = []

    @endpoint("public", response=HealthOut, ratelimit=None, errors=(503,), summary="Liveness and readiness")
    def get(self, request):
        global _migrations_applied
        connection = connections[DEFAULT_DB_ALIAS]
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")
            if not _migrations_applied:
                executor = MigrationExecutor(connection)
                if executor.migration_plan(executor.loader.graph.leaf_nodes()):
                    raise ServiceUnavailable(
                        "Database migrations are pending: run `python manage.py migrate`."
                    )
                _migrations_applied = True
        except ServiceUnavailable:
            raise
        except Exception as exc:
            raise ServiceUnavailable("The database is not reachable.") from exc
        return ok({"status": "ok", "database": connection.vendor})
