"""Reads of the import pipeline: analyses and jobs by id."""

from __future__ import annotations

from apps.core.errors import NotFound
from apps.importer.models import ImportAnalysis, ImportJob


def analysis_get(*, analysis_id: str) -> ImportAnalysis:
    analysis = ImportAnalysis.objects.filter(pk=analysis_id).first()
    if analysis is None:
        raise NotFound(f"No import analysis {analysis_id}; upload the export to …/analyze first.")
    return analysis


def job_get(*, job_id: str) -> ImportJob:
    job = ImportJob.objects.select_related("analysis", "created_by").filter(pk=job_id).first()
    if job is None:
        raise NotFound(f"No import job {job_id}.")
    return job
