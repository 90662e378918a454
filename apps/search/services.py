"""Writes to the search index: an entry's documents, a collection's, and the rebuild that checks and repairs them all.

The receivers (apps/search/receivers.py) call these inside the transaction of the change that caused them, so the
index never disagrees with what is committed. ``search_rebuild`` and ``manage.py reindex`` work through a collection
in batches, each batch its own transaction (a savepoint when called inside one) that locks its entries while it reads
them, so they are safe beside a serving site: an edit waits for the batch or the batch for the edit, and either way
the later writer indexes the later text. A rebuild rewrites only documents that differ from what they should be
(``full`` rewrites everything), so a rebuild of a correct index changes nothing and equals the incremental result.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field

import orjson
from django.db import connection, transaction
from django.db.models import TextField
from django.db.models.functions import Cast

from apps.accounts.permissions import Actor, authorize
from apps.background.queues import enqueue
from apps.content.models import Entry
from apps.core.errors import ValidationError
from apps.core.leases import LeaseLost
from apps.core.timefmt import now
from apps.schema import selectors as schema_selectors
from apps.schema.models import Collection
from apps.search.backends import get_search_backend
from apps.search.backends.base import DocumentRow, SearchBackend
from apps.search.documents import documents_for
from apps.search.models import REBUILD_JOB_LEASE, RebuildJobState, SearchRebuild, SearchRebuildJob
from apps.search.tasks import search_rebuild_jobs

BATCH_SIZE = 500
log = logging.getLogger(__name__)


def _rows(backend: SearchBackend, entry, collection: Collection, fields: list) -> list[DocumentRow]:
    return [
        DocumentRow(entry.pk, collection.pk, entry.locale, entry.slug, spec, backend.analyzer(entry.locale))
        for spec in documents_for(entry, collection, fields)
    ]


@dataclass(slots=True)
class EntryText:
    """What indexing reads of an entry, without building the model (a rebuild reads every entry)."""

    pk: str
    slug: str
    locale: str
    status: str
    deleted_at: object
    data: dict
    live_data: dict | None


def _entry_texts(entries) -> list[EntryText]:
    """The entries with their JSON parsed once: the published version is usually the working copy's twin."""
    rows = entries.annotate(
        data_raw=Cast("data", TextField()), live_raw=Cast("live_data", TextField())
    ).values_list("pk", "slug", "locale", "status", "deleted_at", "data_raw", "live_raw")
    texts = []
    for pk, slug, locale, status, deleted_at, data_raw, live_raw in rows:
        data = orjson.loads(data_raw) if data_raw else {}
        if live_raw is None:
            live = None
        elif live_raw == data_raw:
            live = data
        else:
            live = orjson.loads(live_raw)
        texts.append(EntryText(pk, slug, locale, status, deleted_at, data, live))
    return texts


def _current(collection_id: str, exclude_field_id: str | None = None) -> tuple[Collection, list]:
    # Indexing runs inside the writer's transaction: the fields as of now, not as the request first saw them.
    collection = schema_selectors.collection_for_read(collection_id=collection_id, fresh=True)
    fields = [field for field in collection.fields.all() if field.pk != exclude_field_id]
    return collection, fields


def _searchable(entry: Entry) -> tuple[Collection, list] | None:
    """The collection and fields ``entry`` is indexed with, or None when its collection does not support search."""
    # The content services leave the collection on the entry; writes to collections without search cost no query.
    if Entry.collection.is_cached(entry) and not entry.collection.supports_feature("search"):
        return None
    collection, fields = _current(entry.collection_id)
    if not collection.supports_feature("search"):
        # Collections leave the index as a whole when they stop supporting search (collection_index).
        return None
    return collection, fields


def entry_index(*, entry: Entry, created: bool = False) -> None:
    """Bring ``entry``'s documents in line with it (inside the writer's transaction). ``created``: it has none yet."""
    if created:
        entries_index_new(entries=[entry])
        return
    current = _searchable(entry)
    if current is None:
        return
    backend = get_search_backend()
    backend.replace_documents([entry.pk], _rows(backend, entry, *current))


def entries_index_new(*, entries: list[Entry]) -> None:
    """Index entries just created together, all of one collection (they have no documents yet): the schema is read
    once and their documents and suggestions are written with one INSERT each (an import's batch)."""
    if not entries:
        return
    current = _searchable(entries[0])
    if current is None:
        return
    backend = get_search_backend()
    rows = [_signed(backend, row) for entry in entries for row in _rows(backend, entry, *current)]
    if rows:
        backend.insert_suggestions(rows, backend.insert_documents(rows))


