"""The site around the content (SPEC §2.7): widget areas with ordered widgets, reusable sections, and the settings.

Widget and section ``content`` is Portable Text, validated by ``apps/core/portabletext``. Sections come from editors
(``source`` user) or from imports (reusable blocks of a WordPress export, ``source`` import); ``keywords_text`` is a
lowercased copy of the keywords that ``?search=`` matches on every database alike. Settings are one row (id 1), made
on first write; until then readers get the defaults.
"""

from __future__ import annotations

from django.db import models

from apps.core.models import TimestampedModel
from apps.media.models import MediaItem


class WidgetArea(TimestampedModel):
    name = models.CharField(max_length=63, unique=True)
    label = models.CharField(max_length=200)
    description = models.TextField(blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Widget(TimestampedModel):
    area = models.ForeignKey(WidgetArea, on_delete=models.CASCADE, related_name="widgets")
    type = models.CharField(max_length=64)
    title = models.CharField(max_length=200, blank=True)
    content = models.JSONField(default=list, blank=True)
    sort_order = models.IntegerField(default=0)

    class Meta:
        ordering = ["area", "sort_order", "created_at"]

    def __str__(self) -> str:
        return self.title or f"{self.type} widget"


class SectionSource(models.TextChoices):
    USER = "user"
    IMPORT = "import"


class Section(TimestampedModel):
    slug = models.CharField(max_length=200, unique=True)
    title = models.CharField(max_length=200)
    keywords = models.JSONField(default=list, blank=True)
    keywords_text = models.TextField(blank=True, editable=False)
    content = models.JSONField(default=list, blank=True)
    source = models.CharField(max_length=16, choices=SectionSource.choices, default=SectionSource.USER)

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.slug


class SiteSettings(models.Model):
    """The one settings row. Its defaults are what a fresh site shows."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=1, editable=False)
    site_title = models.CharField(max_length=200, default="My Site")
    tagline = models.CharField(max_length=500, blank=True)
    posts_per_page = models.PositiveSmallIntegerField(default=10)
    url = models.CharField(max_length=500, blank=True)
    timezone = models.CharField(max_length=64, default="UTC")
    date_format = models.CharField(max_length=64, default="yyyy-MM-dd")
    logo = models.ForeignKey(MediaItem, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    favicon = models.ForeignKey(MediaItem, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    updated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "site settings"
        verbose_name_plural = "site settings"

    def __str__(self) -> str:
        return self.site_title
