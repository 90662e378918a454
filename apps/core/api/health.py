"""``GET /_cms/api/health`` for load balancers: the database answers and every migration is applied; and
``GET /_cms/api/health/ready``, which also asks Redis, object storage and whatever else registered a readiness check
(apps/core/readiness.py), naming each check and its state."""

from __future__ import annotations

from django.db import DEFAULT_DB_ALIAS, connections

from apps.core import readiness
from apps.core.api.views import CmsAPIView, endpoint, ok
from apps.core.errors import ServiceUnavailable
from apps.core.presenters import HealthOut, ReadinessOut


class HealthView(CmsAPIView):
    authentication_classes = []

    @endpoint("public", response=HealthOut, ratelimit=None, errors=(503,), summary="Liveness")
    def get(self, request):
        # Readiness's own two database checks, answered in liveness's words.
        database = readiness.database()
        migrations = readiness.migrations() if database.ok else database
        if not database.ok or migrations.detail == readiness.MIGRATIONS_UNREADABLE:
            raise ServiceUnavailable("The database is not reachable.")
        if not migrations.ok:
            raise ServiceUnavailable("Database migrations are pending: run `python manage.py migrate`.")
        return ok({"status": "ok", "database": connections[DEFAULT_DB_ALIAS].vendor})


class ReadinessView(CmsAPIView):
    """``GET /_cms/api/health/ready``: every readiness check (apps/core/readiness.py) by name. 503 in the error
    envelope while any fails, its details holding the same checks, so a load balancer and a person both see why."""

    authentication_classes = []

    @endpoint("public", response=ReadinessOut, ratelimit=None, errors=(503,), summary="Readiness for traffic")
    def get(self, request):
        ready, checks = readiness.run()
        if not ready:
            failing = "; ".join(
                f"{name}: {answer.get('detail', 'failed')}"
                for name, answer in checks.items()
                if not answer["ok"]
            )
            raise ServiceUnavailable(
                f"Not ready: {failing}", details={"status": "not_ready", "checks": checks}
            )
        return ok({"status": "ready", "checks": checks})
