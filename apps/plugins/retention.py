"""Retention of the audit log (issue 24): events older than ``CMS_AUDIT_RETENTION_DAYS`` are deleted in batches.

Each batch is its own short transaction deleting at most ``CMS_RETENTION_BATCH_SIZE`` rows picked by primary key
through the ``(at, id)`` index, so pruning a year of history never holds locks on the table (or SQLite's single
writer lock) for longer than one batch; writers recording new events slip in between batches. ``prune_audit`` is a
plain function: ``manage.py cms_prune`` calls it, and so may any periodic task.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction

from apps.core import timefmt
from apps.plugins.models import AuditEvent


def audit_cutoff() -> datetime | None:
    """Events recorded before this are due for deletion; None when the log is kept forever (retention 0)."""
    days = settings.CMS_AUDIT_RETENTION_DAYS
    return timefmt.now() - timedelta(days=days) if days > 0 else None


def prune_audit(before: datetime | None = None, *, batch_size: int | None = None) -> int:
    """Delete audit events recorded before ``before`` (default: the configured retention; nothing when that is 0),
    oldest first, in batches. Answers how many went."""
    cutoff = before or audit_cutoff()
    if cutoff is None:
        return 0
    size = batch_size or settings.CMS_RETENTION_BATCH_SIZE
    deleted = 0
    while True:
        with transaction.atomic():
            ids = list(
                AuditEvent.objects.filter(at__lt=cutoff)
                .order_by("at", "id")
                .values_list("id", flat=True)[:size]
            )
            if ids:
                AuditEvent.objects.filter(pk__in=ids).delete()
        deleted += len(ids)
        if len(ids) < size:
            return deleted
