"""SQLite: an FTS5 index over the documents table, ranked with bm25 and marked with ``highlight()``.

``search_fts`` is an external-content FTS5 table on ``search_searchdocument`` (columns ``title`` and ``body``,
``tokenize='porter unicode61 remove_diacritics 2'``: case- and accent-insensitive, English stemming), kept in step by
triggers on the documents table (migration 0002), so a document row and its index entry are written together.

Snippets: ``highlight()`` marks the body and ``excerpt()`` keeps about 30 words from just before the first match.

Ranking: ``bm25(search_fts, 5.0, 1.0)``, a title match weighing five times a body match. bm25 costs about 1.5 µs a
match, so a word found in 100,000 documents would take 0.15 s; instead the backend first finds the ``rank_limit``-th
newest matching document (walking the index by rowid, which is cheap) and ranks only the documents from there on. Below
that many matches, that is every match: ranking is exact. Above, it is the newest ``rank_limit`` matches (documents are
rewritten when their entry changes, so "newest" means most recently written), which for words that common is the
useful sample anyway. Ties in score are broken by entry id, in SQL.
"""

from __future__ import annotations

import logging

from django.db import DatabaseError, connection

from apps.search.backends.base import (
    DOCUMENTS,
    INSERT_CHUNK,
    DocumentRow,
    Hit,
    SearchBackend,
    SearchRequest,
    SearchResult,
    excerpt,
    filter_sql,
    ids_in_order,
    snippet_html,
)
from apps.search.documents import MARK_END, MARK_START

logger = logging.getLogger("cms.search")

FTS = "search_fts"
TITLE_WEIGHT = 5.0
BODY_WEIGHT = 1.0


class SqliteBackend(SearchBackend):
    vendor = "sqlite"
    default_rank_limit = 5000

    def engine(self) -> str:
        return "sqlite-fts5"

    def analyzer(self, locale: str) -> str:
        return "fts5-porter-unicode61"

    # --- search ---------------------------------------------------------------------------------------------------

    def search(self, request: SearchRequest) -> SearchResult:
        if request.query.is_empty:
            return SearchResult([], False, "exact")
        match = request.query.to_fts5()
        try:
            return self._search(request, match)
        except DatabaseError as exc:
            # The parser quotes every item, so FTS5 should never refuse a query; if it does, it is no match, not a 500.
            if "fts5" not in str(exc):
                raise
            logger.warning("fts5 refused a query", extra={"match": match, "error": str(exc)})
            return SearchResult([], False, "exact")

    def _search(self, request: SearchRequest, match: str) -> SearchResult:
        where, params = filter_sql(request)
        with connection.cursor() as cursor:
            # The rank_limit-th newest match (rowids grow with every write): rank from there on.
            cursor.execute(
                f"SELECT {FTS}.rowid FROM {FTS} JOIN {DOCUMENTS} d ON d.id = {FTS}.rowid "  # noqa: S608
                f"WHERE {FTS} MATCH %s AND {where} ORDER BY {FTS}.rowid DESC LIMIT 1 OFFSET %s",
                [match, *params, self.rank_limit - 1],
            )
            row = cursor.fetchone()
            boundary = row[0] if row else 0
            mode = "bounded" if row else "exact"
            after_sql, after_params = "", []
            if request.after is not None:
                after_sql = "WHERE key > %s OR (key = %s AND entry_id > %s)"
                after_params = [request.after.key, request.after.key, request.after.entry_id]
            cursor.execute(
                f"SELECT id, entry_id, key FROM ("  # noqa: S608
                f"SELECT d.id AS id, d.entry_id AS entry_id, bm25({FTS}, {TITLE_WEIGHT}, {BODY_WEIGHT}) AS key "
                f"FROM {FTS} JOIN {DOCUMENTS} d ON d.id = {FTS}.rowid "
                f"WHERE {FTS} MATCH %s AND {FTS}.rowid >= %s AND {where}"
                f") {after_sql} ORDER BY key, entry_id LIMIT %s",
                [match, boundary, *params, *after_params, request.limit + 1],
            )
            ranked = cursor.fetchall()
            more = len(ranked) > request.limit
            ranked = ranked[: request.limit]
            details = {}
            if ranked:
                ids = [row[0] for row in ranked]
                placeholders = ", ".join(["%s"] * len(ids))
                # highlight() marks the whole body and excerpt() cuts the snippet around the first match: several
                # times cheaper than FTS5's snippet(), whose cost grows with the fragment size it searches for.
                cursor.execute(
                    f"SELECT d.id, d.collection_id, d.slug, d.title, highlight({FTS}, 1, %s, %s) "  # noqa: S608
                    f"FROM {FTS} JOIN {DOCUMENTS} d ON d.id = {FTS}.rowid "
                    f"WHERE {FTS} MATCH %s AND {FTS}.rowid IN ({placeholders})",
                    [MARK_START, MARK_END, match, *ids],
                )
                details = {row[0]: row[1:] for row in cursor.fetchall()}
        hits = []
        for document_id, entry_id, key in ranked:
            collection_id, slug, title, snippet = details[document_id]
            hits.append(
                Hit(
                    document_id=document_id,
                    entry_id=entry_id,
                    collection_id=collection_id,
                    slug=slug,
                    title=title,
                    snippet=snippet_html(excerpt(snippet or "")),
                    # bm25 is lower for better matches; scores are higher for better matches.
                    score=-key,
                    key=key,
                )
            )
        return SearchResult(hits, more, mode)

    # --- writing --------------------------------------------------------------------------------------------------

    def insert_documents(self, rows: list[DocumentRow]) -> list[int]:
        ids: list[int] = []
        columns = "entry_id, collection_id, locale, published, working, slug, title, body, signature"
        with connection.cursor() as cursor:
            for start in range(0, len(rows), INSERT_CHUNK):
                chunk = rows[start : start + INSERT_CHUNK]
                values = ", ".join(["(%s, %s, %s, %s, %s, %s, %s, %s, %s)"] * len(chunk))
                params = []
                for row in chunk:
                    params += [
                        row.entry_id,
                        row.collection_id,
                        row.locale,
                        row.spec.published,
                        row.spec.working,
                        row.slug,
                        row.spec.title,
                        row.spec.body,
                        row.signature,
                    ]
                # The FTS index is filled by the insert trigger.
                cursor.execute(
                    f"INSERT INTO {DOCUMENTS} ({columns}) VALUES {values} "  # noqa: S608
                    "RETURNING id, entry_id, published, working",
                    params,
                )
                ids += ids_in_order(chunk, cursor.fetchall())
        return ids

    def after_rebuild(self) -> None:
        with connection.cursor() as cursor:
            cursor.execute(f"INSERT INTO {FTS}({FTS}) VALUES ('optimize')")  # noqa: S608
