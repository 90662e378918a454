"""Running an import job: the source's records become entries, terms, bylines, sections, menus and media.

A job goes through phases, each safe to run again: ``prepare`` (collections, fields and taxonomies), ``terms``
(the export's categories, tags and other terms, parents before children), ``items`` (every source item in document
order), ``links`` (what could only be resolved once every item was in: featured images, reusable-block references,
menus) and ``media`` (when asked). Items are committed in batches together with the job's cursor, each item in its
own savepoint: an item that fails becomes a draft holding its original content in ``_importError`` (SPEC §7) and the
batch goes on; a crash or a lost database connection loses at most the uncommitted batch, which a resume redoes.

Every source item is recorded with what it became (``ImportRecord``) and a fingerprint of its content, so running the
same import again skips unchanged items and updates changed ones instead of duplicating them.
"""

from __future__ import annotations

import copy
import logging
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import unquote

import orjson
import xxhash
from django.conf import settings
from django.db import (
    DatabaseError,
    IntegrityError,
    InterfaceError,
    OperationalError,
    close_old_connections,
    connection,
    transaction,
)
from django.db.transaction import TransactionManagementError

from apps.accounts.models import User
from apps.accounts.permissions import Actor
from apps.content import services as content_services
from apps.content.models import Byline, Entry, Status
from apps.core.errors import CmsError
from apps.core.memory import bulk_work
from apps.core.slugs import slugify
from apps.core.timefmt import now
from apps.importer import registry, services
from apps.importer.analysis import INTERNAL_TYPES, is_content_taxonomy
from apps.importer.items import JSON_DUMPS, Author, ImportItem, Notice, SiteInfo, Skipped, Term
from apps.importer.models import ImportJob, ImportRecord, JobState
from apps.importer.navigation import navigation_items
from apps.importer.slugs import BatchSlugs, base_slug
from apps.menus import services as menu_services
from apps.menus.models import Menu, MenuItem
from apps.schema.models import Collection
from apps.site import services as site_services
from apps.site.models import Section, SectionSource
from apps.taxonomy import services as taxonomy_services
from apps.taxonomy.models import Taxonomy
from apps.taxonomy.models import Term as TaxonomyTerm

logger = logging.getLogger("cms.importer")

PHASES = ("start", "terms", "items", "links", "media", "done")
MAX_LISTED = 500
LEASE_RENEWAL_SECONDS = 5.0  # at most; a quarter of CMS_IMPORT_LEASE_SECONDS when that is shorter
DB_LOST = (OperationalError, InterfaceError)


class _Yield(Exception):
    """The worker's time slice is over: the job goes back to the queue at its cursor, so other work runs too."""


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


class _Careful(Exception):
    """An item failed in a batch run without savepoints: the batch is redone with one savepoint per item."""


@contextmanager
def _without_savepoints():
    """Inner ``atomic`` blocks of the services create no savepoints while this is active (Django asks
    ``features.uses_savepoints`` before each). Only for batches that are redone carefully when anything fails."""
    features = connection.features
    before = features.uses_savepoints
    features.uses_savepoints = False
    try:
        yield
    finally:
        features.uses_savepoints = before


def _checksum(item: ImportItem) -> str:
    data = item.shallow_dict()
    data.pop("line", None)
    if data.get("contentProblem") is None:
        data.pop("contentProblem", None)  # items converted faithfully keep the fingerprints they had
    return xxhash.xxh64_hexdigest(orjson.dumps(data, **JSON_DUMPS))


def taxonomy_name(wp_name: str) -> str:
    name = "".join(ch if ch.isalnum() else "_" for ch in wp_name.lower()).strip("_")
    if not name or not name[0].isalpha():
        name = f"wp_{name}"
    return name[:63]


