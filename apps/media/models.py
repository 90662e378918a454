"""Media items: the record of a stored file (SPEC §2.2). The bytes live in Django's storage under ``storage_key``.

Several records may name the same key (a file registered twice through the metadata route); the file is deleted with
the last of them. ``content_hash`` is the xxHash64 of the bytes (SPEC §4.10 rule 7), the key of deduplication and the
ETag of downloads.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from apps.core.models import TimestampedModel


class MediaItem(TimestampedModel):
    filename = models.CharField(max_length=255)
    mime_type = models.CharField(max_length=127)
    size = models.BigIntegerField()
    width = models.PositiveIntegerField(null=True, blank=True)
    height = models.PositiveIntegerField(null=True, blank=True)
    storage_key = models.CharField(max_length=512, db_index=True)
    content_hash = models.CharField(max_length=16, db_index=True)
    alt = models.TextField(blank=True)
    caption = models.TextField(blank=True)
    # Where crops keep the subject (issue 22): fractions of the width and height from the top left, both or neither.
    focal_x = models.FloatField(null=True, blank=True)
    focal_y = models.FloatField(null=True, blank=True)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="media"
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["created_at", "id"], name="media_created"),
            models.Index(fields=["mime_type", "created_at", "id"], name="media_type_created"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=(
                    models.Q(focal_x__isnull=True, focal_y__isnull=True)
                    | models.Q(focal_x__gte=0, focal_x__lte=1, focal_y__gte=0, focal_y__lte=1)
                ),
                name="media_focal_point_range",
            )
        ]

    def __str__(self) -> str:
        return self.filename

    @property
    def focal_point(self) -> tuple[float, float] | None:
        return None if self.focal_x is None or self.focal_y is None else (self.focal_x, self.focal_y)

    @property
    def is_image(self) -> bool:
        return self.mime_type.startswith("image/")
