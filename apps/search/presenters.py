"""Search answers as every face shows them (SPEC §4.7, §4.11): each shape once, with the function that builds it.

``GET /search`` answers ``{results, nextCursor}`` bare (SPEC §4.1); the ``search`` tool answers the same hits as
``{items, nextCursor}``, like every other list tool. Stats and rebuild reports are built by their selector and
service; their shapes are declared here.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from apps.core.shapes import Timestamp, TypedDict
from apps.core.timefmt import iso
from apps.search.models import SearchRebuildJob
from apps.search.selectors import SearchHit, SearchPage, Suggestion

NEXT_CURSOR_HELP = "Pass as `cursor` for the next page; null on the last page."


class SearchResultOut(TypedDict):
    collection: str
    id: str
    slug: str
    title: Annotated[str, Field(description="Plain text.")]
    snippet: Annotated[
        str, Field(description="HTML: the text around the matches, escaped, with matches in <mark>…</mark>.")
    ]
    score: Annotated[float, Field(description="Higher is better; comparable within one answer only.")]


class SearchPageOut(TypedDict):
    results: list[SearchResultOut]
    nextCursor: Annotated[str | None, Field(description=NEXT_CURSOR_HELP)]


class SearchItemsOut(TypedDict):
    items: list[SearchResultOut]
    nextCursor: Annotated[str | None, Field(description=NEXT_CURSOR_HELP)]


class SuggestionOut(TypedDict):
    collection: str
    id: str
    slug: str
    title: str


class SuggestionListOut(TypedDict):
    items: list[SuggestionOut]


class RebuiltCollectionOut(TypedDict):
    collection: str
    searchable: bool
    entries: Annotated[int, Field(description="Entries checked (trash included).")]
    documents: Annotated[int, Field(description="Documents the collection has now.")]
    written: Annotated[int, Field(description="Documents written because they were missing or differed.")]
    removed: Annotated[int, Field(description="Documents deleted.")]
    seconds: float


class RebuildOut(TypedDict):
    collections: list[RebuiltCollectionOut]
    entries: int
    documents: int
    written: int
    removed: int
    seconds: float


class RebuildJobOut(TypedDict):
    id: str
    state: Annotated[
        str, Field(description="queued (waiting for manage.py worker), running, done or failed.")
    ]
    full: bool
    collections: Annotated[list[str] | None, Field(description="Slugs; null for every collection.")]
    total: Annotated[int, Field(description="Entries to check (trash included).")]
    done: Annotated[int, Field(description="Entries checked so far.")]
    result: Annotated[RebuildOut | None, Field(description="The rebuild's counts once done.")]
    error: Annotated[str, Field(description="Why a failed rebuild stopped; empty otherwise.")]
    createdAt: Timestamp
    startedAt: Timestamp | None
    finishedAt: Timestamp | None


class LocaleCountOut(TypedDict):
    locale: str
    documents: int


class CollectionStatsOut(TypedDict):
    collection: str
    searchable: bool
    documents: int
    published: Annotated[int, Field(description="Documents the public can find.")]
    working: Annotated[int, Field(description="Documents editors can find (working copies).")]
    locales: list[LocaleCountOut]
    lastRebuildAt: Timestamp | None


class StatsOut(TypedDict):
    engine: Annotated[
        str, Field(description="sqlite-fts5, postgresql-rum or postgresql-gin: the full-text index in use.")
    ]
    documents: int
    lastRebuildAt: Timestamp | None
    collections: list[CollectionStatsOut]


def present_hit(hit: SearchHit) -> SearchResultOut:
    return {
        "collection": hit.collection,
        "id": hit.id,
        "slug": hit.slug,
        "title": hit.title,
        "snippet": hit.snippet,
        "score": hit.score,
    }


def present_page(page: SearchPage) -> SearchPageOut:
    return {"results": [present_hit(hit) for hit in page.results], "nextCursor": page.next_cursor}


def present_items(page: SearchPage) -> SearchItemsOut:
    return {"items": [present_hit(hit) for hit in page.results], "nextCursor": page.next_cursor}


def present_suggestions(items: list[Suggestion]) -> SuggestionListOut:
    return {
        "items": [
            {"collection": item.collection, "id": item.id, "slug": item.slug, "title": item.title}
            for item in items
        ]
    }


def present_rebuild_job(job: SearchRebuildJob) -> RebuildJobOut:
    return {
        "id": job.pk,
        "state": job.state,
        "full": job.full,
        "collections": job.collections,
        "total": job.total,
        "done": job.done,
        "result": job.result,
        "error": job.error,
        "createdAt": iso(job.created_at),
        "startedAt": iso(job.started_at),
        "finishedAt": iso(job.finished_at),
    }
