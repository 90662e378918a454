"""PostgreSQL: a stored generated ``tsvector`` per document, queried with ``websearch_to_tsquery``, marked with
``ts_headline``.

Structures (migration 0002): ``config regconfig`` per document (the locale's language, see apps/search/languages.py)
and ``tsv tsvector GENERATED ALWAYS AS (setweight(to_tsvector(config, title), 'A') || setweight(to_tsvector(config,
body), 'B')) STORED`` (with a space after each "<", so that PostgreSQL's parser does not skip text that looks like
HTML). The configurations are ours, ``cms_<language>``: copies of PostgreSQL's with ``unaccent`` before the stemmer,
so "cafe" finds "café". The ``tsv`` column has a GIN index; ``manage.py reindex --index rum`` replaces it with a RUM
index (the ``rum`` extension, Debian ``postgresql-15-rum``), which ranks in the index but makes every write of a
document several times dearer, and ``--index gin`` goes back.

Snippets: ``ts_headline`` with every match marked, on a window of the body around the first match (see
``_snippets``), cut to about 30 words by ``excerpt``.

Ranking, with the cost of each path at 100,000 documents in docs/performance.md:

- RUM (when chosen): ``ORDER BY tsv <=> query`` walks the index in rank order (``rum_ts_score``, title weight A over body B) and
  stops at the page; exact and fast while matches number in the tens of thousands, but its cost grows with every
  match and every occurrence, so a query the planner expects to match more than ``CMS_SEARCH_RUM_LIMIT`` documents
  (default 40,000) takes the bounded path instead.
- Bounded (GIN, the default, or RUM for very broad queries): the first ``rank_limit`` matches the index yields (default 1,000),
  and up to half as many documents whose title matches (a small GIN index on the titles' own tsvector), are ranked
  (``ts_rank_cd`` with GIN, ``rum_ts_score`` with RUM); with fewer matches than that, every match is, so small and
  selective queries are exact. Broader queries are ranked among a sample of their matches that includes the title
  matches: the documented trade-off for answering a word found in every document in milliseconds instead of a
  second.

The path is chosen on the first page and carried in the cursor, so later pages rank the same way. Ties in score are
broken by entry id.
"""

from __future__ import annotations

import json
import unicodedata
from contextlib import contextmanager
from dataclasses import dataclass

from django.conf import settings
from django.db import connection, transaction

from apps.core.db.backends.postgresql import copy_rows
from apps.core.replicas import read_connection
from apps.schema.selectors import schema_cached
from apps.search.backends.base import (
    DOCUMENT_COLUMNS,
    DOCUMENTS,
    INSERT_CHUNK,
    SUGGESTION_COLUMN_NAMES,
    SUGGESTION_COLUMNS,
    SUGGESTIONS,
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
    suggestion_values,
)
from apps.search.documents import MARK_END, MARK_START
from apps.search.languages import language_for

# The title's own tsvector: a stored generated column with a GIN index (migration 0003).
TITLE_TSV = "d.title_tsv"
RUM_INDEX = "search_doc_tsv_rum"
GIN_INDEX = "search_doc_tsv_gin"
# Extra rows fetched on the RUM path so that ties in score at the end of a page can be ordered by entry id.
TIE_SLACK = 20
HIGHLIGHT_ALL = f"HighlightAll=true, StartSel={MARK_START}, StopSel={MARK_END}"
# The slice of the body given to ts_headline: from this many characters before the first likely match, this long.
WINDOW_BEFORE = 80
WINDOW = 360
# At most this many lexeme beginnings are looked for (long queries).
MAX_PREFIXES = 8
# From this many rows on, documents and suggestions are written with COPY, which takes a round trip more than an
# INSERT (documents: their ids are drawn first) and less time for each row.
COPY_FROM_ROWS = 20
# The documents' columns as PostgreSQL takes them: the tsvectors are generated from config, title and body.
PG_DOCUMENT_COLUMNS = [*DOCUMENT_COLUMNS, "config"]


def _document_values(row: DocumentRow) -> list:
    return [*document_values(row), row.analyzer]


