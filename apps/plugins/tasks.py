"""The audit log's retention as a periodic task on the ``maintenance`` queue (``manage.py cms_prune`` does the same
by hand)."""

from __future__ import annotations

from django_tasks import task

from apps.background.queues import MAINTENANCE


def audit_expired() -> bool:
    from apps.plugins.models import AuditEvent
    from apps.plugins.retention import audit_cutoff

    cutoff = audit_cutoff()
    return cutoff is not None and AuditEvent.objects.filter(at__lt=cutoff).exists()


@task(queue_name=MAINTENANCE)
def prune_audit_log() -> int:
    from apps.plugins.retention import prune_audit

    return prune_audit()
