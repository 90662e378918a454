"""What one run of an import job knows, shared by its phases: the job and its options, the collections and terms
found or made so far, the counters and warnings of its summary, and the import records read or waiting to be
written. A phase is behaviour over this state; a batch that is rolled back puts the state back as it was
(``checkpoint`` / ``restore``), since its caches would otherwise name rows that were never committed."""

from __future__ import annotations

import copy
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import orjson
import xxhash
from django.conf import settings
from django.db import transaction

from apps.accounts.models import User
from apps.accounts.permissions import Actor
from apps.background.registry import STOPPING
from apps.core.errors import CmsError
from apps.core.timefmt import now
from apps.importer import registry
from apps.importer.analysis import INTERNAL_TYPES
from apps.importer.items import JSON_DUMPS, Author, ImportItem
from apps.importer.models import JOB_LEASE, ImportJob, ImportRecord
from apps.importer.slugs import BatchSlugs
from apps.importer.storage import StoredExport, stored_records
from apps.media.models import MediaItem
from apps.schema.models import Collection
from apps.taxonomy.models import Taxonomy

T = TypeVar("T")
MAX_LISTED = 500
LEASE_RENEWAL_SECONDS = 5.0  # at most; a quarter of CMS_IMPORT_LEASE_SECONDS when that is shorter

# The caches a batch fills, copied before its fast run and put back when that run is rolled back.
_BATCH_CACHES = ("terms", "bylines", "sections", "taxonomies", "attached", "known", "pending")


class OpenReader:
    """A job's source records, read up to its ``position``-th item when its worker slice ended, with the authors
    read so far: the same worker's next slice goes on from there (``apps/importer/jobs.py``). Reading the export
    again from its start meant parsing and converting every item already imported just to skip it, so each slice
    began with a pause that grew with the cursor."""

    def __init__(self) -> None:
        self.records: Iterator[Any] | None = None
        self.position = 0
        self.authors: dict[str, Author] = {}

    def close(self) -> None:
        records, self.records = self.records, None
        close = getattr(records, "close", None)
        if close is not None:
            close()  # a read-ahead reader's process ends with it