@dataclass(frozen=True)
class _Query:
    sql: str
    params: list
    # An expression for the lexemes of the query's required words (text[]): their beginnings locate the first match
    # in a document's text for its snippet.
    lexemes_sql: str
    lexemes_params: list


# The parser takes "<word…>" for an HTML tag and leaves it out of headlines (and skips <script> elements' text): a
# zero-width space after "<" keeps it text, and is removed from the headline again. The tsvector does the same with a
# plain space (migration 0002).
ZERO_WIDTH_SPACE = "\u200b"
NO_TAG = "<" + ZERO_WIDTH_SPACE

_configs: set[str] | None = None


def available_configs() -> set[str]:
    """Our text search configurations (``cms_<language>``) in this database; created by migrations, so read once."""
    global _configs
    if _configs is None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT cfgname FROM pg_ts_config WHERE cfgname LIKE %s", ["cms\\_%"])
            _configs = {row[0] for row in cursor.fetchall()}
    return _configs


def _current_index_kind() -> str | None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexname FROM pg_indexes WHERE tablename = %s AND indexname IN (%s, %s)",
            [DOCUMENTS, RUM_INDEX, GIN_INDEX],
        )
        names = {row[0] for row in cursor.fetchall()}
    return "rum" if RUM_INDEX in names else "gin" if GIN_INDEX in names else None


def index_kind() -> str | None:
    """The index on the documents' tsvector ("rum", "gin" or None), as of this process's last schema revalidation."""
    return schema_cached("search:postgres-index", _current_index_kind)


def rum_available() -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'rum'")
        return cursor.fetchone() is not None


def _details_sql(query: _Query) -> str:
    """The columns a hit shows and its snippet needs, for ``d``: collection id, slug, title, then (for
    ``_snippets``) config, body and the query's lexemes. Its parameters are ``query.lexemes_params``."""
    return f"d.collection_id, d.slug, d.title, d.config::text, d.body, {query.lexemes_sql}"


def _prefixes(lexemes: list[str] | None) -> list[str]:
    """Where a query's words may start in a text: stems are usually a prefix of the words they come from, less their
    last letter ("happi" of "happy")."""
    prefixes = {lexeme if len(lexeme) <= 3 else lexeme[:-1] for lexeme in lexemes or []}
    return sorted(prefixes, key=lambda prefix: (-len(prefix), prefix))[:MAX_PREFIXES]


class _Unaccented(dict):
    """A str.translate table that drops a character's accents and keeps its length (offsets stay the body's)."""

    def __missing__(self, code: int) -> int:
        base = unicodedata.normalize("NFD", chr(code))[0]
        self[code] = ord(base)
        return self[code]


_UNACCENTED = _Unaccented()


def _first_hit(body: str, prefixes: list[str]) -> int | None:
    folded = body.lower()
    if len(folded) != len(body):  # a few characters lowercase to two ("İ"): keep offsets the body's
        folded = "".join(character.lower()[:1] for character in body)
    found = [at for prefix in prefixes if (at := folded.find(prefix)) >= 0]
    if not found and not folded.isascii():
        folded = folded.translate(_UNACCENTED)
        found = [at for prefix in prefixes if (at := folded.find(prefix)) >= 0]
    return min(found) if found else None


def _window(body: str, prefixes: list[str]) -> tuple[str, int | None, bool, bool]:
    """(text given to ts_headline, first likely match or None, whether text starts and ends inside the body)."""
    if not prefixes:
        return body, None, False, False
    hit = _first_hit(body, prefixes)
    start = max((hit or 0) - WINDOW_BEFORE, 0)
    return body[start : start + WINDOW], hit, start > 0, start + WINDOW < len(body)


