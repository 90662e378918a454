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


def job_list(*, actor: Actor | None, limit: int = 20) -> list[ImportJob]:
    """The latest jobs, newest first, for the import pages' list of runs to come back to."""
    authorize(actor, "import.run")
    return list(ImportJob.objects.select_related("analysis").order_by("-created_at", "-id")[:limit])


def imported_entries(*, site: str, source_ids: list) -> dict[str, dict[str, str]]:
    """Source item id → ``{id, collection}`` of the entry it became on ``site`` (the entries a summary's warnings and
    failures name, for links to them)."""
    wanted = {str(source_id) for source_id in source_ids if source_id not in (None, "")}
    if not wanted:
        return {}
    records = ImportRecord.objects.filter(site=site, kind="entry", source_id__in=wanted).exclude(target_id="")
    return {
        record.source_id: {"id": record.target_id, "collection": record.target_type}
        for record in records.only("source_id", "target_id", "target_type")
    }


def site_attachments(*, site: str) -> list[dict]:
    """The attachments an import of ``site`` found, ``{id, url}`` each, as the media import takes them."""
    records = ImportRecord.objects.filter(site=site, kind="attachment").order_by("source_id")
    return [
        {"id": record.source_id, "url": record.payload.get("url")}
        for record in records.only("source_id", "payload")
        if record.payload.get("url")
    ]


def site_media_urls(*, site: str) -> dict[str, str]:
    """Old attachment URL → URL of its stored file, for every attachment of ``site`` imported so far (what the URL
    rewrite replaces)."""
    from apps.media.models import MediaItem
    from apps.media.storage import media_url

    records = ImportRecord.objects.filter(site=site, kind="media").exclude(target_id="")
    wanted = {record.target_id: record.payload.get("url") for record in records.only("target_id", "payload")}
    items = MediaItem.objects.filter(pk__in=wanted).only("id", "storage_key")
    return {wanted[item.pk]: media_url(item.storage_key) for item in items if wanted.get(item.pk)}
