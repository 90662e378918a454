"""The search backend interface (CONVENTIONS 7): what a database must do for search, and what both share.

A backend answers one question, ``search(request) -> SearchResult``: the page of hits after a keyset position, best
first (then by entry id), with HTML-safe snippets. It also writes documents (``insert_documents``), which is where the
vendors' full-text structures are filled. Everything else, which documents an entry has, suggestions, deletions and
the comparison that skips unchanged documents, is plain SQL shared here.

Relevance and cost. Ranking every match costs time in proportion to the number of matches: at 100,000 documents a word
found in all of them takes 0.15 s (SQLite bm25) to 0.7 s (PostgreSQL ts_rank_cd) to rank. So each backend ranks
exactly while the matches are few, and beyond that ranks a bounded set of candidates (``rank_limit``): the trade-off,
documented in docs/performance.md, is that a word found in thousands of documents is ranked among a sample of them.
"""

from __future__ import annotations

import html
import re
from abc import ABC, abstractmethod
from contextlib import contextmanager
from dataclasses import dataclass, field

import xxhash
from django.conf import settings
from django.db import connection

from apps.search.documents import MARK_END, MARK_START, DocumentSpec, suggestion_keys
from apps.search.models import SearchDocument, SearchSuggestion
from apps.search.query import SearchQuery

DOCUMENTS = SearchDocument._meta.db_table
SUGGESTIONS = SearchSuggestion._meta.db_table
# Rows per multi-row INSERT (both databases allow far more parameters than this uses).
INSERT_CHUNK = 500
_SPACES = re.compile(r"\s+")
_MARK_TAGS = re.compile(r"(</?mark>)")


@dataclass(frozen=True)
class Position:
    """Where a page starts: after the hit with this sort key and entry id, in ranking ``mode`` (which a backend may
    choose on the first page and must keep for the following ones)."""

    mode: str
    key: float
    entry_id: str


@dataclass(frozen=True)
class SearchRequest:
    query: SearchQuery
    # "published" (what the public sees) or "working" (what editors see).
    variant: str
    # None: every collection in the index (only searchable collections are indexed).
    collection_ids: tuple[str, ...] | None
    locale: str | None
    limit: int
    after: Position | None = None


@dataclass
class Hit:
    document_id: int
    entry_id: str
    collection_id: str
    slug: str
    title: str
    snippet: str
    score: float
    # The value the backend orders by (its direction is the backend's business); goes into cursors.
    key: float


@dataclass
class SearchResult:
    hits: list[Hit]
    # Whether more hits follow the last one.
    more: bool
    mode: str


@dataclass(frozen=True)
class DocumentRow:
    """A document ready to be written: what ``DocumentSpec`` says, plus its entry's identity."""

    entry_id: str
    collection_id: str
    locale: str
    slug: str
    spec: DocumentSpec
    analyzer: str
    signature: str = field(default="")


# Room for one word (with its marks) when cutting a window of words out of a long text.
WORD_ROOM = 48


def excerpt(
    marked: str, *, before: int = 8, words: int = 30, cut_before: bool = False, cut_after: bool = False
) -> str:
    """About ``words`` words of ``marked`` (text with its matches between MARK_START and MARK_END), starting
    ``before`` words ahead of the first match, with "…" where text was left out. ``cut_before``/``cut_after``: the
    text is a window of a longer one (its first or last word may be cut in two, and is dropped)."""
    first = max(marked.find(MARK_START), 0)
    # The first match's word starts after the last whitespace before the mark ("(running)" is one word).
    boundary = first
    while boundary > 0 and not marked[boundary - 1].isspace():
        boundary -= 1
    # Only a window around the match is split into words (a body can be thousands of words long, and splitting all
    # of them was a tenth of a search); a word the window cuts in two is dropped as a cut text's would be.
    head_from = max(boundary - before * WORD_ROOM, 0) if before else boundary
    tail_to = boundary + words * WORD_ROOM
    cut_before = cut_before or head_from > 0
    cut_after = cut_after or tail_to < len(marked)
    head = marked[head_from:boundary].split()
    tail = marked[boundary:tail_to].split()
    if cut_before and head:
        head = head[1:]
    if cut_after and len(tail) > 1:
        tail = tail[:-1]
    kept_head = head[-before:] if before else []
    kept_tail = tail[: max(words - len(kept_head), 1)]
    text = " ".join(kept_head + kept_tail)
    starts_cut = cut_before or len(head) > len(kept_head)
    ends_cut = cut_after or len(tail) > len(kept_tail)
    return ("… " if starts_cut else "") + text + (" …" if ends_cut else "")