class Runner:
    def __init__(
        self,
        job: ImportJob,
        progress: Callable[[int, str], None] | None = None,
        deadline: float | None = None,
        reader: OpenReader | None = None,
    ):
        self.job = job
        self.progress = progress
        # time.monotonic() after which the items phase hands the job back to the queue (worker slices).
        self.deadline = deadline
        # Where the slice's records come from and, when it ends, go: the worker keeps them for the next slice.
        self.reader = reader
        self.renewed = time.monotonic()
        self.careful = True
        self.slugs = BatchSlugs([], [])
        self.system = Actor.system()
        self.options = job.options
        self.site: str = self.options["site"]
        self.owner = job.created_by
        self.mappings: dict[str, dict[str, Any]] = self.options.get("postTypeMappings", {})
        self.source = registry.get_source(job.source)
        analysis = job.analysis
        # A file for WXR; what a remote source reads ({url, accessToken}) otherwise.
        self.input = (
            services.analysis_path(analysis)
            if analysis and analysis.file
            else (analysis.source_input if analysis else None)
        )
        self.collections: dict[str, Collection] = {}
        self.fields: dict[str, set[str]] = {}
        self.taxonomies: dict[str, Taxonomy] = {}
        self.attached: set[tuple[str, str]] = set()
        self.terms: dict[tuple[str, str], str] = {}
        self.term_parents: dict[tuple[str, str], str] = {}
        self.bylines: dict[str, tuple[str, User | None]] = {}
        self.authors: dict[str, Author] = {}
        self.sections: dict[str, str] = {}
        self.counters: Counter = Counter(job.counters.get("kinds", {}))
        self.per_collection: dict[str, Counter] = {
            name: Counter(values) for name, values in job.counters.get("collections", {}).items()
        }
        summary = job.summary or {}
        self.warnings: list[dict[str, Any]] = list(summary.get("warnings", []))
        self.warning_count: int = summary.get("warningCount", len(self.warnings))
        self.failed: list[dict[str, Any]] = list(summary.get("failed", []))
        self.skipped: Counter = Counter(job.counters.get("skipped", {}))
        self.media: dict[str, Any] = summary.get("media", {})
        # Records written during the current transaction, flushed in one statement (see ``flush``).
        self.pending: dict[tuple[str, str], ImportRecord] = {}
        self.known: dict[tuple[str, str], ImportRecord | None] = {}
        self.attachment_urls: dict[str, str] | None = None
        self.media_ids: dict[str, str] | None = None

    # --- bookkeeping ------------------------------------------------------------------------------------------------

    def warn(self, code: str, message: str, **extra: Any) -> None:
        self.warning_count += 1
        if len(self.warnings) < MAX_LISTED:
            self.warnings.append({"code": code, "message": message, **extra})

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

    # --- records ----------------------------------------------------------------------------------------------------

    def get(self, kind: str, source_id: Any) -> ImportRecord | None:
        key = (kind, str(source_id))
        if key in self.pending:
            return self.pending[key]
        if key not in self.known:
            self.known[key] = ImportRecord.objects.filter(site=self.site, kind=kind, source_id=key[1]).first()
        return self.known[key]

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
            self.media_ids = dict(
                ImportRecord.objects.filter(site=self.site, kind="media")
                .exclude(target_id="")
                .values_list("source_id", "target_id")
            )
        return self.media_ids.get(str(attachment_id))

    # --- running ----------------------------------------------------------------------------------------------------

    def run(self) -> ImportJob:
        job = self.job
        self.save(state=JobState.RUNNING, started_at=job.started_at or now(), error=None)
        try:
            start = PHASES.index(job.phase) if job.phase in PHASES else 0
            if start > PHASES.index("terms"):
                self._load_collections()
            for phase in PHASES[max(start, 1) : -1]:
                if phase == "terms":
                    self.save(phase="terms")
                    self.phase_prepare()
                    self.phase_terms()
                    self.save(phase="items")
                elif phase == "items":
                    self.phase_items()
                    self.save(phase="links")
                elif phase == "links":
                    self.phase_links()
                    self.save(phase="media")
                elif phase == "media" and self.options.get("includeMedia"):
                    self.phase_media()
            self.save(phase="done", state=JobState.COMPLETED, finished_at=now())
            analysis = self.job.analysis
            if analysis is not None and analysis.source_input.get("accessToken"):
                # The token was needed to resume; a completed import keeps no credentials.
                analysis.source_input = {k: v for k, v in analysis.source_input.items() if k != "accessToken"}
                analysis.save(update_fields=["source_input", "updated_at"])
        except _Yield:
            # A worker that keeps the job's reader keeps the job (its lease) for its next slice.
            kept = self.reader is not None and self.reader.records is not None
            self.save(state=JobState.RUNNING if kept else JobState.QUEUED)
        except DB_LOST as error:
            self._stop(JobState.PAUSED, "DATABASE_UNAVAILABLE", f"The database connection was lost: {error}")
        except CmsError as error:
            self._stop(JobState.FAILED, error.code, error.message, error.details)
        except Exception as error:
            logger.exception("import job failed", extra={"job": job.pk})
            self._stop(JobState.FAILED, "IMPORT_ERROR", f"The import stopped: {error}")
        return self.job

    def _stop(self, state: str, code: str, message: str, details: Any = None) -> None:
        error = {"code": code, "message": message, "details": details or {}}
        self.job.state = state
        self.job.error = error
        if code == "DATABASE_UNAVAILABLE" and not transaction.get_connection().in_atomic_block:
            # The connection itself failed: record why on a fresh one.
            close_old_connections()
            from django.db import connection

            connection.close()
        try:
            ImportJob.objects.filter(pk=self.job.pk).update(state=state, error=error, updated_at=now())
        except DatabaseError:
            logger.exception("could not record the import job's state", extra={"job": self.job.pk})

    def records(self) -> Iterator[Any]:
        return iter(self.source.fetch(self.input))

    # --- prepare ----------------------------------------------------------------------------------------------------

    def phase_prepare(self) -> None:
        wanted = [
            {"name": name, "collection": mapping["collection"], "enabled": mapping.get("enabled", True)}
            for name, mapping in self.mappings.items()
        ]
        created = services.import_prepare(actor=self.system, post_types=wanted)
        made = [item for item in created["collections"] if item["collectionCreated"]]
        if made:
            self.counters["collections"] += len(made)
        self._load_collections()

    def _load_collections(self) -> None:
        for name, mapping in self.mappings.items():
            if not mapping.get("enabled", True):
                continue
            collection = Collection.objects.get(slug=mapping["collection"])
            self.collections[name] = collection
            self.fields[name] = set(collection.fields.values_list("slug", flat=True))

    # --- terms ------------------------------------------------------------------------------------------------------

    def phase_terms(self) -> None:
        header_terms: list[Term] = []
        menus: list[Term] = []
        for record in self.records():
            if isinstance(record, ImportItem):
                break
            if isinstance(record, Author):
                self.authors[record.login] = record
            elif isinstance(record, Term):
                if record.taxonomy == "nav_menu":
                    menus.append(record)
                elif is_content_taxonomy(record.taxonomy):
                    header_terms.append(record)
        with transaction.atomic():
            for menu in menus:
                self.put("menu_term", menu.slug, payload={"name": menu.name or menu.slug})
            if self.options.get("includeTaxonomies", True):
                self._create_terms(header_terms)
            self.flush()

    def _taxonomy(self, wp_name: str, collection: Collection | None = None) -> Taxonomy:
        taxonomy = self.taxonomies.get(wp_name)
        if taxonomy is None:
            name = taxonomy_name(wp_name)
            taxonomy = Taxonomy.objects.filter(name=name).first()
            if taxonomy is None:
                labels = {"category": ("Categories", "Category"), "post_tag": ("Tags", "Tag")}
                label, singular = labels.get(wp_name, (wp_name.replace("_", " ").title(),) * 2)
                analysis = self.job.analysis.result if self.job.analysis else {}
                hierarchical = (
                    any(
                        item["name"] == wp_name and item["hierarchical"]
                        for item in analysis.get("taxonomies", [])
                    )
                    or wp_name == "category"
                )
                users = [
                    self.mappings[post_type]["collection"]
                    for item in analysis.get("taxonomies", [])
                    if item["name"] == wp_name
                    for post_type in item["postTypes"]
                    if self.mappings.get(post_type, {}).get("enabled", True) and post_type in self.mappings
                ]
                taxonomy = taxonomy_services.taxonomy_create(
                    actor=self.system,
                    name=name,
                    label=label,
                    label_singular=singular,
                    hierarchical=hierarchical,
                    collections=sorted(set(users)),
                )
                self.counters["taxonomies"] += 1
            self.taxonomies[wp_name] = taxonomy
            for slug in taxonomy.collections.values_list("slug", flat=True):
                self.attached.add((wp_name, slug))
        if collection is not None and (wp_name, collection.slug) not in self.attached:
            current = list(taxonomy.collections.values_list("slug", flat=True))
            taxonomy = taxonomy_services.taxonomy_update(
                actor=self.system,
                taxonomy=taxonomy,
                changes={"collections": sorted({*current, collection.slug})},
            )
            self.taxonomies[wp_name] = taxonomy
            self.attached.add((wp_name, collection.slug))
        return taxonomy

    def _create_terms(self, terms: list[Term]) -> None:
        """Parents before children, whatever order the file lists them in; a parent the file lacks makes a root."""
        by_key = {(term.taxonomy, term.slug): term for term in terms}
        done: set[tuple[str, str]] = set()

        def create(term: Term, trail: tuple = ()) -> None:
            key = (term.taxonomy, term.slug)
            if key in done:
                return
            done.add(key)
            parent_key = (term.taxonomy, term.parent) if term.parent else None
            if parent_key and parent_key in by_key and parent_key not in trail:
                create(by_key[parent_key], (*trail, key))
            term_id = self._term(term.taxonomy, term.slug, term.name, term.parent, term.description)
            if term.source_id is not None:
                self.put(
                    "term_id",
                    f"{term.taxonomy}:{term.source_id}",
                    target_id=term_id,
                    target_type=self._taxonomy(term.taxonomy).name,
                )

        for term in terms:
            create(term)

    def _term(
        self, wp_taxonomy: str, slug: str, name: str = "", parent: str = "", description: str = ""
    ) -> str:
        key = (wp_taxonomy, slug)
        if key in self.terms:
            return self.terms[key]
        source_id = f"{wp_taxonomy}:{slug}"
        record = self.get("term", source_id)
        if record and TaxonomyTerm.objects.filter(pk=record.target_id).exists():
            self.terms[key] = record.target_id
            return record.target_id
        taxonomy = self._taxonomy(wp_taxonomy)
        parent_id = self.terms.get((wp_taxonomy, parent)) if parent else None
        if parent and parent_id is None:
            parent_record = self.get("term", f"{wp_taxonomy}:{parent}")
            parent_id = parent_record.target_id if parent_record else None
        if parent_id and not taxonomy.hierarchical:
            parent_id = None
        clean = slugify(unquote(slug)) or slugify(name)
        existing = TaxonomyTerm.objects.filter(taxonomy=taxonomy, slug=clean).first() if clean else None
        if existing is not None:
            # A term of that slug exists (made by hand or by an import of another site): use it.
            term_id = existing.pk
        else:
            term = taxonomy_services.term_create(
                actor=self.system,
                taxonomy=taxonomy,
                label=name or unquote(slug),
                slug=clean or None,
                parent_id=parent_id,
                description=description,
            )
            term_id = term.pk
            self.counters["terms"] += 1
        self.put("term", source_id, target_id=term_id, target_type=taxonomy.name)
        self.terms[key] = term_id
        return term_id

    # --- items ------------------------------------------------------------------------------------------------------

    def phase_items(self) -> None:
        batch_size = max(1, settings.CMS_IMPORT_BATCH_SIZE)
        records, position = self._records_from_cursor()
        batch: list[ImportItem] = []
        loose_terms: list[Term] = []
        for record in records:
            if isinstance(record, ImportItem):
                position += 1
                if position <= self.job.cursor:
                    self._alive()
                    continue
                batch.append(record)
                if len(batch) >= batch_size:
                    self._commit(batch, position, loose_terms)
                    batch, loose_terms = [], []
                    if self.deadline is not None and time.monotonic() >= self.deadline:
                        if self.reader is not None:
                            self.reader.records, self.reader.position = records, position
                            self.reader.authors = self.authors
                        raise _Yield()
            elif isinstance(record, Author):
                self.authors.setdefault(record.login, record)
            elif isinstance(record, Term) and position > self.job.cursor:
                if is_content_taxonomy(record.taxonomy) and self.options.get("includeTaxonomies", True):
                    loose_terms.append(record)
            elif isinstance(record, Skipped) and position >= self.job.cursor:
                self.warn("SKIPPED", f"{record.kind} skipped: {record.reason}", line=record.line)
            elif isinstance(record, Notice) and position >= self.job.cursor:
                self.warn(record.code, record.message, line=record.line)
            elif isinstance(record, SiteInfo):
                continue
        self._commit(batch, position, loose_terms)

    def _alive(self) -> None:
        """Outside any batch, in work that commits nothing for long (reading the export up to the cursor, media
        downloads): renew the job's lease every few seconds, or another worker would take the job for a dead
        worker's and run it too; its ``updatedAt`` shows it moving meanwhile."""
        if self._renewal_due():
            ImportJob.objects.filter(pk=self.job.pk).update(updated_at=now())

    def _renewal_due(self) -> bool:
        moment = time.monotonic()
        if moment - self.renewed < min(LEASE_RENEWAL_SECONDS, settings.CMS_IMPORT_LEASE_SECONDS / 4):
            return False
        self.renewed = moment
        return True

    def _records_from_cursor(self) -> tuple[Iterator[Any], int]:
        """The records to read and how many items precede them: the previous slice's open reader when it stopped at
        the cursor, else the source from its start (the items up to the cursor are then read and skipped)."""
        reader = self.reader
        if reader is not None and reader.records is not None:
            if reader.position == self.job.cursor:
                records, reader.records = reader.records, None
                self.authors = {**reader.authors, **self.authors}
                return records, reader.position
            reader.close()
        return self.records(), 0

    def _commit(self, batch: list[ImportItem], position: int, loose_terms: list[Term]) -> None:
        """One batch, committed with the cursor. First without savepoints (each service call would otherwise add a
        SAVEPOINT and a RELEASE, half of all statements); if any item fails, the batch is rolled back and redone
        with a savepoint per item, so the failing item alone becomes a draft with ``_importError``."""
        state = self._state()
        try:
            with transaction.atomic(), _without_savepoints():
                self._batch(batch, loose_terms, careful=False)
                self.save(cursor=position)
        except (_Careful, IntegrityError, TransactionManagementError):
            self._restore(state)
            with transaction.atomic():
                self._batch(batch, loose_terms, careful=True)
                self.save(cursor=position)
        if self.progress is not None:
            self.progress(position, "items")

    def _batch(self, batch: list[ImportItem], loose_terms: list[Term], *, careful: bool) -> None:
        self.careful = careful
        if loose_terms:
            self._create_terms(loose_terms)
        ids = [str(item.source_id) for item in batch]
        for kind in ("entry", "section"):
            for source_id in ids:
                self.known.setdefault((kind, source_id), None)
        for record in ImportRecord.objects.filter(
            site=self.site, kind__in=("entry", "section"), source_id__in=ids
        ):
            self.known[(record.kind, record.source_id)] = record
        self._prefetch_slugs(batch)
        wanted = set(ids)
        records = {key: value for key, value in self.known.items() if key[1] in wanted and value is not None}
        # New plain entries are created together; the rest one by one, in document order.
        simple = [item for item in batch if self._simple(item, records)] if not careful else []
        if simple:
            self._bulk(simple)
        chosen = {id(item) for item in simple}
        for item in batch:
            if id(item) not in chosen:
                self._item(item, records)

    def _prefetch_slugs(self, batch: list[ImportItem]) -> None:
        """Which of the batch's slugs are taken, in one query, so most items need no slug query of their own."""
        self.slugs = BatchSlugs([collection.pk for collection in self.collections.values()], batch)

    def _state(self) -> dict[str, Any]:
        names = ("terms", "bylines", "sections", "taxonomies", "attached", "known", "pending")
        state = {name: copy.copy(getattr(self, name)) for name in names}
        state.update(
            counters=Counter(self.counters),
            per_collection={name: Counter(values) for name, values in self.per_collection.items()},
            warnings=list(self.warnings),
            warning_count=self.warning_count,
            failed=list(self.failed),
            skipped=Counter(self.skipped),
            attachment_urls=copy.copy(self.attachment_urls),
            media_ids=copy.copy(self.media_ids),
        )
        return state

    def _restore(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)

    def _failed_fast(self) -> None:
        """In a batch without savepoints a failed write spoils the transaction: start the batch over, carefully."""
        if not self.careful:
            raise _Careful()

    def _item(self, item: ImportItem, records: dict) -> None:
        post_type = item.post_type
        if post_type in INTERNAL_TYPES:
            self.skipped[post_type] += 1
        elif post_type == "attachment":
            if self.attachment_urls is not None:
                self.attachment_urls[str(item.source_id)] = item.attachment_url or item.guid
            self.put(
                "attachment",
                item.source_id,
                payload={
                    "url": item.attachment_url or item.guid,
                    "title": item.title,
                    "parent": item.parent_id,
                },
            )
            self.counters["attachments"] += 1
        elif post_type == "nav_menu_item":
            self._menu_item_source(item)
        elif post_type == "wp_navigation":
            self._navigation_source(item)
        elif post_type == "wp_block":
            self._section(item, records.get(("section", str(item.source_id))))
        elif post_type not in self.collections:
            self.skipped[post_type] += 1
        else:
            self._entry(item, records.get(("entry", str(item.source_id))))

    def _menu_item_source(self, item: ImportItem) -> None:
        menu = item.menu_item
        if menu is None or not self.options.get("includeMenus", True):
            return
        # Keyed by menu and post id: exports are known to repeat a menu item's post id in another menu.
        for slug in menu.menus:
            self.put(
                "menu_item_source",
                f"{slug}:{item.source_id}",
                payload=self._menu_payload(item, slug),
            )

    def _navigation_source(self, item: ImportItem) -> None:
        """A block theme's navigation (a ``wp_navigation`` post) is a menu like a classic one: its links become items
        built in the links phase, keyed by the post and the link's place in it (docs/decisions.md, "Import
        pipeline")."""
        if not self.options.get("includeMenus", True):
            return
        title = item.title or item.slug or f"Navigation {item.source_id}"
        if item.status != "publish":
            self.warn(
                "MENU_SKIPPED",
                f"Navigation {item.source_id} '{title}' is {item.status or 'unpublished'} in WordPress; not made a menu.",
                sourceId=item.source_id,
            )
            return
        key = f"wp_navigation:{item.source_id}"
        self.put("menu_term", key, payload={"name": title, "slug": base_slug(item) or "navigation"})
        links, others = navigation_items(item.raw_content)
        for payload in links:
            self.put("menu_item_source", f"{key}:{payload['id']}", payload={**payload, "menu": key})
        for name in others:
            self.warn(
                "MENU_ITEM_SKIPPED",
                f"Navigation {item.source_id} '{title}' holds a {name} block, which is no menu item; left out.",
                sourceId=item.source_id,
            )

    @staticmethod
    def _menu_payload(item: ImportItem, slug: str) -> dict[str, Any]:
        menu = item.menu_item
        return {
            "menu": slug,
            "id": item.source_id,
            "type": menu.type,
            "object": menu.object,
            "objectId": menu.object_id,
            "parentId": menu.parent_id,
            "url": menu.url,
            "title": item.title,
            "order": item.menu_order,
        }

    # --- sections (wp_block) ----------------------------------------------------------------------------------------

    def _section(self, item: ImportItem, record: ImportRecord | None) -> None:
        checksum = _checksum(item)
        section = Section.objects.filter(pk=record.target_id).first() if record else None
        if section is not None and record.checksum == checksum:
            self.counters["sectionsUnchanged"] += 1
            return
        title = item.title or f"Reusable block {item.source_id}"
        content = item.content if item.content is not None else []
        if item.content_problem:
            self.warn(
                item.content_problem["code"],
                f"Reusable block {item.source_id} '{item.title}': {item.content_problem['message']}",
                sourceId=item.source_id,
            )
        try:
            with transaction.atomic():
                if section is None:
                    section = site_services.section_create(
                        actor=self.system,
                        title=title,
                        slug=self._free_section_slug(item.slug or title),
                        content=content,
                        source=SectionSource.IMPORT,
                    )
                    self.counters["sections"] += 1
                else:
                    section = site_services.section_update(
                        actor=self.system, section=section, changes={"title": title, "content": content}
                    )
                    self.counters["sectionsUpdated"] += 1
        except CmsError as error:
            self._failed_fast()
            self._fail(item, _reason(error), None)
            return
        self.put("section", item.source_id, target_id=section.pk, checksum=checksum)
        self.sections[str(item.source_id)] = section.pk

    def _free_section_slug(self, base: str) -> str:
        from apps.core.slugs import free_slug

        return free_slug(Section.objects.all(), slugify(base) or "section")

    def _section_id(self, ref: Any) -> str | None:
        key = str(ref)
        if key not in self.sections:
            record = self.get("section", key)
            if record is None:
                return None
            self.sections[key] = record.target_id
        return self.sections[key]

    def _resolve_sections(self, blocks: Any) -> tuple[Any, bool]:
        """Blocks with ``sectionId`` added to reusable-block references; whether any reference is still open."""
        # Most posts reference no reusable block, and orjson finds that out far faster than a walk in Python (the walk
        # copied every post's tree). A string that merely equals the type's name only costs the walk.
        if b'"sectionReference"' not in orjson.dumps(blocks, **JSON_DUMPS):
            return blocks, False
        pending = False

        def walk(value: Any) -> Any:
            nonlocal pending
            if isinstance(value, list):
                return [walk(item) for item in value]
            if isinstance(value, dict):
                if value.get("_type") == "sectionReference" and value.get("ref") is not None:
                    section_id = self._section_id(value["ref"])
                    if section_id is None:
                        pending = True
                        return value
                    return {**value, "sectionId": section_id}
                return {key: walk(item) for key, item in value.items()}
            return value

        return walk(blocks), pending

    # --- entries ----------------------------------------------------------------------------------------------------

    def _locale(self, item: ImportItem) -> str | None:
        if item.language is None:
            return None
        code = item.language.code
        locales = settings.CMS_LOCALES
        for candidate in (code, code.replace("_", "-"), code.split("_")[0].split("-")[0]):
            if candidate in locales:
                return candidate
        self.warn(
            "UNKNOWN_LOCALE",
            f"Item {item.source_id} is in '{code}', which is not a configured locale; imported in "
            f"'{settings.CMS_DEFAULT_LOCALE}'.",
            sourceId=item.source_id,
        )
        return None

    def _byline(self, login: str) -> tuple[str, User | None]:
        if login in self.bylines:
            return self.bylines[login]
        record = self.get("byline", login)
        byline = Byline.objects.filter(pk=record.target_id).first() if record else None
        author = self.authors.get(login)
        user = self._mapped_user(login, author)
        if byline is None:
            if user is not None:
                byline = Byline.objects.filter(user=user).order_by("created_at").first()
                if byline is None:
                    byline = content_services.byline_create(
                        actor=self.system,
                        display_name=user.name or (author.display_name if author else "") or login,
                        user=user,
                        email=user.email,
                        slug=self._byline_slug(login, author),
                    )
                    self.counters["bylines"] += 1
            else:
                byline = content_services.byline_create(
                    actor=self.system,
                    display_name=(author.display_name if author else "") or login,
                    is_guest=True,
                    email=(author.email if author else "") or "",
                    slug=self._byline_slug(login, author),
                )
                self.counters["bylines"] += 1
            self.put("byline", login, target_id=byline.pk)
        self.bylines[login] = (byline.pk, user if user is not None else byline.user)
        return self.bylines[login]

    def _byline_slug(self, login: str, author: Author | None) -> str:
        """A declared author's byline gets the login as its slug; an author the export does not declare (a post's
        creator or co-author only) never takes the slug a declared author's login would get, even when its posts come
        first: it gets the next ``-2``, ``-3`` … that no declared login and no byline has."""
        base = slugify(login)
        if author is not None or not base:
            return login
        reserved = {slugify(name) for name in self.authors}
        candidate, number = base, 2
        while candidate in reserved or Byline.objects.filter(slug=candidate).exists():
            candidate, number = f"{base}-{number}", number + 1
        return candidate

    def _mapped_user(self, login: str, author: Author | None) -> User | None:
        wanted = (self.options.get("authorMappings") or {}).get(login)
        if wanted:
            user = User.objects.filter(pk=wanted).first() or User.objects.filter(email__iexact=wanted).first()
            if user is not None:
                return user
            self.warn(
                "UNKNOWN_USER", f"authorMappings names '{wanted}' for '{login}', but no such user exists."
            )
        if author and author.email:
            return User.objects.filter(email__iexact=author.email).first()
        return None

    def _data(self, item: ImportItem, post_type: str) -> tuple[dict[str, Any], bool]:
        fields = self.fields[post_type]
        content, pending = self._resolve_sections(item.content or [])
        data: dict[str, Any] = {}
        if "title" in fields:
            data["title"] = item.title
        if "content" in fields:
            data["content"] = content
        if "excerpt" in fields and item.excerpt:
            data["excerpt"] = item.excerpt
        if "featured_image" in fields and item.featured_image is not None:
            image = self._featured(item.featured_image)
            if image:
                data["featured_image"] = image
        return data, pending

    def _featured(self, attachment_id: int) -> dict[str, Any] | None:
        media_id = self._media_id(attachment_id)
        if media_id:
            return {"id": media_id}
        url = self._attachment_url(attachment_id)
        return {"url": url} if url else None

    def _meta(self, item: ImportItem) -> dict[str, Any]:
        custom = {key: value for key, value in item.meta.items() if not key.startswith("_")}
        source = {
            "source": self.job.source,
            "site": self.site,
            "sourceId": item.source_id,
            "postType": item.post_type,
            "originalStatus": item.status,
            "link": item.link,
            "guid": item.guid,
            "parentId": item.parent_id,
            "menuOrder": item.menu_order,
            "sticky": item.sticky,
            "commentStatus": item.comment_status,
        }
        if item.password:
            source["passwordProtected"] = True
        if custom:
            source["customFields"] = custom
        if item.comments:
            source["comments"] = [comment.to_dict() for comment in item.comments]
        if item.content_problem:
            # SPEC §7: the original is kept beside the text that could be saved.
            return {
                "import": source,
                "_importError": {
                    "message": item.content_problem["message"],
                    "content": item.raw_content,
                    "excerpt": item.excerpt,
                },
            }
        return {"import": source}

    def _entry(self, item: ImportItem, record: ImportRecord | None) -> None:
        post_type = item.post_type
        collection = self.collections[post_type]
        checksum = _checksum(item)
        entry = Entry.objects.filter(pk=record.target_id).first() if record else None
        # An entry imported before stays in its collection, whatever the post type is mapped to now: counted there.
        where = record.target_type if entry is not None and record.target_type else collection.slug
        stats = self.per_collection.setdefault(where, Counter())
        if entry is not None and record.checksum == checksum:
            stats["unchanged"] += 1
            return
        if item.content is None:
            entry_id = self._fail(
                item, item.conversion_error or "The content could not be converted.", collection
            )
            self._record_entry(item, entry_id, collection, checksum, {})
            return
        data, pending = self._data(item, post_type)
        credits, author = self._credits(item)
        payload: dict[str, Any] = {}
        if item.featured_image is not None and "featured_image" in self.fields[post_type]:
            payload["featuredImage"] = item.featured_image
            if "featured_image" not in data:
                # Its attachment comes later in the file: linked once every item is in.
                payload["featuredPending"] = True
        if pending:
            payload["sectionRefs"] = True
        try:
            with transaction.atomic():
                fresh = entry is None
                if fresh:
                    entry = self._create(item, collection, data, credits, author)
                    stats["created"] += 1
                elif entry.deleted_at is not None:
                    # An editor trashed it after the last import: leave it there.
                    stats["unchanged"] += 1
                    return
                else:
                    withheld = self._draft_only(item)
                    republish = item.status == "publish" and entry.status != Status.SCHEDULED and not withheld
                    content_services.entry_update(
                        actor=self.system,
                        entry=entry,
                        data=data,
                        bylines=credits,
                        status=Status.PUBLISHED if republish else None,
                    )
                    stats["updated"] += 1
                self._assign_terms(item, entry, collection, fresh=fresh)
        except CmsError as error:
            self._failed_fast()
            entry_id = self._fail(item, _reason(error), collection)
            self._record_entry(item, entry_id, collection, checksum, {})
            return
        self.counters["entries"] += 1
        self._record_entry(item, entry.pk, collection, checksum, payload)

    def _record_entry(
        self, item: ImportItem, entry_id: str | None, collection: Collection, checksum: str, payload: dict
    ) -> None:
        self.put(
            "entry",
            item.source_id,
            target_id=entry_id or "",
            target_type=collection.slug,
            checksum=checksum if entry_id else "",
            payload=payload,
            job=self.job,
        )
        if item.language and item.language.translation_group and entry_id:
            group = f"{item.language.source}:{item.language.translation_group}"
            if self.get("translation_group", group) is None:
                self.put("translation_group", group, target_id=entry_id)

    def _credits(self, item: ImportItem) -> tuple[list[dict[str, str]] | None, User | None]:
        logins = list(dict.fromkeys(login for login in [item.author, *item.authors] if login))
        credits, owner = [], None
        for login in logins:
            byline_id, user = self._byline(login)
            credits.append({"bylineId": byline_id})
            if owner is None and user is not None:
                owner = user
        return (credits or None), owner

    def _create(
        self,
        item: ImportItem,
        collection: Collection,
        data: dict[str, Any],
        credits: list[dict[str, str]] | None,
        author: User | None,
    ) -> Entry:
        locale = self._locale(item)
        slug = self._slug(item, collection, locale)
        translation_of = None
        if item.language and item.language.translation_group:
            group = self.get("translation_group", f"{item.language.source}:{item.language.translation_group}")
            if group is not None:
                head = Entry.objects.filter(
                    pk=group.target_id, collection=collection, deleted_at__isnull=True
                )
                holder = head.values_list("translation_group", flat=True).first()
                taken = (
                    holder
                    and Entry.objects.filter(
                        translation_group=holder,
                        locale=locale or settings.CMS_DEFAULT_LOCALE,
                        deleted_at__isnull=True,
                    ).exists()
                )
                if holder and not taken:
                    translation_of = group.target_id
        moment = now()
        date = item.date
        status = item.status
        withheld = self._draft_only(item)
        create_status = Status.DRAFT
        published_at = None
        if withheld:
            pass
        elif status == "publish" or (status == "future" and date is not None and date <= moment):
            create_status = Status.PUBLISHED
            published_at = min(date, moment) if date else None
        entry = content_services.entry_create(
            actor=self.system,
            collection=collection,
            data=data,
            slug=slug,
            status=create_status,
            locale=locale,
            translation_of=translation_of,
            bylines=credits,
            author=author or self.owner,
            published_at=published_at,
            meta=self._meta(item),
            # The post's own date, also for a scheduled post (WordPress's date of it is when it goes out).
            created_at=date,
        )
        if status == "future" and create_status == Status.DRAFT and not withheld:
            if date is not None and collection.supports_feature("scheduling"):
                entry = content_services.entry_schedule(actor=self.system, entry=entry, scheduled_at=date)
            else:
                self.warn(
                    "NOT_SCHEDULED",
                    f"Item {item.source_id} was scheduled, but '{collection.slug}' does not support scheduling; "
                    "imported as a draft.",
                    sourceId=item.source_id,
                )
        elif status == "trash":
            entry = content_services.entry_trash(actor=self.system, entry=entry)
        return entry

    def _draft_only(self, item: ImportItem) -> bool:
        """Whether the item is imported as a draft whatever its WordPress status, with a warning naming it
        (docs/decisions.md, "Import pipeline"): its content could not be converted faithfully (SPEC §7: a draft with
        the original in ``_importError``), or WordPress shows it only to some, which the CMS has no status for: a
        private post (editors and its author) or a password-protected one (behind its password)."""
        problem = item.content_problem
        if problem:
            self.warn(
                problem["code"],
                f"Item {item.source_id} '{item.title}': {problem['message']} Imported as a draft with the original "
                "in its meta._importError.",
                sourceId=item.source_id,
            )
        if item.status == "private":
            self.warn(
                "PRIVATE",
                f"Item {item.source_id} '{item.title}' is private in WordPress; imported as a draft so that it does "
                "not become public.",
                sourceId=item.source_id,
            )
            return True
        if item.password and item.status in ("publish", "future"):
            self.warn(
                "PASSWORD_PROTECTED",
                f"Item {item.source_id} '{item.title}' is password-protected in WordPress; imported as a draft so "
                "that it does not become public.",
                sourceId=item.source_id,
            )
            return True
        return bool(problem)

    def _slug(self, item: ImportItem, collection: Collection, locale: str | None) -> str | None:
        free, base = self.slugs.assign(item, collection.pk, locale)
        if base is not None:
            self.warn(
                "SLUG_RENAMED",
                f"The slug '{base}' of item {item.source_id} was taken in '{collection.slug}'; renamed to '{free}'.",
                sourceId=item.source_id,
                slug=free,
            )
        return free

    def _terms_for(self, item: ImportItem, collection: Collection) -> dict[Taxonomy, list[str]]:
        if not self.options.get("includeTaxonomies", True):
            return {}
        wanted: dict[str, list[str]] = {}
        for ref in item.terms:
            if not is_content_taxonomy(ref.taxonomy):
                continue
            term_id = self._term(ref.taxonomy, ref.slug, ref.name)
            ids = wanted.setdefault(ref.taxonomy, [])
            if term_id not in ids:
                ids.append(term_id)
        return {self._taxonomy(wp_name, collection): term_ids for wp_name, term_ids in wanted.items()}

    def _assign_terms(self, item: ImportItem, entry: Entry, collection: Collection, *, fresh: bool) -> None:
        terms = self._terms_for(item, collection)
        taxonomy_services.entry_terms_set_many(actor=self.system, entry=entry, terms=terms, fresh=fresh)

    # --- many new entries at once -----------------------------------------------------------------------------------

    def _simple(self, item: ImportItem, records: dict) -> bool:
        """A new entry with nothing that needs its own steps (scheduling, trash, translations, a failed conversion)."""
        if item.post_type not in self.collections or ("entry", str(item.source_id)) in records:
            return False
        if item.content is None or item.language is not None:
            return False
        if item.status == "future":
            return item.date is not None and item.date <= now()
        return item.status in ("publish", "draft", "pending", "private") and bool(base_slug(item))

    def _bulk(self, items: list[ImportItem]) -> None:
        groups: dict[str, list[tuple[ImportItem, dict[str, Any], dict[str, Any], str]]] = {}
        moment = now()
        for item in items:
            collection = self.collections[item.post_type]
            data, pending = self._data(item, item.post_type)
            credits, author = self._credits(item)
            withheld = self._draft_only(item)
            published = item.status in ("publish", "future") and not withheld
            date = min(item.date, moment) if item.date else None
            row = {
                "data": data,
                "slug": self._slug(item, collection, None),
                "status": Status.PUBLISHED if published else Status.DRAFT,
                "bylines": credits,
                "author": author or self.owner,
                "published_at": date if published else None,
                # The post's own date, as WordPress shows it (a publication is never later than now).
                "created_at": item.date,
                "meta": self._meta(item),
            }
            payload: dict[str, Any] = {}
            if item.featured_image is not None and "featured_image" in self.fields[item.post_type]:
                payload["featuredImage"] = item.featured_image
                if "featured_image" not in data:
                    payload["featuredPending"] = True
            if pending:
                payload["sectionRefs"] = True
            groups.setdefault(item.post_type, []).append((item, row, payload, _checksum(item)))
        for post_type, group in groups.items():
            collection = self.collections[post_type]
            try:
                self._bulk_write(collection, group)
            except CmsError:
                # Something in the batch is refused: redo it one by one, so that item alone fails.
                self._failed_fast()
                raise

    def _bulk_write(self, collection: Collection, group: list) -> None:
        entries = content_services.entry_create_many(
            actor=self.system, collection=collection, rows=[row for _, row, _, _ in group]
        )
        taxonomy_services.entry_terms_add_many(
            actor=self.system,
            assignments=[
                (entry, self._terms_for(item, collection))
                for (item, _, _, _), entry in zip(group, entries, strict=True)
            ],
        )
        stats = self.per_collection.setdefault(collection.slug, Counter())
        for (item, _, payload, checksum), entry in zip(group, entries, strict=True):
            stats["created"] += 1
            self.counters["entries"] += 1
            self._record_entry(item, entry.pk, collection, checksum, payload)

    def _fail(self, item: ImportItem, reason: str, collection: Collection | None) -> str | None:
        """SPEC §7: the item is kept as a draft holding its original content in ``_importError``; the import goes on."""
        entry_id = None
        if collection is not None:
            fields = self.fields.get(item.post_type, set())
            data = {}
            if "title" in fields:
                data["title"] = item.title or f"Untitled {item.post_type} {item.source_id}"
            meta = self._meta(item)
            meta["_importError"] = {"message": reason, "content": item.raw_content, "excerpt": item.excerpt}
            try:
                with transaction.atomic():
                    entry = content_services.entry_create(
                        actor=self.system,
                        collection=collection,
                        data=data,
                        slug=self._slug(item, collection, None),
                        status=Status.DRAFT,
                        author=self.owner,
                        meta=meta,
                    )
                    entry_id = entry.pk
            except CmsError as error:
                self._failed_fast()
                reason = f"{reason}; saving it as a draft failed too: {_reason(error)}"
        self.counters["failed"] += 1
        if len(self.failed) < MAX_LISTED:
            self.failed.append(
                {
                    "sourceId": item.source_id,
                    "postType": item.post_type,
                    "title": item.title,
                    "reason": reason,
                    "entryId": entry_id,
                    "line": item.line,
                }
            )
        return entry_id

    # --- links ------------------------------------------------------------------------------------------------------

    def phase_links(self) -> None:
        with transaction.atomic():
            self._link_pending()
            self.flush()
        if self.options.get("includeMenus", True):
            with transaction.atomic():
                self._menus()
                self.flush()

    def _link_pending(self) -> None:
        waiting = ImportRecord.objects.filter(site=self.site, kind="entry", payload__sectionRefs=True)
        for record in waiting:
            entry = Entry.objects.filter(pk=record.target_id, deleted_at__isnull=True).first()
            if entry is None or "content" not in entry.data:
                continue
            content, pending = self._resolve_sections(entry.data["content"])
            if content != entry.data["content"]:
                services.write_imported_entry(entry, {"content": content})
            if not pending:
                record.payload = {k: v for k, v in record.payload.items() if k != "sectionRefs"}
                record.save(update_fields=["payload", "updated_at"])
        waiting = ImportRecord.objects.filter(site=self.site, kind="entry", payload__featuredPending=True)
        for record in waiting:
            entry = Entry.objects.filter(pk=record.target_id, deleted_at__isnull=True).first()
            if entry is None or entry.data.get("featured_image"):
                continue
            image = self._featured(record.payload["featuredImage"])
            if image:
                services.write_imported_entry(entry, {"featured_image": image})
                record.payload = {k: v for k, v in record.payload.items() if k != "featuredPending"}
                record.save(update_fields=["payload", "updated_at"])

    def _menus(self) -> None:
        sources = list(ImportRecord.objects.filter(site=self.site, kind="menu_item_source"))
        terms = list(ImportRecord.objects.filter(site=self.site, kind="menu_term"))
        names = {record.source_id: record.payload.get("name") or record.source_id for record in terms}
        # A navigation post's menu is named after its slug; a nav_menu term's menu after the term's slug (its key).
        bases = {record.source_id: record.payload.get("slug") or record.source_id for record in terms}
        for record in sources:
            names.setdefault(record.payload["menu"], record.payload["menu"])
        menus: dict[str, Menu] = {}
        for slug, label in sorted(names.items()):
            record = self.get("menu", slug)
            menu = Menu.objects.filter(pk=record.target_id).first() if record else None
            if menu is None:
                name = _menu_name(bases.get(slug, slug))
                base, number = name, 2
                while Menu.objects.filter(name=name).exists():
                    name = f"{base}-{number}"
                    number += 1
                menu = menu_services.menu_create(actor=self.system, name=name, label=label or slug)
                self.put("menu", slug, target_id=menu.pk, target_type=menu.name)
                self.counters["menus"] += 1
            menus[slug] = menu
        made: dict[str, str] = {
            record.source_id: record.target_id
            for record in ImportRecord.objects.filter(site=self.site, kind="menu_item")
            if MenuItem.objects.filter(pk=record.target_id).exists()
        }
        remaining = sorted(sources, key=lambda record: (record.payload.get("order") or 0, record.source_id))
        # Parents before children: each round places the items whose parent is placed (or that have none).
        while remaining:
            progressed, later = False, []
            waiting = {record.source_id for record in remaining}
            for record in remaining:
                parent = _parent_key(record.payload)
                if parent and parent not in made and parent in waiting:
                    later.append(record)
                    continue
                progressed = True
                if record.source_id in made:
                    continue
                item_id = self._menu_item(record, menus, made)
                if item_id:
                    made[record.source_id] = item_id
            if not progressed:
                for record in later:
                    record.payload["parentId"] = None
            remaining = later

    def _menu_item(self, record: ImportRecord, menus: dict[str, Menu], made: dict[str, str]) -> str | None:
        payload = record.payload
        menu = menus[payload["menu"]]
        label = (payload.get("title") or "").strip()
        values: dict[str, Any] = {"label": label, "sort_order": payload.get("order") or 0}
        parent = _parent_key(payload)
        if parent and parent in made:
            values["parent_id"] = made[parent]
        kind, object_id = payload.get("type"), payload.get("objectId")
        target = None
        if kind == "post_type" and object_id is not None:
            target = self.get("entry", object_id)
            if (
                target
                and target.target_id
                and Entry.objects.filter(pk=target.target_id, deleted_at__isnull=True).exists()
            ):
                values.update(
                    type="content", reference_collection=target.target_type, reference_id=target.target_id
                )
            else:
                target = None
        elif kind == "taxonomy" and object_id is not None:
            term = self._term_by_source_id(payload.get("object"), object_id)
            if term is not None:
                values.update(type="taxonomy", reference_collection=term[0], reference_id=term[1])
                target = True
            else:
                target = None
        if target is None:
            url = payload.get("url") or ""
            if not url:
                self.warn(
                    "MENU_ITEM_SKIPPED",
                    f"Menu item {record.source_id} points at {kind} {object_id}, which was not imported.",
                    sourceId=record.source_id,
                )
                return None
            values.update(type="custom", url=url, label=label or url)
        try:
            with transaction.atomic():
                item = menu_services.menu_item_create(actor=self.system, menu=menu, values=values)
        except CmsError as error:
            self.warn(
                "MENU_ITEM_SKIPPED",
                f"Menu item {record.source_id}: {_reason(error)}",
                sourceId=record.source_id,
            )
            return None
        self.put("menu_item", record.source_id, target_id=item.pk, target_type=menu.name)
        self.counters["menuItems"] += 1
        return item.pk

    def _term_by_source_id(self, wp_taxonomy: str | None, term_source_id: Any) -> tuple[str, str] | None:
        # WXR names menu targets by term id; terms are recorded by slug, with their id kept on the term record.
        record = ImportRecord.objects.filter(
            site=self.site, kind="term_id", source_id=f"{wp_taxonomy}:{term_source_id}"
        ).first()
        if record is None:
            return None
        return record.target_type, record.target_id

    # --- media ------------------------------------------------------------------------------------------------------

    def phase_media(self) -> None:
        attachments = [
            {"id": record.source_id, "url": record.payload.get("url")}
            for record in ImportRecord.objects.filter(site=self.site, kind="attachment").order_by("source_id")
            if record.payload.get("url")
        ]

        def downloaded(event: dict[str, Any]) -> None:
            # The job's answer shows the downloads going on (each can take seconds), and its lease is renewed.
            if self._renewal_due():
                self.media = {"current": event["current"], "total": event["total"]}
                self.save()

        result = services.media_import(
            actor=self.system, attachments=attachments, site=self.site, progress=downloaded
        )
        self.media = {"imported": result["imported"], "failed": result["failed"][:MAX_LISTED]}
        self.counters["media"] = result["imported"]
        if result["urlMap"]:
            rewritten = services.rewrite_urls(actor=self.system, url_map=result["urlMap"])
            self.media["urlsRewritten"] = rewritten["urlsReplaced"]


def _menu_name(name: str) -> str:
    slug = slugify(name)[:60] or "menu"
    return slug if slug[0].isalpha() else f"menu-{slug}"


def _parent_key(payload: dict[str, Any]) -> str | None:
    parent = payload.get("parentId")
    return f"{payload['menu']}:{parent}" if parent else None


def _reason(error: CmsError) -> str:
    # A ValidationError's message already summarises its details; a generic message does not.
    if isinstance(error.details, dict) and error.details and error.message == type(error).default_message:
        return f"{error.message} ({'; '.join(f'{k}: {v}' for k, v in error.details.items())})"
    return error.message


def run_job(
    job: ImportJob,
    progress: Callable[[int, str], None] | None = None,
    deadline: float | None = None,
    reader: OpenReader | None = None,
) -> ImportJob:
    with bulk_work():
        return Runner(job, progress=progress, deadline=deadline, reader=reader).run()