def _signed(backend: SearchBackend, row: DocumentRow) -> DocumentRow:
    return DocumentRow(
        row.entry_id, row.collection_id, row.locale, row.slug, row.spec, row.analyzer, backend.signature(row)
    )


def entry_unindex(*, entry: Entry) -> None:
    get_search_backend().delete_documents(entry_ids=[entry.pk])


@dataclass
class CollectionCounts:
    collection: str
    entries: int = 0
    documents: int = 0
    written: int = 0
    removed: int = 0
    seconds: float = 0.0
    searchable: bool = True
    extra: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {
            "collection": self.collection,
            "searchable": self.searchable,
            "entries": self.entries,
            "documents": self.documents,
            "written": self.written,
            "removed": self.removed,
            "seconds": round(self.seconds, 3),
        }


Progress = Callable[[CollectionCounts, int], None]


def collection_index(
    *,
    collection: Collection,
    full: bool = False,
    batch_size: int = BATCH_SIZE,
    exclude_field_id: str | None = None,
    progress: Progress | None = None,
) -> CollectionCounts:
    """Check and repair the documents of every entry of ``collection`` (trash included: those must have none)."""
    started = time.monotonic()
    backend = get_search_backend()
    counts = CollectionCounts(collection.slug)
    with transaction.atomic():
        current, _ = _current(collection.pk, exclude_field_id)
        counts.searchable = current.supports_feature("search")
        if not counts.searchable or full:
            counts.removed += backend.delete_documents(collection_id=collection.pk)
    if not counts.searchable:
        counts.seconds = time.monotonic() - started
        return counts
    ids = list(Entry.objects.filter(collection_id=collection.pk).order_by("pk").values_list("pk", flat=True))
    total = len(ids)
    if progress is not None:
        progress(counts, total)
    for start in range(0, total, batch_size):
        chunk = ids[start : start + batch_size]
        with transaction.atomic():
            # The schema may change between batches: read it again inside each one.
            current, fields = _current(collection.pk, exclude_field_id)
            entries = Entry.objects.filter(pk__in=chunk).order_by("pk")
            if connection.features.has_select_for_update:
                entries = entries.select_for_update(of=("self",))
            rows: list[DocumentRow] = []
            found = 0
            for entry in _entry_texts(entries):
                found += 1
                rows += _rows(backend, entry, current, fields)
            result = backend.replace_documents(chunk, rows, compare=not full)
        counts.entries += found
        counts.documents += len(rows)
        counts.written += result["written"]
        counts.removed += result["removed"]
        if progress is not None:
            progress(counts, total)
    counts.seconds = time.monotonic() - started
    return counts


def _record(counts: CollectionCounts, collection: Collection) -> None:
    SearchRebuild.objects.update_or_create(
        collection=collection,
        defaults={
            "rebuilt_at": now(),
            "entries": counts.entries,
            "documents": counts.documents,
            "seconds": counts.seconds,
        },
    )


def _targets(collections: list[str] | None) -> list[Collection]:
    known = {collection.slug: collection for collection in Collection.objects.order_by("slug")}
    if collections is None:
        return list(known.values())
    unknown = [slug for slug in collections if slug not in known]
    if unknown:
        raise ValidationError(
            f"Unknown collection(s): {', '.join(unknown)}; collections: {', '.join(known) or 'none yet'}.",
            details={"collections": f"Unknown: {', '.join(unknown)}."},
        )
    return [known[slug] for slug in dict.fromkeys(collections)]


