"""Import state kept in the database: stored analyses, jobs, and what each source item became.

``ImportAnalysis`` is an uploaded export kept server-side with its analysis, so the client can prepare and execute by
``analysisId`` without sending the file again. ``ImportJob`` is one run of the pipeline: a row with its state,
counters, a cursor (how many source items are done, committed together with their results) and the summary, so a
job stopped by a crash, a lost database connection or a killed worker resumes where it stopped. ``ImportRecord``
maps a source item (by the source's site and the item's id) to what it became (an entry, media item, term, section,
menu, menu item or byline); a second import of the same site finds these and updates or skips instead of duplicating.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from apps.core.leases import Lease
from apps.core.models import TimestampedModel


class ImportAnalysis(TimestampedModel):
    source = models.CharField(max_length=63, default="wxr")
    filename = models.CharField(max_length=255, blank=True)
    # Where the upload is kept, relative to settings.CMS_IMPORT_DIR.
    file = models.CharField(max_length=255, blank=True)
    size = models.BigIntegerField(default=0)
    # What a remote source reads ({url, accessToken}); the token is dropped once an import of it completes.
    source_input = models.JSONField(default=dict, blank=True)
    result = models.JSONField(default=dict)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        verbose_name_plural = "import analyses"


class JobState(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    PAUSED = "paused"
    FAILED = "failed"
    COMPLETED = "completed"


class ImportJob(TimestampedModel):
    source = models.CharField(max_length=63, default="wxr")
    analysis = models.ForeignKey(
        ImportAnalysis, null=True, blank=True, on_delete=models.SET_NULL, related_name="jobs"
    )
    state = models.CharField(max_length=16, choices=JobState.choices, default=JobState.QUEUED)
    # Which phase runs now (terms, items, links, media) and how many source items of the items phase are done.
    phase = models.CharField(max_length=16, default="start")
    cursor = models.IntegerField(default=0)
    total = models.IntegerField(default=0)
    counters = models.JSONField(default=dict)
    options = models.JSONField(default=dict)
    summary = models.JSONField(default=dict)
    error = models.JSONField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["state", "created_at"], name="importer_job_state")]


# A running job's worker renews ``updated_at`` with every write (each batch, and ``RunState.keep_alive`` between).
JOB_LEASE = Lease(ImportJob, "CMS_IMPORT_LEASE_SECONDS")


class ImportRecord(TimestampedModel):
    """Source item → what it became. ``site`` names the source site (its base URL), so two sites' post 12 differ."""

    site = models.CharField(max_length=500)
    kind = models.CharField(max_length=32)
    source_id = models.CharField(max_length=255)
    target_id = models.CharField(max_length=64, blank=True)
    # Collection slug, taxonomy name or menu name the target lives in.
    target_type = models.CharField(max_length=63, blank=True)
    # Fingerprint of the source item as last imported: unchanged items are skipped on re-import.
    checksum = models.CharField(max_length=32, blank=True)
    payload = models.JSONField(default=dict, blank=True)
    job = models.ForeignKey(ImportJob, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["site", "kind", "source_id"], name="importer_record_unique")
        ]
        indexes = [models.Index(fields=["kind", "target_id"], name="importer_record_target")]
