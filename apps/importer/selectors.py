"""Reads of the import pipeline: analyses and jobs by id, the media a site could not import."""

from __future__ import annotations

from apps.accounts.permissions import Actor, authorize
from apps.core.errors import NotFound
from apps.importer.models import ImportAnalysis, ImportJob, ImportRecord


def analysis_get(*, analysis_id: str) -> ImportAnalysis:
    analysis = ImportAnalysis.objects.filter(pk=analysis_id).first()
    if analysis is None:
        raise NotFound(f"No import analysis {analysis_id}; upload the export to …/analyze first.")
    return analysis


def job_read(*, actor: Actor | None, job_id: str) -> ImportJob:
    """A job as its progress page shows it, to those who may run imports."""
    authorize(actor, "import.run")
    return job_get(job_id=job_id)


def job_get(*, job_id: str) -> ImportJob:
    """The job for a service to act on (the service authorizes)."""
    job = ImportJob.objects.select_related("analysis", "created_by").filter(pk=job_id).first()
    if job is None:
        raise NotFound(f"No import job {job_id}.")
    return job


def media_failures(*, site: str) -> list[dict]:
    """The site's attachments whose download or storing failed and has not succeeded since: ``{id, url, error,
    reason}`` each, all of them (a job's summary lists the first 500)."""
    records = ImportRecord.objects.filter(site=site, kind="media_failed").order_by("created_at", "source_id")
    return [
        {"id": record.source_id, "url": "", "error": "", "reason": "other", **record.payload}
        for record in records
    ]