class PostgresBackend(SearchBackend):
    vendor = "postgresql"
    default_rank_limit = 1000

    @property
    def title_limit(self) -> int:
        """How many title matches a bounded ranking adds to its sample."""
        return max(self.rank_limit // 2, 1)

    def engine(self) -> str:
        return f"postgresql-{index_kind() or 'noindex'}"

    def config(self, locale: str) -> str:
        configs = available_configs()
        wanted = f"cms_{language_for(locale)}"
        if wanted in configs:
            return wanted
        return "cms_simple" if "cms_simple" in configs else "simple"

    def analyzer(self, locale: str) -> str:
        return self.config(locale)

    # --- search ---------------------------------------------------------------------------------------------------

    def _tsquery(self, request: SearchRequest) -> tuple[str, list]:
        """The query as a tsquery expression: with several languages in play, the alternatives of each."""
        locales = [request.locale] if request.locale else list(settings.CMS_LOCALES)
        configs = sorted({self.config(locale) for locale in locales})
        text = request.query.to_websearch()
        sql = " || ".join(["websearch_to_tsquery(%s::regconfig, %s)"] * len(configs))
        params = []
        for config in configs:
            params += [config, text]
        return f"({sql})", params

    def _lexemes(self, request: SearchRequest) -> tuple[str, list]:
        locales = [request.locale] if request.locale else list(settings.CMS_LOCALES)
        configs = sorted({self.config(locale) for locale in locales})
        words = " ".join(item for group in request.query.groups for item in group.include)
        sql = " || ".join(["tsvector_to_array(to_tsvector(%s::regconfig, %s))"] * len(configs))
        return f"({sql})", [value for config in configs for value in (config, words)]

    def _has_lexemes(self, query: _Query) -> bool:
        """False for a query of stop words only, which matches nothing (RUM's ordering is not asked to rank it)."""
        with read_connection().cursor() as cursor:
            cursor.execute(f"SELECT numnode({query.sql})", query.params)
            return bool(cursor.fetchone()[0])

    def search(self, request: SearchRequest) -> SearchResult:
        if request.query.is_empty:
            return SearchResult([], False, "gin")
        query = _Query(*self._tsquery(request), *self._lexemes(request))
        kind = index_kind()
        mode = request.after.mode if request.after is not None else None
        if mode is None and kind == "rum":
            if not self._has_lexemes(query):
                return SearchResult([], False, "gin")
            mode = "rum" if self._estimate(request, query.sql, query.params) <= self.rum_limit else "gin"
        if mode == "rum" and kind == "rum":
            return self._search_rum(request, query)
        # A query of stop words only matches no document here, and comes back empty.
        return self._search_bounded(request, query, score="rum_ts_score" if kind == "rum" else "ts_rank_cd")

    @property
    def rum_limit(self) -> int:
        return int(getattr(settings, "CMS_SEARCH_RUM_LIMIT", 40_000))

    def _estimate(self, request: SearchRequest, query_sql: str, query_params: list) -> float:
        """The planner's estimate of how many documents match: RUM's cost grows with them."""
        where, params = filter_sql(request)
        with read_connection().cursor() as cursor:
            cursor.execute(
                f"EXPLAIN (FORMAT JSON) SELECT 1 FROM {DOCUMENTS} d "  # noqa: S608
                f"WHERE d.tsv @@ {query_sql} AND {where}",
                [*query_params, *params],
            )
            plan = cursor.fetchone()[0]
        plan = json.loads(plan) if isinstance(plan, str) else plan
        return float(plan[0]["Plan"]["Plan Rows"])

    def _snippets(
        self, documents: list[tuple[int, str, str, list[str] | None]], query: _Query
    ) -> dict[int, str]:
        """The snippet of each (id, config, body, query lexemes) document: about 30 words around its first match,
        every match marked.

        ts_headline parses and stems every word it is given (half a millisecond for 500 words), so it is given a
        window of the body around the first place a lexeme's beginning appears in it (found here, in the lowercased
        text, and with accents folded when that finds nothing); where the guess is wrong (no match inside the
        window), the whole body. Bodies come with the ranking's rows, so the database neither reads them again nor
        folds them."""
        windows = {
            document_id: (config, body, *_window(body, _prefixes(lexemes)))
            for document_id, config, body, lexemes in documents
        }
        marked = self._headlines([(config, text) for config, _, text, *_ in windows.values()], query)
        snippets, missed = {}, []
        for (document_id, (_, _, _, hit, cut_before, cut_after)), text in zip(
            windows.items(), marked, strict=True
        ):
            if hit is not None and MARK_START not in text:
                # A beginning found where the stemmer finds no match ("run" in "brunch"): try the whole body.
                missed.append(document_id)
                continue
            snippets[document_id] = excerpt(text, cut_before=cut_before, cut_after=cut_after)
        if missed:
            whole = self._headlines([(windows[key][0], windows[key][1]) for key in missed], query)
            for document_id, text in zip(missed, whole, strict=True):
                snippets[document_id] = excerpt(text)
        return snippets

    def _headlines(self, texts: list[tuple[str, str]], query: _Query) -> list[str]:
        """ts_headline of each (config, text), in order, with every match marked."""
        if not texts:
            return []
        with read_connection().cursor() as cursor:
            cursor.execute(
                # Only the tsquery's own expression (placeholders) is interpolated.
                f"SELECT ts_headline(w.config::regconfig, replace(w.text, '<', %s), {query.sql}, %s) "  # noqa: S608
                "FROM unnest(%s::text[], %s::text[]) WITH ORDINALITY AS w(config, text, n) ORDER BY w.n",
                [
                    NO_TAG,
                    *query.params,
                    HIGHLIGHT_ALL,
                    [config for config, _ in texts],
                    [text for _, text in texts],
                ],
            )
            return [(row[0] or "").replace(ZERO_WIDTH_SPACE, "") for row in cursor.fetchall()]

    def _search_bounded(self, request: SearchRequest, query: _Query, score: str) -> SearchResult:
        query_sql, query_params = query.sql, query.params
        details = _details_sql(query)
        where, params = filter_sql(request)
        after_sql, after_params = "", []
        if request.after is not None:
            after_sql = "WHERE c.score < %s::float8 OR (c.score = %s::float8 AND c.entry_id > %s)"
            after_params = [request.after.key, request.after.key, request.after.entry_id]
        with read_connection().cursor() as cursor:
            # Candidates: the first rank_limit matches the index yields, and up to half as many title matches (the
            # strongest matches must not be left out of the sample), each scored where it is found: joining the ids
            # back to the table led the planner to scan all of it for broad queries (17 ms at 100,000 documents).
            # A document found both ways scores the same both times, so UNION keeps it once. With fewer matches
            # than rank_limit every match is a candidate already, titles included (the tsvector holds the title),
            # so the title matches are only looked for when the limit is reached: a phrase the planner expects to
            # be common is answered by a sequential scan, and the second one doubled its cost (53 ms each).
            candidate = (
                f"SELECT d.id, d.entry_id, {score}(d.tsv, {query_sql})::float8 AS score FROM {DOCUMENTS} d"  # noqa: S608
            )
            # The page's documents are read in the same statement (the ranking limited first, so that only they
            # are joined and their bodies read).
            cursor.execute(
                f"WITH body AS MATERIALIZED ({candidate} WHERE d.tsv @@ {query_sql} AND {where} LIMIT %s), "  # noqa: S608
                f"title AS ({candidate} WHERE (SELECT count(*) FROM body) >= %s "
                f"AND {TITLE_TSV} @@ {query_sql} AND {where} LIMIT %s) "
                f"SELECT c.id, c.entry_id, c.score, {details} FROM ("
                f"SELECT c.id, c.entry_id, c.score FROM (SELECT * FROM body UNION SELECT * FROM title) c {after_sql} "
                f"ORDER BY c.score DESC, c.entry_id LIMIT %s) c JOIN {DOCUMENTS} d ON d.id = c.id "
                "ORDER BY c.score DESC, c.entry_id",
                [
                    *query_params,
                    *query_params,
                    *params,
                    self.rank_limit,
                    *query_params,
                    self.rank_limit,
                    *query_params,
                    *params,
                    self.title_limit,
                    *query.lexemes_params,
                    *after_params,
                    request.limit + 1,
                ],
            )
            ranked = cursor.fetchall()
        more = len(ranked) > request.limit
        ranked = ranked[: request.limit]
        snippets = self._snippets([(row[0], *row[-3:]) for row in ranked], query)
        hits = [
            Hit(
                document_id,
                entry_id,
                collection_id,
                slug,
                title,
                snippet_html(snippets[document_id]),
                value,
                value,
            )
            for document_id, entry_id, value, collection_id, slug, title, *_ in ranked
        ]
        return SearchResult(hits, more, "gin")

    def _rum_rows(self, request: SearchRequest, query_sql: str, query_params: list, *, limit: int) -> list:
        """(id, entry id, distance) of the best ``limit`` matches after the page's start, in RUM's order."""
        where, params = filter_sql(request)
        after_sql, after_params = "", []
        if request.after is not None:
            after_sql = (
                f" AND ((d.tsv <=> {query_sql})::float8 > %s::float8 OR "
                f"((d.tsv <=> {query_sql})::float8 = %s::float8 AND d.entry_id > %s))"
            )
            after_params = [
                *query_params,
                request.after.key,
                *query_params,
                request.after.key,
                request.after.entry_id,
            ]
        with read_connection().cursor() as cursor:
            cursor.execute(
                f"SELECT d.id, d.entry_id, (d.tsv <=> {query_sql})::float8 FROM {DOCUMENTS} d "  # noqa: S608
                f"WHERE d.tsv @@ {query_sql} AND {where}{after_sql} ORDER BY d.tsv <=> {query_sql} LIMIT %s",
                [*query_params, *query_params, *params, *after_params, *query_params, limit],
            )
            return cursor.fetchall()

    def _search_rum(self, request: SearchRequest, query: _Query) -> SearchResult:
        query_sql, query_params = query.sql, query.params
        fetch = request.limit + 1 + TIE_SLACK
        while True:
            rows = self._rum_rows(request, query_sql, query_params, limit=fetch)
            rows.sort(key=lambda row: (row[2], row[1]))
            # Documents sharing the score at the page's end come out of the index in no particular order: read on
            # until that score is passed, then order them by entry id. The index ranks every match before returning
            # the first, so reading further costs little more than the rows themselves.
            if len(rows) < fetch or rows[-1][2] > rows[request.limit][2]:
                break
            fetch *= 8
        more = len(rows) > request.limit
        rows = rows[: request.limit]
        documents = {}
        if rows:
            with read_connection().cursor() as cursor:
                cursor.execute(
                    f"SELECT d.id, rum_ts_score(d.tsv, {query_sql}), {_details_sql(query)} "  # noqa: S608
                    f"FROM {DOCUMENTS} d WHERE d.id = ANY(%s)",
                    [*query_params, *query.lexemes_params, [row[0] for row in rows]],
                )
                documents = {row[0]: row[1:] for row in cursor.fetchall()}
        snippets = self._snippets([(key, *row[-3:]) for key, row in documents.items()], query)
        hits = []
        for document_id, entry_id, distance in rows:
            score, collection_id, slug, title, *_ = documents[document_id]
            hits.append(
                Hit(
                    document_id,
                    entry_id,
                    collection_id,
                    slug,
                    title,
                    snippet_html(snippets[document_id]),
                    score,
                    distance,
                )
            )
        return SearchResult(hits, more, "rum")

    # --- writing --------------------------------------------------------------------------------------------------

    def insert_documents(self, rows: list[DocumentRow]) -> list[int]:
        if len(rows) >= COPY_FROM_ROWS:
            return self._copy_documents(rows)
        ids: list[int] = []
        with connection.cursor() as cursor:
            for start in range(0, len(rows), INSERT_CHUNK):
                chunk = rows[start : start + INSERT_CHUNK]
                values = ", ".join(["(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s::regconfig)"] * len(chunk))
                params = []
                for row in chunk:
                    params += _document_values(row)
                # The tsvector is a generated column: PostgreSQL computes it from config, title and body.
                cursor.execute(
                    f"INSERT INTO {DOCUMENTS} ({', '.join(PG_DOCUMENT_COLUMNS)}) VALUES {values} "  # noqa: S608
                    "RETURNING id, entry_id, published, working",
                    params,
                )
                ids += ids_in_order(chunk, cursor.fetchall())
        return ids

    def _copy_documents(self, rows: list[DocumentRow]) -> list[int]:
        """Many documents (an import's batch, a rebuild): their ids drawn from the sequence first, so that the rows
        can go in with COPY, which returns nothing."""
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)",
                [DOCUMENTS, len(rows)],
            )
            ids = [row[0] for row in cursor.fetchall()]
        copy_rows(
            DOCUMENTS,
            ["id", *PG_DOCUMENT_COLUMNS],
            ([document_id, *_document_values(row)] for document_id, row in zip(ids, rows, strict=True)),
        )
        return ids

    def insert_suggestions(self, rows: list[DocumentRow], ids: list[int]) -> None:
        values = suggestion_values(rows, ids)
        if len(values) >= COPY_FROM_ROWS:
            # Many rows (a batch): COPY adapts them in C, where an INSERT's placeholders would be rewritten in
            # Python. A few (one entry's save) take one round trip as an INSERT, where COPY needs two.
            copy_rows(SUGGESTIONS, SUGGESTION_COLUMN_NAMES, values)
        elif values:
            with connection.cursor() as cursor:
                cursor.execute(
                    f"INSERT INTO {SUGGESTIONS} ({SUGGESTION_COLUMNS}) SELECT * FROM unnest("  # noqa: S608
                    "%s::bigint[], %s::text[], %s::text[], %s::boolean[], %s::boolean[], %s::boolean[], %s::text[])",
                    [list(column) for column in zip(*values, strict=True)],
                )

    def after_rebuild(self) -> None:
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {DOCUMENTS}")

    # --- the index on tsv -----------------------------------------------------------------------------------------

    @contextmanager
    def bulk_load(self, index: str | None = None):
        """Rewriting every document is several times faster without the tsvector index (a RUM index costs ~10 ms a
        document to update, building it afresh a fraction of that): drop it, and build it once at the end. Searches
        scan the table meanwhile.

        The tables are emptied with TRUNCATE first (each collection's rebuild would delete its documents anyway).
        Deleted rows leave their pages empty until a VACUUM, so rewriting every document after a DELETE doubled the
        table, with the live half behind the empty one; a search for a word in nearly every document is a sequential
        scan that stops at its first thousand matches, and it then read through the 100,000 empty pages first
        (270 ms instead of 20)."""
        kind = index or _current_index_kind() or ("rum" if rum_available() else "gin")
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute(f"DROP INDEX IF EXISTS {RUM_INDEX}")
            cursor.execute(f"DROP INDEX IF EXISTS {GIN_INDEX}")
            cursor.execute(f"TRUNCATE {SUGGESTIONS}, {DOCUMENTS}")
            cursor.execute("SET CONSTRAINTS ALL DEFERRED")
        try:
            yield
        finally:
            with transaction.atomic():
                self.set_index(kind)

    def set_index(self, kind: str) -> None:
        """Replace the tsvector's index with a RUM or a GIN one (``manage.py reindex --index``)."""
        from apps.schema.services import schema_changed

        if kind not in ("rum", "gin"):
            raise ValueError(kind)
        with connection.cursor() as cursor:
            # Index DDL is refused while deferred foreign-key checks are pending in the transaction: run them first.
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            if kind == "rum":
                cursor.execute("CREATE EXTENSION IF NOT EXISTS rum")
                cursor.execute(f"DROP INDEX IF EXISTS {GIN_INDEX}")
                cursor.execute(
                    f"CREATE INDEX IF NOT EXISTS {RUM_INDEX} ON {DOCUMENTS} USING rum (tsv rum_tsvector_ops)"
                )
            else:
                cursor.execute(f"DROP INDEX IF EXISTS {RUM_INDEX}")
                cursor.execute(f"CREATE INDEX IF NOT EXISTS {GIN_INDEX} ON {DOCUMENTS} USING gin (tsv)")
            cursor.execute("SET CONSTRAINTS ALL DEFERRED")
        # Every process re-reads the index kind at its next request.
        schema_changed()
