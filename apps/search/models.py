"""The search index (docs/architecture.md §3 "Search"): one document per entry version people can see, its title words for
autocomplete, and when each collection was last rebuilt.

An entry has up to two versions that can be found: the published one (``live_data``, what the public reads while the
entry's status is published) and the working copy (``data``, what editors see). When both are the same text, which is
the usual case, one document carries both flags; otherwise each has its own. Entries in the trash have none.

The full-text structures themselves are vendor-specific and live beside these tables, created by the migrations:
PostgreSQL adds a ``config regconfig`` column and a stored generated ``tsv tsvector`` (title weight A, the other
searchable text weight B) with a RUM or GIN index; SQLite adds the FTS5 table ``search_fts`` over ``title`` and
``body``, kept in step by triggers. Documents are therefore written by the backend (apps/search/backends), never with
``Model.save()``.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from apps.content.models import Entry
from apps.core.leases import Lease
from apps.core.models import UlidModel
from apps.schema.models import Collection


class SearchDocument(models.Model):
    id = models.BigAutoField(primary_key=True)
    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="+", db_index=False)
    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="+", db_index=False)
    locale = models.CharField(max_length=16)
    # What the public sees (the entry is published and this is its published text).
    published = models.BooleanField()
    # What editors see (this is the entry's working copy).
    working = models.BooleanField()
    slug = models.CharField(max_length=200)
    # A hash of the document's text and flags and of the analyzer (the language configuration): writers compare it
    # to skip documents that would not change, and a changed language setting makes every document differ.
    signature = models.CharField(max_length=32)
    title = models.TextField()
    # The last column (migration 0001): SQLite keeps the columns before a long text on the row's first page.
    body = models.TextField()

    class Meta:
        indexes = [
            models.Index(fields=["entry"], name="search_doc_entry"),
            models.Index(fields=["collection", "locale"], name="search_doc_collection"),
        ]

    def __str__(self) -> str:
        return f"{self.entry_id} ({'published' if self.published else ''}{'+' if self.published and self.working else ''}{'working' if self.working else ''})"


class SearchSuggestion(models.Model):
    """One word position of a document's title, for prefix autocomplete: ``key`` is the folded title from that word
    on ("cafe au lait", "au lait", "lait" for "Café au lait"), so a prefix of any word is a range scan of one index.
    ``first`` marks the whole title, which is suggested before matches further in."""

    id = models.BigAutoField(primary_key=True)
    document = models.ForeignKey(SearchDocument, on_delete=models.CASCADE, related_name="+", db_index=False)
    # The document's collection, repeated so that suggest filters without reading documents. The document's own
    # foreign key already guarantees it exists, so the database checks no second one (an import writes six
    # suggestions a post, and each check is an index lookup at commit).
    collection = models.ForeignKey(
        Collection, on_delete=models.CASCADE, related_name="+", db_index=False, db_constraint=False
    )
    locale = models.CharField(max_length=16)
    published = models.BooleanField()
    working = models.BooleanField()
    first = models.BooleanField()
    # Byte order on both databases: SQLite compares text as bytes; PostgreSQL's column gets COLLATE "C" (migration).
    key = models.CharField(max_length=200)

    class Meta:
        indexes = [
            # The key range in key order; the other columns let both databases filter without reading rows.
            models.Index(
                fields=["key", "document", "first", "published", "working", "collection", "locale"],
                name="search_suggest_key",
            ),
            models.Index(fields=["document"], name="search_suggest_document"),
        ]

    def __str__(self) -> str:
        return self.key


class SearchRebuild(models.Model):
    """When a collection's index was last rebuilt in full (``POST /search/rebuild``, ``manage.py reindex``)."""

    collection = models.OneToOneField(
        Collection, on_delete=models.CASCADE, related_name="+", primary_key=True
    )
    rebuilt_at = models.DateTimeField()
    entries = models.PositiveIntegerField(default=0)
    documents = models.PositiveIntegerField(default=0)
    seconds = models.FloatField(default=0)

    def __str__(self) -> str:
        return f"{self.collection_id} at {self.rebuilt_at}"


class RebuildJobState(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


class SearchRebuildJob(UlidModel):
    """A rebuild asked for from the studio or ``POST /search/rebuild/jobs``, run by ``manage.py worker`` in the
    background so its progress (entries done of the total) can be followed and survives a page reload."""

    state = models.CharField(max_length=16, choices=RebuildJobState.choices, default=RebuildJobState.QUEUED)
    full = models.BooleanField(default=False)
    # Slugs; null means every collection.
    collections = models.JSONField(null=True, blank=True)
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # When the worker running it last renewed its lease (after each batch): a running job whose lease has expired
    # was left by a dead worker (``REBUILD_JOB_LEASE``).
    lease_renewed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["state", "created_at"], name="search_rebuild_job_state")]

    def __str__(self) -> str:
        return f"search rebuild {self.pk} ({self.state})"


REBUILD_JOB_LEASE = Lease(SearchRebuildJob, "CMS_SEARCH_REBUILD_LEASE_SECONDS", field="lease_renewed_at")