def snippet_html(marked: str | None) -> str:
    """A snippet from the database (matches between MARK_START and MARK_END) as HTML: everything escaped, the marks
    turned into ``<mark>`` tags, runs of whitespace as one space."""
    if not marked:
        return ""
    text = html.escape(_SPACES.sub(" ", marked).strip(), quote=True)
    text = text.replace(MARK_START, "<mark>").replace(MARK_END, "</mark>")
    # A fragment boundary can cut between the two characters; never leave a tag open or a close without an open.
    opened = 0
    parts = []
    for piece in _MARK_TAGS.split(text):
        if piece == "<mark>":
            if opened:
                continue
            opened = 1
        elif piece == "</mark>":
            if not opened:
                continue
            opened = 0
        parts.append(piece)
    if opened:
        parts.append("</mark>")
    return "".join(parts)


def filter_sql(request: SearchRequest, alias: str = "d") -> tuple[str, list]:
    """The WHERE conditions on the documents table for the request's variant, collections and locale."""
    conditions = [f"{alias}.published" if request.variant == "published" else f"{alias}.working"]
    params: list = []
    if request.collection_ids is not None:
        placeholders = ", ".join(["%s"] * len(request.collection_ids))
        conditions.append(f"{alias}.collection_id IN ({placeholders})")
        params += list(request.collection_ids)
    if request.locale is not None:
        conditions.append(f"{alias}.locale = %s")
        params.append(request.locale)
    return " AND ".join(conditions), params


class SearchBackend(ABC):
    vendor: str = ""

    # --- configuration --------------------------------------------------------------------------------------------

    @property
    def rank_limit(self) -> int:
        """How many candidates a broad query ranks (CMS_SEARCH_RANK_LIMIT, else the backend's default)."""
        configured = getattr(settings, "CMS_SEARCH_RANK_LIMIT", None)
        return int(configured) if configured else self.default_rank_limit

    default_rank_limit = 1000

    @abstractmethod
    def engine(self) -> str:
        """A short description of the index in use, for stats and logs ("sqlite-fts5", "postgresql-rum" …)."""

    @abstractmethod
    def analyzer(self, locale: str) -> str:
        """How documents of ``locale`` are tokenized (part of each document's signature, so changing it re-indexes)."""

    # --- search ---------------------------------------------------------------------------------------------------

    @abstractmethod
    def search(self, request: SearchRequest) -> SearchResult: ...

    # --- writing --------------------------------------------------------------------------------------------------

    @abstractmethod
    def insert_documents(self, rows: list[DocumentRow]) -> list[int]:
        """Insert documents (and whatever full-text structure the vendor keeps); return their ids in order."""

    def signature(self, row: DocumentRow) -> str:
        parts = (
            row.analyzer,
            "p" if row.spec.published else "-",
            "w" if row.spec.working else "-",
            row.collection_id,
            row.locale,
            row.slug,
            row.spec.title,
            row.spec.body,
        )
        return xxhash.xxh3_128_hexdigest("\x1f".join(parts).encode("utf-8", "replace"))

    def existing_signatures(self, entry_ids: list[str]) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for chunk in _chunks(entry_ids, INSERT_CHUNK):
            placeholders = ", ".join(["%s"] * len(chunk))
            with connection.cursor() as cursor:
                cursor.execute(
                    f"SELECT entry_id, signature FROM {DOCUMENTS} WHERE entry_id IN ({placeholders})",  # noqa: S608
                    chunk,
                )
                for entry_id, signature in cursor.fetchall():
                    found.setdefault(entry_id, []).append(signature)
        return found

    def replace_documents(
        self, entry_ids: list[str], rows: list[DocumentRow], *, compare: bool = True
    ) -> dict:
        """Make ``rows`` the documents of ``entry_ids`` (entries without rows lose theirs). With ``compare``, entries
        whose documents are already exactly these are left alone. Returns counts: written, removed, unchanged."""
        rows = [
            DocumentRow(r.entry_id, r.collection_id, r.locale, r.slug, r.spec, r.analyzer, self.signature(r))
            for r in rows
        ]
        wanted: dict[str, list[DocumentRow]] = {entry_id: [] for entry_id in entry_ids}
        for row in rows:
            wanted.setdefault(row.entry_id, []).append(row)
        existing = self.existing_signatures(list(wanted)) if compare else None
        stale: list[str] = []
        to_insert: list[DocumentRow] = []
        unchanged = 0
        for entry_id, entry_rows in wanted.items():
            if existing is not None:
                before = sorted(existing.get(entry_id, []))
                if before == sorted(row.signature for row in entry_rows):
                    unchanged += len(entry_rows)
                    continue
                if before:
                    stale.append(entry_id)
            else:
                stale.append(entry_id)
            to_insert += entry_rows
        removed = self.delete_documents(entry_ids=stale) if stale else 0
        ids = self.insert_documents(to_insert) if to_insert else []
        self.insert_suggestions(to_insert, ids)
        return {"written": len(to_insert), "removed": removed, "unchanged": unchanged}

    def insert_suggestions(self, rows: list[DocumentRow], ids: list[int]) -> None:
        values = suggestion_values(rows, ids)
        with connection.cursor() as cursor:
            # Plain multi-row INSERTs: a rebuild writes several rows per document, and model instances cost more
            # than the rows.
            for chunk in _chunks(values, INSERT_CHUNK):
                placeholders = ", ".join(["(%s, %s, %s, %s, %s, %s, %s)"] * len(chunk))
                cursor.execute(
                    f"INSERT INTO {SUGGESTIONS} ({SUGGESTION_COLUMNS}) VALUES {placeholders}",  # noqa: S608
                    [value for item in chunk for value in item],
                )

    def delete_documents(
        self, *, entry_ids: list[str] | None = None, collection_id: str | None = None
    ) -> int:
        """Delete the documents (and their suggestions) of some entries, or of a whole collection."""
        removed = 0
        with connection.cursor() as cursor:
            if collection_id is not None:
                cursor.execute(f"DELETE FROM {SUGGESTIONS} WHERE collection_id = %s", [collection_id])  # noqa: S608
                cursor.execute(f"DELETE FROM {DOCUMENTS} WHERE collection_id = %s", [collection_id])  # noqa: S608
                return cursor.rowcount
            for chunk in _chunks(entry_ids or [], INSERT_CHUNK):
                placeholders = ", ".join(["%s"] * len(chunk))
                cursor.execute(
                    f"DELETE FROM {SUGGESTIONS} WHERE document_id IN "  # noqa: S608
                    f"(SELECT id FROM {DOCUMENTS} WHERE entry_id IN ({placeholders}))",
                    chunk,
                )
                cursor.execute(f"DELETE FROM {DOCUMENTS} WHERE entry_id IN ({placeholders})", chunk)  # noqa: S608
                removed += cursor.rowcount
        return removed

    # --- maintenance ----------------------------------------------------------------------------------------------

    @contextmanager
    def bulk_load(self, index: str | None = None):
        """Around a rewrite of the whole index: a backend may set aside what makes each write slow and rebuild it
        once at the end. ``index`` names the kind of full-text index to end with (PostgreSQL: rum or gin)."""
        if index is not None:
            self.set_index(index)
        yield

    def set_index(self, kind: str) -> None:
        raise ValueError(f"The {self.vendor} backend has one kind of full-text index.")

    @abstractmethod
    def after_rebuild(self) -> None:
        """Tidy the full-text structures after a large rewrite (merge segments, refresh planner statistics)."""


