"""Where a job runs: in the request for small files, in ``manage.py worker`` for large ones.

The worker takes one queued job per pass (or a running one whose worker died: its lease expired), claiming it with a
conditional update so two workers never run the same job, and runs it for a time slice: to its end, pause or
failure, or back to the queue at its cursor.
"""

from __future__ import annotations

import time

from django.conf import settings
from django.db import transaction
from django.db.models import Q

from apps.core.timefmt import now
from apps.importer.models import ImportJob, JobState
from apps.importer.pipeline import run_job


def runs_in_request(job: ImportJob) -> bool:
    analysis = job.analysis
    if analysis is not None and not analysis.file:
        # A site read through its API: its item count stands in for the file size.
        return analysis.result.get("itemCount", 0) <= settings.CMS_IMPORT_SYNC_MAX_ITEMS
    return (analysis.size if analysis else 0) <= settings.CMS_IMPORT_SYNC_MAX_BYTES


def _claim() -> ImportJob | None:
    from datetime import timedelta

    stale = now() - timedelta(seconds=settings.CMS_IMPORT_LEASE_SECONDS)
    candidates = ImportJob.objects.filter(
        Q(state=JobState.QUEUED) | Q(state=JobState.RUNNING, updated_at__lt=stale)
    ).order_by("created_at")
    for job in candidates[:5]:
        with transaction.atomic():
            claimed = ImportJob.objects.filter(pk=job.pk, state=job.state, updated_at=job.updated_at).update(
                state=JobState.RUNNING, updated_at=now()
            )
        if claimed:
            return ImportJob.objects.select_related("analysis", "created_by").get(pk=job.pk)
    return None


def run_queued() -> int:
    """One worker pass: run the oldest waiting job for at most ``CMS_IMPORT_WORKER_SLICE_SECONDS``; an unfinished
    job goes back to the queue at its cursor, so scheduled publishing (and other jobs) are not held up by it."""
    job = _claim()
    if job is None:
        return 0
    run_job(job, deadline=time.monotonic() + settings.CMS_IMPORT_WORKER_SLICE_SECONDS)
    return 1


def run_now(job: ImportJob, progress=None) -> ImportJob:
    job = ImportJob.objects.select_related("analysis", "created_by").get(pk=job.pk)
    return run_job(job, progress=progress)