@dataclass(eq=False)
class RunState:
    job: ImportJob
    # The job's source, and what it reads: the stored export for WXR, ``{url, accessToken}`` for a remote site.
    source: Any
    input: Any
    progress: Callable[[int, str], None] | None = None
    # time.monotonic() after which the items phase hands the job back to the queue (worker slices).
    deadline: float | None = None
    # Where the slice's records come from and, when it ends, go: the worker keeps them for the next slice.
    reader: OpenReader | None = None
    system: Actor = field(default_factory=Actor.system)
    renewed: float = field(default_factory=time.monotonic)
    # Whether the current batch gives each item a savepoint of its own (see ``items``).
    careful: bool = True
    slugs: BatchSlugs = field(default_factory=lambda: BatchSlugs([], []))
    collections: dict[str, Collection] = field(default_factory=dict)
    fields: dict[str, set[str]] = field(default_factory=dict)
    taxonomies: dict[str, Taxonomy] = field(default_factory=dict)
    attached: set[tuple[str, str]] = field(default_factory=set)
    terms: dict[tuple[str, str], str] = field(default_factory=dict)
    bylines: dict[str, tuple[str, User | None]] = field(default_factory=dict)
    authors: dict[str, Author] = field(default_factory=dict)
    sections: dict[str, str] = field(default_factory=dict)
    counters: Counter = field(default_factory=Counter)
    per_collection: dict[str, Counter] = field(default_factory=dict)
    warnings: list[dict[str, Any]] = field(default_factory=list)
    warning_count: int = 0
    failed: list[dict[str, Any]] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)
    media: dict[str, Any] = field(default_factory=dict)
    # Records written during the current transaction, flushed in one statement (see ``flush``).
    pending: dict[tuple[str, str], ImportRecord] = field(default_factory=dict)
    known: dict[tuple[str, str], ImportRecord | None] = field(default_factory=dict)
    attachment_urls: dict[str, str] | None = None
    media_ids: dict[str, str] | None = None

    @classmethod
    def of(
        cls,
        job: ImportJob,
        progress: Callable[[int, str], None] | None = None,
        deadline: float | None = None,
        reader: OpenReader | None = None,
    ) -> RunState:
        """The state a run of ``job`` starts from: its counters and summary as its last run left them."""
        summary = job.summary or {}
        warnings = list(summary.get("warnings", []))
        analysis = job.analysis
        return cls(
            job=job,
            source=registry.get_source(job.source),
            input=(
                StoredExport(analysis.file)
                if analysis and analysis.file
                else (analysis.source_input if analysis else None)
            ),
            progress=progress,
            deadline=deadline,
            reader=reader,
            counters=Counter(job.counters.get("kinds", {})),
            per_collection={
                name: Counter(values) for name, values in job.counters.get("collections", {}).items()
            },
            warnings=warnings,
            warning_count=summary.get("warningCount", len(warnings)),
            failed=list(summary.get("failed", [])),
            skipped=Counter(job.counters.get("skipped", {})),
            media=summary.get("media", {}),
        )

    @property
    def options(self) -> dict[str, Any]:
        return self.job.options

    @property
    def site(self) -> str:
        return self.options["site"]

    @property
    def owner(self) -> User | None:
        return self.job.created_by

    @property
    def mappings(self) -> dict[str, dict[str, Any]]:
        return self.options.get("postTypeMappings", {})

    def read_source(self) -> Iterator[Any]:
        """The source's records from its start; an uploaded export is read through the import storage."""
        if isinstance(self.input, StoredExport):
            return stored_records(self.source.fetch, self.input.name)
        return iter(self.source.fetch(self.input))

    def load_collections(self) -> None:
        for name, mapping in self.mappings.items():
            if not mapping.get("enabled", True):
                continue
            collection = Collection.objects.get(slug=mapping["collection"])
            self.collections[name] = collection
            self.fields[name] = set(collection.fields.values_list("slug", flat=True))

    # --- the summary ------------------------------------------------------------------------------------------------

    def warn(self, code: str, message: str, **extra: Any) -> None:
        self.warning_count += 1
        if len(self.warnings) < MAX_LISTED:
            self.warnings.append({"code": code, "message": message, **extra})

    def failure(self, item: ImportItem, why: str, entry_id: str | None = None) -> None:
        """An item that could not be imported, listed in the summary with the draft that holds it, if any."""
        self.counters["failed"] += 1
        if len(self.failed) < MAX_LISTED:
            self.failed.append(
                {
                    "sourceId": item.source_id,
                    "postType": item.post_type,
                    "title": item.title,
                    "reason": why,
                    "entryId": entry_id,
                    "line": item.line,
                }
            )

    def _snapshot(self) -> dict[str, Any]:
        return {
            "kinds": dict(self.counters),
            "collections": {name: dict(values) for name, values in self.per_collection.items()},
            "skipped": dict(self.skipped),
        }

    def summary(self) -> dict[str, Any]:
        analysis = self.job.analysis.result if self.job.analysis else {}
        skipped = [
            {"postType": name, "count": count, "reason": "WordPress-internal type"}
            for name, count in sorted(self.skipped.items())
            if name in INTERNAL_TYPES
        ] + [
            {"postType": name, "count": count, "reason": "Not enabled in postTypeMappings"}
            for name, count in sorted(self.skipped.items())
            if name not in INTERNAL_TYPES
        ]
        return {
            "imported": {name: dict(values) for name, values in sorted(self.per_collection.items())},
            "kinds": dict(sorted(self.counters.items())),
            "warnings": self.warnings,
            "warningCount": self.warning_count,
            "failed": self.failed,
            "skipped": skipped,
            "media": self.media,
            "site": (analysis.get("site") or {}).get("title", ""),
        }

    def save(self, **changes: Any) -> None:
        self.flush()
        for name, value in changes.items():
            setattr(self.job, name, value)
        self.job.counters = self._snapshot()
        self.job.summary = self.summary()
        self.job.save()

    # --- a batch's runs ---------------------------------------------------------------------------------------------

    def checkpoint(self) -> dict[str, Any]:
        """What a batch's fast run may change here, for ``restore`` when that run is rolled back."""
        saved = {name: copy.copy(getattr(self, name)) for name in _BATCH_CACHES}
        saved.update(
            counters=Counter(self.counters),
            per_collection={name: Counter(values) for name, values in self.per_collection.items()},
            warnings=list(self.warnings),
            warning_count=self.warning_count,
            failed=list(self.failed),
            skipped=Counter(self.skipped),
            attachment_urls=copy.copy(self.attachment_urls),
            media_ids=copy.copy(self.media_ids),
        )
        return saved

    def restore(self, saved: dict[str, Any]) -> None:
        for name, value in saved.items():
            setattr(self, name, value)

    def row(self, write: Callable[[], T]) -> T | CmsError:
        """One item's writes in the current batch. In the batch's careful run they get a savepoint of their own, and
        a refusal (``CmsError``) is rolled back alone and answered, for the item to fail alone. In its fast run they
        share the batch's transaction: a refusal is raised and the whole batch is redone carefully (``Items``)."""
        if not self.careful:
            with transaction.atomic(savepoint=False):
                return write()
        return attempt(write)

    # --- the job's lease --------------------------------------------------------------------------------------------

    def keep_alive(self) -> None:
        """Outside any batch, in work that commits nothing for long (reading the export up to the cursor, media
        downloads): renew the job's lease every few seconds, or another worker would take the job for a dead
        worker's and run it too; its ``updatedAt`` shows it moving meanwhile."""
        if self.renewal_due():
            JOB_LEASE.renew(self.job.pk)

    def out_of_time(self) -> bool:
        """The slice is over: its deadline has passed, or the worker running it has been told to stop."""
        if self.deadline is None:
            return False
        return time.monotonic() >= self.deadline or STOPPING.is_set()

    def renewal_due(self) -> bool:
        moment = time.monotonic()
        if moment - self.renewed < min(LEASE_RENEWAL_SECONDS, settings.CMS_IMPORT_LEASE_SECONDS / 4):
            return False
        self.renewed = moment
        return True

    # --- import records ---------------------------------------------------------------------------------------------

    def get(self, kind: str, source_id: Any) -> ImportRecord | None:
        key = (kind, str(source_id))
        if key in self.pending:
            return self.pending[key]
        if key not in self.known:
            self.known[key] = ImportRecord.objects.filter(site=self.site, kind=kind, source_id=key[1]).first()
        return self.known[key]

    def forget(self, kinds: tuple[str, ...]) -> None:
        """Drop the cached records of ``kinds`` (written ones: pending records stay); ``get`` reads them again."""
        self.known = {key: record for key, record in self.known.items() if key[0] not in kinds}

    def put(self, kind: str, source_id: Any, **values: Any) -> ImportRecord:
        key = (kind, str(source_id))
        current = self.pending.get(key) or self.known.get(key)
        record = ImportRecord(
            id=current.pk if current is not None else None,
            site=self.site,
            kind=kind,
            source_id=key[1],
            target_id=values.get("target_id", ""),
            target_type=values.get("target_type", ""),
            checksum=values.get("checksum", ""),
            payload=values.get("payload", {}),
            job=self.job,
        )
        if record.pk is None:
            record.id = ImportRecord._meta.pk.default()
        self.pending[key] = record
        return record

    def flush(self) -> None:
        """Write the pending records in one statement: new ones inserted, known ones updated."""
        if not self.pending:
            return
        moment = now()
        records = list(self.pending.values())
        for record in records:
            record.created_at = record.created_at or moment
            record.updated_at = moment
        ImportRecord.objects.bulk_create(
            records,
            update_conflicts=True,
            unique_fields=["site", "kind", "source_id"],
            update_fields=["target_id", "target_type", "checksum", "payload", "job", "updated_at"],
        )
        self.known.update(self.pending)
        self.pending = {}

    def featured_image(self, attachment_id: Any) -> dict[str, Any] | None:
        """A featured image's value: its imported media item, else its attachment's URL, else nothing yet."""
        media_id = self._media_id(attachment_id)
        if media_id:
            return {"id": media_id}
        url = self._attachment_url(attachment_id)
        return {"url": url} if url else None

    def _attachment_url(self, attachment_id: Any) -> str | None:
        if self.attachment_urls is None:
            self.attachment_urls = {
                source_id: payload.get("url") or ""
                for source_id, payload in ImportRecord.objects.filter(
                    site=self.site, kind="attachment"
                ).values_list("source_id", "payload")
            }
            # Attachments of the current batch are not written yet.
            self.attachment_urls.update(
                (key[1], record.payload.get("url") or "")
                for key, record in self.pending.items()
                if key[0] == "attachment"
            )
        return self.attachment_urls.get(str(attachment_id)) or None

    def _media_id(self, attachment_id: Any) -> str | None:
        if self.media_ids is None:
            # Only items that still exist: an image value naming a deleted one would be refused (the attachment's
            # URL stands in for it instead).
            self.media_ids = dict(
                ImportRecord.objects.filter(site=self.site, kind="media")
                .exclude(target_id="")
                .filter(target_id__in=MediaItem.objects.values("pk"))
                .values_list("source_id", "target_id")
            )
        return self.media_ids.get(str(attachment_id))


def attempt(write: Callable[[], T]) -> T | CmsError:
    """``write()`` in a savepoint of its own: what it answers, or the refusal (``CmsError``) it raised, rolled back."""
    try:
        with transaction.atomic():
            return write()
    except CmsError as error:
        return error


def checksum(item: ImportItem) -> str:
    """The fingerprint of an item's content: an item imported before with the same one is left as it is."""
    data = item.shallow_dict()
    data.pop("line", None)
    if data.get("contentProblem") is None:
        data.pop("contentProblem", None)  # items converted faithfully keep the fingerprints they had
    return xxhash.xxh64_hexdigest(orjson.dumps(data, **JSON_DUMPS))


def reason(error: CmsError) -> str:
    # A ValidationError's message already summarises its details; a generic message does not.
    if isinstance(error.details, dict) and error.details and error.message == type(error).default_message:
        return f"{error.message} ({'; '.join(f'{k}: {v}' for k, v in error.details.items())})"
    return error.message
