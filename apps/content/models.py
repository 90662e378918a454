"""Entries, their revisions and their byline credits (docs/architecture.md §3).

All collections share one entries table: the fields live in ``data`` (the working copy editors change) and
``live_data`` (the published snapshot the public reads, null until first published). Trash is ``deleted_at``, not a
status. ``version`` grows on every write; ``_rev`` is derived from it and checked on update.
"""

from __future__ import annotations

import xxhash
from django.conf import settings
from django.db import models
from django.db.models import Q

from apps.core.ids import new_id
from apps.core.models import TimestampedModel, UlidModel
from apps.schema.models import Collection


class Status(models.TextChoices):
    DRAFT = "draft"
    PUBLISHED = "published"
    SCHEDULED = "scheduled"


LIVE = Q(deleted_at__isnull=True)


class Byline(TimestampedModel):
    """A name shown as the author of entries: a user's, or a guest's (imported authors, contributors without an
    account)."""

    display_name = models.CharField(max_length=200)
    slug = models.CharField(max_length=200, unique=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="bylines"
    )
    is_guest = models.BooleanField(default=False)
    bio = models.TextField(blank=True)
    email = models.EmailField(blank=True)

    class Meta:
        ordering = ["display_name"]

    def __str__(self) -> str:
        return self.display_name


class Entry(models.Model):
    id = models.CharField(primary_key=True, max_length=26, default=new_id, editable=False)
    collection = models.ForeignKey(
        Collection, on_delete=models.CASCADE, related_name="entries", db_index=False
    )
    slug = models.CharField(max_length=200)
    locale = models.CharField(max_length=16)
    # The id of the first entry of the group: translations share it.
    translation_group = models.CharField(max_length=26, db_index=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.DRAFT)
    data = models.JSONField(default=dict)
    live_data = models.JSONField(null=True, blank=True)
    version = models.PositiveIntegerField(default=1)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="entries"
    )
    primary_byline = models.ForeignKey(
        Byline, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Facts about where the entry came from (importer: source id, original status, conversion errors).
    meta = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()
    published_at = models.DateTimeField(null=True, blank=True)
    scheduled_at = models.DateTimeField(null=True, blank=True)
    deleted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "entries"
        constraints = [
            models.UniqueConstraint(
                fields=["collection", "locale", "slug"], condition=LIVE, name="content_entry_slug_unique"
            ),
        ]
        indexes = [
            models.Index(
                fields=["collection", "created_at", "id"], condition=LIVE, name="content_entry_created"
            ),
            models.Index(
                fields=["collection", "updated_at", "id"], condition=LIVE, name="content_entry_updated"
            ),
            models.Index(fields=["collection", "slug", "id"], condition=LIVE, name="content_entry_slug"),
            # (collection, published_at, id) is created by migration 0002 with vendor-specific NULL ordering.
            models.Index(
                fields=["collection", "deleted_at", "id"],
                condition=Q(deleted_at__isnull=False),
                name="content_trash",
            ),
            models.Index(
                fields=["scheduled_at"],
                condition=Q(status="scheduled", deleted_at__isnull=True),
                name="content_due",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.collection.slug}/{self.slug}"

    @property
    def rev(self) -> str:
        """Opaque revision token: changes on every write (SPEC §2.1 ``_rev``)."""
        return f"{self.version}-{xxhash.xxh32_hexdigest(f'{self.pk}:{self.version}'.encode())}"

    @property
    def is_trashed(self) -> bool:
        return self.deleted_at is not None

    @property
    def was_published(self) -> bool:
        return self.live_data is not None


class EntryByline(models.Model):
    """One credit of an entry: which byline, in which position, with which role ("Photos", "Translation")."""

    # No index of its own: the unique (entry, byline) leads with it.
    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="credits", db_index=False)
    byline = models.ForeignKey(Byline, on_delete=models.CASCADE, related_name="credits")
    sort_order = models.PositiveSmallIntegerField(default=0)
    role_label = models.CharField(max_length=100, blank=True)

    class Meta:
        ordering = ["entry", "sort_order"]
        constraints = [models.UniqueConstraint(fields=["entry", "byline"], name="content_credit_unique")]

    def __str__(self) -> str:
        return f"{self.byline_id} on {self.entry_id}"


class Revision(UlidModel):
    """A saved state of an entry's working copy. The newest 50 per entry are kept (docs/decisions.md)."""

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="+", db_index=False)
    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="revisions", db_index=False)
    data = models.JSONField()
    # What produced it: create, update, publish, restore, …
    action = models.CharField(max_length=32)
    status = models.CharField(max_length=16)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["entry", "created_at", "id"], name="content_revision_entry")]
