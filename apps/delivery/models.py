"""Delivery to front ends (docs/delivery.md): redirects from old paths, and the secret that signs preview tokens.

A redirect maps one path of the public site to a location (another path, or an absolute URL) with an HTTP status.
Stored redirects never chain: whenever one is written, those that pointed at its source are pointed at its
location instead (``services.redirect_save``), so ``source → location`` is always one hop. ``origin`` says whether
an editor made it or the CMS did when an entry moved (slug or URL pattern change).
"""

from __future__ import annotations

from django.db import models

from apps.core.models import TimestampedModel

REDIRECT_STATUSES = (301, 302, 307, 308)


class RedirectOrigin(models.TextChoices):
    MANUAL = "manual"
    AUTO = "auto"


class Redirect(TimestampedModel):
    source = models.CharField(max_length=1000, unique=True)
    location = models.CharField(max_length=2000)
    status = models.PositiveSmallIntegerField(default=301)
    origin = models.CharField(max_length=8, choices=RedirectOrigin.choices, default=RedirectOrigin.MANUAL)
    # The entry whose move made it (automatic redirects), kept for editors; not a key, the entry may be deleted later.
    entry_id = models.CharField(max_length=26, blank=True)

    class Meta:
        ordering = ["source"]
        indexes = [models.Index(fields=["location"], name="delivery_redirect_location")]

    def __str__(self) -> str:
        return f"{self.source} → {self.location}"


class PreviewSecret(models.Model):
    """The one row (id 1) holding the per-site key preview tokens are signed with, beside Django's SECRET_KEY.
    Saving a new one revokes every preview token issued before."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=1, editable=False)
    secret = models.CharField(max_length=100)
    rotated_at = models.DateTimeField()

    def __str__(self) -> str:
        return "preview secret"
