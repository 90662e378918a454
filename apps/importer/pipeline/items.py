"""The items phase: every source item in document order, committed in batches together with the job's cursor.

A batch first runs with no savepoint per item; when an item is refused in it, it is rolled back and redone with a
savepoint per item, so that the refused item alone becomes a draft with ``_importError`` (SPEC §7) and the batch
goes on. A crash or a lost database connection loses at most the uncommitted batch, which a resume redoes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.transaction import TransactionManagementError

from apps.core import metrics
from apps.core.errors import CmsError
from apps.importer.analysis import INTERNAL_TYPES, is_content_taxonomy
from apps.importer.items import Author, ImportItem, Notice, SiteInfo, Skipped, Term
from apps.importer.models import ImportRecord
from apps.importer.pipeline.entries import Entries
from apps.importer.pipeline.menus import Menus
from apps.importer.pipeline.sections import Sections
from apps.importer.pipeline.state import RunState
from apps.importer.pipeline.terms import Terms
from apps.importer.slugs import BatchSlugs

# Records there is one of per item of the export (or per translation group): cached for their batch only.
ITEM_KINDS = ("entry", "section", "attachment", "translation_group")


class Items:
    def __init__(
        self, state: RunState, terms: Terms, sections: Sections, entries: Entries, menus: Menus
    ) -> None:
        self.state = state
        self.terms = terms
        self.sections = sections
        self.entries = entries
        self.menus = menus

    def run(self) -> bool:
        """Whether every item is in: False when the worker's time slice ended first, the job's reader (if the worker
        keeps one) left at the cursor for its next slice."""
        state = self.state
        job = state.job
        batch_size = max(1, settings.CMS_IMPORT_BATCH_SIZE)
        records, position = self._records_from_cursor()
        batch: list[ImportItem] = []
        loose_terms: list[Term] = []
        for record in records:
            if isinstance(record, ImportItem):
                position += 1
                if position <= job.cursor:
                    state.keep_alive()
                    continue
                batch.append(record)
                if len(batch) >= batch_size:
                    self._commit(batch, position, loose_terms)
                    batch, loose_terms = [], []
                    if state.out_of_time():
                        if state.reader is not None:
                            state.reader.records, state.reader.position = records, position
                            state.reader.authors = state.authors
                        return False
            elif isinstance(record, Author):
                state.authors.setdefault(record.login, record)
            elif isinstance(record, Term) and position > job.cursor:
                if is_content_taxonomy(record.taxonomy) and state.options.get("includeTaxonomies", True):
                    loose_terms.append(record)
            elif isinstance(record, Skipped) and position >= job.cursor:
                state.warn("SKIPPED", f"{record.kind} skipped: {record.reason}", line=record.line)
            elif isinstance(record, Notice) and position >= job.cursor:
                state.warn(record.code, record.message, line=record.line)
            elif isinstance(record, SiteInfo):
                continue
        self._commit(batch, position, loose_terms)
        return True

    def _records_from_cursor(self) -> tuple[Iterator[Any], int]:
        """The records to read and how many items precede them: the previous slice's open reader when it stopped at
        the cursor, else the source from its start (the items up to the cursor are then read and skipped)."""
        state = self.state
        reader = state.reader
        if reader is not None and reader.records is not None:
            if reader.position == state.job.cursor:
                records, reader.records = reader.records, None
                state.authors = {**reader.authors, **state.authors}
                return records, reader.position
            reader.close()
        return state.read_source(), 0

    def _commit(self, batch: list[ImportItem], position: int, loose_terms: list[Term]) -> None:
        """One batch, committed with the cursor. First fast: the items share the batch's transaction, with no
        savepoint of their own (a SAVEPOINT and a RELEASE per item and per write around it). If an item is refused,
        that run is rolled back with what it changed in the run's state, and the batch is redone carefully: a
        savepoint per item, so the refused item alone becomes a draft with ``_importError``."""
        state = self.state
        saved = state.checkpoint()
        try:
            with transaction.atomic():
                self._batch(batch, loose_terms, careful=False)
                state.save(cursor=position)
        except (CmsError, IntegrityError, TransactionManagementError):
            state.restore(saved)
            with transaction.atomic():
                self._batch(batch, loose_terms, careful=True)
                state.save(cursor=position)
        metrics.imported("item", len(batch))
        if state.progress is not None:
            state.progress(position, "items")

    def _batch(self, batch: list[ImportItem], loose_terms: list[Term], *, careful: bool) -> None:
        state = self.state
        state.careful = careful
        if loose_terms:
            self.terms.create(loose_terms)
        ids = [str(item.source_id) for item in batch]
        # Earlier batches' item records are not asked for again in this phase (later phases read the database):
        # kept, they made the cache, and the copy of it each batch's checkpoint takes, grow with the export (about
        # 1.4 KB and a scan per post: 140 MB at 100,000 posts).
        state.forget(ITEM_KINDS)
        records = {
            (record.kind, record.source_id): record
            for record in ImportRecord.objects.filter(
                site=state.site, kind__in=("entry", "section"), source_id__in=ids
            )
        }
        for kind in ("entry", "section"):
            for source_id in ids:
                state.known[(kind, source_id)] = records.get((kind, source_id))
        # Which of the batch's slugs are taken, in one query, so most items need no slug query of their own.
        state.slugs = BatchSlugs([collection.pk for collection in state.collections.values()], batch)
        # New plain entries are created together; the rest one by one, in document order.
        simple = [item for item in batch if self.entries.simple(item, records)] if not careful else []
        if simple:
            self.entries.write_many(simple)
        chosen = {id(item) for item in simple}
        for item in batch:
            if id(item) not in chosen:
                self._item(item, records)

    def _item(self, item: ImportItem, records: dict) -> None:
        state = self.state
        post_type = item.post_type
        if post_type in INTERNAL_TYPES:
            state.skipped[post_type] += 1
        elif post_type == "attachment":
            if state.attachment_urls is not None:
                state.attachment_urls[str(item.source_id)] = item.attachment_url or item.guid
            state.put(
                "attachment",
                item.source_id,
                payload={
                    "url": item.attachment_url or item.guid,
                    "title": item.title,
                    "parent": item.parent_id,
                },
            )
            state.counters["attachments"] += 1
        elif post_type == "nav_menu_item":
            self.menus.record_item(item)
        elif post_type == "wp_navigation":
            self.menus.record_navigation(item)
        elif post_type == "wp_block":
            self.sections.write(item, records.get(("section", str(item.source_id))))
        elif post_type not in state.collections:
            state.skipped[post_type] += 1
        else:
            self.entries.write(item, records.get(("entry", str(item.source_id))))