def search_rebuild(
    *,
    actor: Actor,
    collections: list[str] | None = None,
    full: bool = False,
    batch_size: int = BATCH_SIZE,
    progress: Progress | None = None,
    index: str | None = None,
) -> dict:
    """Rebuild the index of the named collections (slugs), or of every collection: searchable collections have their
    documents checked and repaired (``full``: deleted and rewritten), others lose any they still have. A full rebuild
    of every collection is a bulk load (``SearchBackend.bulk_load``). ``index``: the full-text index kind to use
    (PostgreSQL: rum or gin)."""
    authorize(actor, "search.rebuild")
    started = time.monotonic()
    targets = _targets(collections)
    backend = get_search_backend()
    results = []
    if full and collections is None:
        loading = backend.bulk_load(index)
    else:
        if index is not None:
            with transaction.atomic():
                backend.set_index(index)
        loading = nullcontext()
    with loading:
        for collection in targets:
            counts = collection_index(
                collection=collection, full=full, batch_size=batch_size, progress=progress
            )
            if counts.searchable:
                _record(counts, collection)
            results.append(counts)
    if any(counts.written or counts.removed for counts in results):
        backend.after_rebuild()
    return {
        "collections": [counts.as_dict() for counts in results],
        "entries": sum(counts.entries for counts in results),
        "documents": sum(counts.documents for counts in results),
        "written": sum(counts.written for counts in results),
        "removed": sum(counts.removed for counts in results),
        "seconds": round(time.monotonic() - started, 3),
    }


# --- rebuild jobs: the same rebuild, run by the worker, with its progress stored --------------------------------------


@transaction.atomic
def search_rebuild_job_create(
    *, actor: Actor, collections: list[str] | None = None, full: bool = False
) -> SearchRebuildJob:
    """Queue a rebuild for ``manage.py worker``. One rebuild at a time: while one waits or runs, asking again
    answers that one (two rebuilds of the same index would only redo each other's work). A job left running by a
    dead worker (its lease expired) is not running: it fails, superseded by the new one, so that no worker starts
    it again and this request's collections and ``full`` are what runs."""
    authorize(actor, "search.rebuild")
    targets = _targets(collections)
    active = list(
        SearchRebuildJob.objects.select_for_update()
        .filter(state__in=(RebuildJobState.QUEUED, RebuildJobState.RUNNING))
        .order_by("created_at")
    )
    stale = [job for job in active if REBUILD_JOB_LEASE.expired(job)]
    live = [job for job in active if job not in stale]
    if live:
        return live[0]
    job = SearchRebuildJob.objects.create(
        full=full,
        collections=None if collections is None else [collection.slug for collection in targets],
        total=Entry.objects.filter(collection__in=targets).count(),
        requested_by=actor.user,
    )
    enqueue(search_rebuild_jobs)
    for dead in stale:
        # Conditional on the lease read: a worker taking the job over at this moment keeps it, and then two
        # rebuilds run one after the other, which is wasteful but correct (rebuilds are idempotent).
        REBUILD_JOB_LEASE.release(
            dead.pk,
            dead.lease_renewed_at,
            state=RebuildJobState.FAILED,
            error=f"Its worker stopped before it finished; superseded by rebuild {job.pk}.",
            finished_at=now(),
        )
    return job


def search_rebuild_jobs_run() -> int:
    """One worker pass: run the oldest queued rebuild to its end, or take over one whose worker died (its lease
    expired) and start it again from the beginning (docs/decisions.md, Search). Entries done are stored after each
    batch (outside the batches' transactions, so readers see them at once), renewing the job's lease; a worker that
    finds its job taken over meanwhile stops. Returns how many jobs ran."""
    claimed = REBUILD_JOB_LEASE.claim(started_at=now(), done=0, error="", result=None)
    if claimed is None:
        return 0
    job_id, stamp = claimed
    job = SearchRebuildJob.objects.get(pk=job_id)
    lease = [stamp]
    finished: dict[str, int] = {}

    def progress(counts: CollectionCounts, total: int) -> None:
        finished[counts.collection] = counts.entries
        renewed = REBUILD_JOB_LEASE.renew(job.pk, lease[0], done=sum(finished.values()))
        if renewed is None:
            raise LeaseLost(job.pk)
        lease[0] = renewed

    try:
        result = search_rebuild(
            actor=Actor.system(), collections=job.collections, full=job.full, progress=progress
        )
    except LeaseLost:
        log.warning("search rebuild %s was taken over by another worker; this one stops", job.pk)
        return 1
    except Exception as exc:  # the job records why it stopped; the worker goes on with its other tasks
        log.exception("search rebuild %s failed", job.pk)
        REBUILD_JOB_LEASE.release(
            job.pk,
            lease[0],
            state=RebuildJobState.FAILED,
            error=str(exc) or type(exc).__name__,
            finished_at=now(),
        )
        return 1
    REBUILD_JOB_LEASE.release(
        job.pk,
        lease[0],
        state=RebuildJobState.DONE,
        done=result["entries"],
        total=max(job.total, result["entries"]),
        result=result,
        finished_at=now(),
    )
    return 1
