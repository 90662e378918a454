"""SQLite: an FTS5 index over the documents table, ranked with bm25 and marked with ``highlight()``.

``search_fts`` is an external-content FTS5 table on ``search_searchdocument`` (columns ``title`` and ``body``,
``tokenize='porter unicode61 remove_diacritics 2'``: case- and accent-insensitive, English stemming), kept in step by
triggers on the documents table (migration 0002), so a document row and its index entry are written together.

Snippets: ``highlight()`` marks the body and ``excerpt()`` keeps about 30 words from just before the first match.

Ranking: ``bm25(search_fts, 5.0, 1.0)``, a title match weighing five times a body match. bm25 costs 1.5 to 3 µs a
match, so a word found in 100,000 documents would take 0.15 s or more; instead the backend finds the
``rank_limit``-th newest matching document (walking the index by rowid, which is cheap) and ranks the documents from
there on, inside FTS5 (``ORDER BY rank`` sorts on bm25 without reading rows; only the best few rows are read). Below
that many matches, that is every match: ranking is exact. Above, it is the newest matches (documents are rewritten
when their entry changes, so "newest" means most recently written). Unlike PostgreSQL, older title matches are not
added to the sample: scoring chosen rows costs FTS5 a pass over each term's whole document list per row, seconds for
a common word. Ties in score are broken by entry id.
"""

from __future__ import annotations

import logging

from django.db import DatabaseError, connection

from apps.core.replicas import read_connection
from apps.search.backends.base import (
    DOCUMENT_COLUMNS,
    DOCUMENTS,
    INSERT_CHUNK,
    DocumentRow,
    Hit,
    SearchBackend,
    SearchRequest,
    SearchResult,
    document_values,
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
RANK = f"bm25({TITLE_WEIGHT}, {BODY_WEIGHT})"
# Extra rows read past the page, for documents of the other version and for ties at the page's end.
TIE_SLACK = 20


class SqliteBackend(SearchBackend):
    vendor = "sqlite"

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
        narrowed = request.collection_ids is not None or request.locale is not None
        with read_connection().cursor() as cursor:
            boundary = self._boundary(cursor, request, match, narrowed)
            mode = "bounded" if boundary else "exact"
            if narrowed:
                ranked, more = self._rank_joined(cursor, request, match, boundary)
            else:
                ranked, more = self._rank_in_index(cursor, request, match, boundary)
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

    def _boundary(self, cursor, request: SearchRequest, match: str, narrowed: bool) -> int:
        """The rowid of the rank_limit-th newest match (rowids grow with every write), or 0 when there are fewer.
        Without a collection or locale filter, the newest matches of either version are counted, straight from the
        index; with one, those that pass it (each read from the documents table)."""
        if narrowed:
            where, params = filter_sql(request)
            cursor.execute(
                f"SELECT {FTS}.rowid FROM {FTS} JOIN {DOCUMENTS} d ON d.id = {FTS}.rowid "  # noqa: S608
                f"WHERE {FTS} MATCH %s AND {where} ORDER BY {FTS}.rowid DESC LIMIT 1 OFFSET %s",
                [match, *params, self.rank_limit - 1],
            )
        else:
            cursor.execute(
                f"SELECT rowid FROM {FTS} WHERE {FTS} MATCH %s ORDER BY rowid DESC LIMIT 1 OFFSET %s",  # noqa: S608
                [match, self.rank_limit - 1],
            )
        row = cursor.fetchone()
        return row[0] if row else 0

    def _rank_joined(self, cursor, request: SearchRequest, match: str, boundary: int) -> tuple[list, bool]:
        """Rank with the filters applied to each candidate (a collection or locale filter may leave few)."""
        where, params = filter_sql(request)
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
        return ranked[: request.limit], len(ranked) > request.limit

    def _rank_in_index(self, cursor, request: SearchRequest, match: str, boundary: int) -> tuple[list, bool]:
        """Rank inside FTS5 (``ORDER BY rank`` sorts on bm25 without reading any row), then read the best few rows
        for their entry ids and version flags; read more when the flags or ties at the end of the page need it."""
        flag = "published" if request.variant == "published" else "working"
        after = request.after
        fetch = (request.limit + 1) * 2 + TIE_SLACK
        while True:
            cursor.execute(
                f"SELECT rowid, rank FROM {FTS} WHERE {FTS} MATCH %s AND rank MATCH %s AND rowid >= %s"  # noqa: S608
                + (" AND rank >= %s" if after is not None else "")
                + " ORDER BY rank LIMIT %s",
                [match, RANK, boundary, *([after.key] if after is not None else []), fetch],
            )
            fetched = cursor.fetchall()
            entries = {}
            if fetched:
                placeholders = ", ".join(["%s"] * len(fetched))
                cursor.execute(
                    f"SELECT id, entry_id FROM {DOCUMENTS} WHERE id IN ({placeholders}) AND {flag}",  # noqa: S608
                    [rowid for rowid, _ in fetched],
                )
                entries = dict(cursor.fetchall())
            candidates = sorted(
                (key, entries[rowid], rowid)
                for rowid, key in fetched
                if rowid in entries and (after is None or (key, entries[rowid]) > (after.key, after.entry_id))
            )
            exhausted = len(fetched) < fetch
            # Settled when every match was read, or when the page's last hit scores strictly better than the last
            # row read (rows not read yet score no better, so none can come before it, ties included).
            if exhausted or (
                len(candidates) > request.limit and candidates[request.limit][0] < fetched[-1][1]
            ):
                break
            fetch *= 4
        ranked = [(rowid, entry_id, key) for key, entry_id, rowid in candidates[: request.limit + 1]]
        return ranked[: request.limit], len(ranked) > request.limit

    # --- writing --------------------------------------------------------------------------------------------------

    def insert_documents(self, rows: list[DocumentRow]) -> list[int]:
        ids: list[int] = []
        with connection.cursor() as cursor:
            for start in range(0, len(rows), INSERT_CHUNK):
                chunk = rows[start : start + INSERT_CHUNK]
                values = ", ".join([f"({', '.join(['%s'] * len(DOCUMENT_COLUMNS))})"] * len(chunk))
                params = [value for row in chunk for value in document_values(row)]
                # The FTS index is filled by the insert trigger.
                cursor.execute(
                    f"INSERT INTO {DOCUMENTS} ({', '.join(DOCUMENT_COLUMNS)}) VALUES {values} "  # noqa: S608
                    "RETURNING id, entry_id, published, working",
                    params,
                )
                ids += ids_in_order(chunk, cursor.fetchall())
        return ids

    def after_rebuild(self) -> None:
        with connection.cursor() as cursor:
            cursor.execute(f"INSERT INTO {FTS}({FTS}) VALUES ('optimize')")  # noqa: S608
