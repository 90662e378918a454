"""A collection is a content type defined at run time; its fields are rows, not columns (docs/architecture.md §3)."""

from __future__ import annotations

from django.db import models

from apps.core.models import TimestampedModel

SLUG_PATTERN = r"^[a-z][a-z0-9_]*$"
# Collection and field slugs; every input that names one advertises this length, which the service enforces.
SLUG_MAX_LENGTH = 63
SUPPORTS = ("drafts", "revisions", "preview", "scheduling", "search")
DEFAULT_SUPPORTS = ["drafts", "revisions"]
# SPEC §2.5: names of the entry's own columns, which a field may not shadow.
RESERVED_FIELD_SLUGS = frozenset(
    {"id", "slug", "status", "author_id", "created_at", "updated_at", "published_at", "deleted_at", "version"}
)


def default_supports() -> list[str]:
    return list(DEFAULT_SUPPORTS)


class Collection(TimestampedModel):
    slug = models.CharField(max_length=SLUG_MAX_LENGTH, unique=True)
    label = models.CharField(max_length=200)
    label_singular = models.CharField(max_length=200, blank=True)
    description = models.TextField(blank=True)
    icon = models.CharField(max_length=100, blank=True)
    supports = models.JSONField(default=default_supports)
    # Delivery (docs/delivery.md): published entries readable without a token, where they live on the front end, and
    # the front end's route that shows a draft from a preview token.
    public = models.BooleanField(default=False)
    url_pattern = models.CharField(max_length=300, blank=True)
    preview_url = models.CharField(max_length=2000, blank=True)

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.slug

    def supports_feature(self, feature: str) -> bool:
        return feature in self.supports


class Field(TimestampedModel):
    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="fields")
    slug = models.CharField(max_length=SLUG_MAX_LENGTH)
    label = models.CharField(max_length=200)
    type = models.CharField(max_length=32)
    required = models.BooleanField(default=False)
    unique = models.BooleanField(default=False)
    default_value = models.JSONField(null=True, blank=True)
    validation = models.JSONField(default=dict, blank=True)
    widget = models.CharField(max_length=100, blank=True)
    options = models.JSONField(default=dict, blank=True)
    sort_order = models.IntegerField(default=0)
    searchable = models.BooleanField(default=False)
    translatable = models.BooleanField(default=True)

    class Meta:
        ordering = ["collection", "sort_order", "created_at"]
        constraints = [
            models.UniqueConstraint(fields=["collection", "slug"], name="schema_field_slug_unique")
        ]

    def __str__(self) -> str:
        return f"{self.collection_id}.{self.slug}"


class SchemaVersion(models.Model):
    """One row whose token changes with every schema write (in the same transaction).

    Processes cache collections with their fields for reads and revalidate the cache with one cheap query on this row
    per request. The token is random rather than a counter, so a rolled-back change can never make an old cache look
    current again.
    """

    token = models.CharField(max_length=26)

    def __str__(self) -> str:
        return self.token
