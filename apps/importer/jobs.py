"""Where a job runs: in the request for small files, in a worker's ``imports`` queue for large ones.

The worker takes one queued job per task (or a running one whose worker died: its lease expired), claiming it with a
conditional update so two workers never run the same job, and runs it for a time slice: to its end, pause or
failure, or until the slice is over. Then the worker's other tasks (scheduled publishing) get their turn, and the
worker's next pass goes on with the same job where the slice stopped, reading on from the same open reader; only
when the worker stops does the job go back to the queue at its cursor.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db import transaction

from apps.background.queues import enqueue
from apps.importer.models import JOB_LEASE, ImportJob, JobState
from apps.importer.pipeline import OpenReader, run_job
from apps.importer.tasks import import_jobs


def runs_in_request(job: ImportJob) -> bool:
    analysis = job.analysis
    if analysis is not None and not analysis.file:
        # A site read through its API: its item count stands in for the file size.
        return analysis.result.get("itemCount", 0) <= settings.CMS_IMPORT_SYNC_MAX_ITEMS
    return (analysis.size if analysis else 0) <= settings.CMS_IMPORT_SYNC_MAX_BYTES


@dataclass
class _Held:
    """The job whose slice this worker process ended last, still ``running`` under its lease, with its reader."""

    job_id: str
    # The job's updated_at as the slice left it: if it changed, someone else has run the job since.
    stamp: datetime
    reader: OpenReader


_held: _Held | None = None


def _claim() -> ImportJob | None:
    claimed = JOB_LEASE.claim()
    if claimed is None:
        return None
    return ImportJob.objects.select_related("analysis", "created_by").get(pk=claimed[0])


def _continue_held() -> tuple[ImportJob, OpenReader] | None:
    """The held job with its reader, its lease renewed; None (and the reader closed) when another worker has taken
    it over meanwhile (the lease had expired)."""
    global _held
    held, _held = _held, None
    if held is None:
        return None
    if JOB_LEASE.renew(held.job_id, held.stamp) is None:
        held.reader.close()
        return None
    return ImportJob.objects.select_related("analysis", "created_by").get(pk=held.job_id), held.reader


def run_queued() -> int:
    """One worker pass: go on with the job this worker's last slice stopped, else run the oldest waiting job, for
    at most ``CMS_IMPORT_WORKER_SLICE_SECONDS``, so scheduled publishing is not held up by a long import. An
    unfinished job stays this worker's, with its reader open, until ``release_held`` (the worker stops)."""
    global _held
    continued = _continue_held()
    if continued is not None:
        job, reader = continued
    else:
        job, reader = _claim(), OpenReader()
        if job is None:
            return 0
    job = run_job(job, deadline=time.monotonic() + settings.CMS_IMPORT_WORKER_SLICE_SECONDS, reader=reader)
    if job.state == JobState.RUNNING and reader.records is not None:
        _held = _Held(job_id=job.pk, stamp=job.updated_at, reader=reader)
    else:
        reader.close()
    return 1


def holding() -> bool:
    """Whether this worker process keeps a job whose slice ended unfinished (it goes on with it next)."""
    return _held is not None


def queue(job: ImportJob) -> ImportJob:
    """Hand a queued job to the workers (its task is written with the caller's transaction)."""
    with transaction.atomic():
        enqueue(import_jobs)
    return job


def start(job: ImportJob) -> tuple[ImportJob, bool]:
    """Run a small job in this request; queue a large one for a worker. Answers the job and whether it ran.

    The request takes the job's lease before running it, as a worker would: a worker's sweep that found the job
    waiting at that moment gets nothing, and the other way round the request answers 202 with the worker's job."""
    if not runs_in_request(job):
        return queue(job), False
    if JOB_LEASE.take(job.pk) is None:
        return ImportJob.objects.select_related("analysis", "created_by").get(pk=job.pk), False
    return run_now(job), True


def release_held() -> None:
    """The worker stops: its unfinished job goes back to the queue at its cursor, for any worker to go on with (a
    worker killed outright leaves it ``running`` until its lease expires)."""
    global _held
    held, _held = _held, None
    if held is None:
        return
    held.reader.close()
    JOB_LEASE.release(held.job_id, held.stamp, state=JobState.QUEUED)


def run_now(job: ImportJob, progress=None) -> ImportJob:
    job = ImportJob.objects.select_related("analysis", "created_by").get(pk=job.pk)
    return run_job(job, progress=progress)