SUGGESTION_COLUMN_NAMES = ["document_id", "collection_id", "locale", "published", "working", "first", "key"]
SUGGESTION_COLUMNS = ", ".join(f'"{name}"' for name in SUGGESTION_COLUMN_NAMES)


def suggestion_values(rows: list[DocumentRow], ids: list[int]) -> list[tuple]:
    """The suggestion rows (in SUGGESTION_COLUMNS order) of documents just written with these ids."""
    values = []
    for row, document_id in zip(rows, ids, strict=True):
        for position, key in enumerate(suggestion_keys(row.spec.title)):
            values.append(
                (
                    document_id,
                    row.collection_id,
                    row.locale,
                    row.spec.published,
                    row.spec.working,
                    position == 0,
                    key,
                )
            )
    return values


# The columns every backend writes for a document, in the order of ``document_values``.
DOCUMENT_COLUMNS = [
    "entry_id",
    "collection_id",
    "locale",
    "published",
    "working",
    "slug",
    "title",
    "body",
    "signature",
]


def document_values(row: DocumentRow) -> list:
    """A document's values in DOCUMENT_COLUMNS order."""
    spec = row.spec
    return [
        row.entry_id, row.collection_id, row.locale, spec.published, spec.working, row.slug, spec.title, spec.body,
        row.signature,
    ]  # fmt: skip


def ids_in_order(rows: list[DocumentRow], returned: list[tuple]) -> list[int]:
    """The ids of inserted ``rows`` from ``RETURNING id, entry_id, published, working``, whatever order the database
    returned them in (an entry's documents differ in their flags)."""
    by_key = {(entry_id, bool(published), bool(working)): pk for pk, entry_id, published, working in returned}
    return [by_key[(row.entry_id, row.spec.published, row.spec.working)] for row in rows]


def _chunks(items: list, size: int):
    for start in range(0, len(items), size):
        yield items[start : start + size]
