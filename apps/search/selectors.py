"""Reads of the search index: search, suggest and stats. REST (apps/search/api) and the tool server's ``search`` tool
call ``search`` with the same arguments and get the same answers and errors.

Who finds what: ``status="published"`` (the default) searches what the public sees, the published version of
published entries; ``status="draft"`` searches the working copies of every entry not in the trash, what editors see,
and needs drafts access (contributor role and up), like drafts in content lists.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from django.conf import settings
from django.db.models import Count, Max, Q

from apps.accounts.permissions import Actor, authorize, require_credentials
from apps.content.selectors import can_read_drafts
from apps.core import metrics
from apps.core.errors import Forbidden, NotFound, ValidationError
from apps.core.pagination import SortKey, decode_cursor, encode_cursor
from apps.core.timefmt import iso
from apps.schema.models import Collection
from apps.schema.selectors import collections_for_read, public_collections, site_is_public
from apps.search.backends import get_search_backend
from apps.search.backends.base import Position, SearchRequest
from apps.search.documents import fold
from apps.search.models import SearchDocument, SearchRebuild, SearchRebuildJob, SearchSuggestion
from apps.search.query import MAX_QUERY_CHARS, parse

STATUSES = {"published": "published", "draft": "working"}
MAX_LIMIT = 50
MAX_SUGGEST_LIMIT = 20
CURSOR_KEYS = (SortKey("mode"), SortKey("key"), SortKey("id"))
MODES = frozenset({"exact", "bounded", "gin", "rum"})


@dataclass(frozen=True)
class SearchHit:
    collection: str
    id: str
    slug: str
    title: str
    snippet: str
    score: float


@dataclass(frozen=True)
class SearchPage:
    results: list[SearchHit]
    next_cursor: str | None


@dataclass(frozen=True)
class Suggestion:
    collection: str
    id: str
    slug: str
    title: str


def _searchable() -> dict[str, Collection]:
    return {c.slug: c for c in collections_for_read() if c.supports_feature("search")}


def _check_collections(slugs: list[str] | None, name: str) -> tuple[str, ...] | None:
    """Ids of the named collections, refusing unknown and unsearchable ones by name; None when none are named."""
    if slugs is None:
        return None
    known = {c.slug: c for c in collections_for_read()}
    searchable = _searchable()
    unknown = [slug for slug in slugs if slug not in known]
    unsearchable = [slug for slug in slugs if slug in known and slug not in searchable]
    problems = []
    if unknown:
        problems.append(f"unknown collection(s) {', '.join(unknown)}")
    if unsearchable:
        problems.append(
            f"{', '.join(unsearchable)} {'is' if len(unsearchable) == 1 else 'are'} not searchable "
            "(add 'search' to the collection's supports)"
        )
    if problems:
        choices = ", ".join(searchable) or "none (add 'search' to a collection's supports)"
        message = "; ".join(problems)
        raise ValidationError(
            f"{message[0].upper()}{message[1:]}. Searchable collections: {choices}.",
            details={name: f"{message[0].upper()}{message[1:]}; searchable: {choices}."},
        )
    return tuple(dict.fromkeys(searchable[slug].pk for slug in slugs))


def _public_only(actor: Actor | None, collection_ids: tuple[str, ...] | None) -> tuple[str, ...] | None:
    """What an anonymous reader searches (issue 22): the public searchable collections, or those named if all are
    public (401 otherwise, as reading them would be). Readers with credentials search what they named."""
    if actor is None or not actor.anonymous:
        return collection_ids
    public = tuple(c.pk for c in public_collections() if c.supports_feature("search"))
    if collection_ids is None:
        return public
    if not set(collection_ids) <= set(public):
        require_credentials(actor)
    return collection_ids


def _check_status(actor: Actor | None, status: str) -> str:
    if status not in STATUSES:
        raise ValidationError(
            details={"status": f"'{status}' is not a search status; use published or draft."}
        )
    if status == "draft" and not can_read_drafts(actor):
        require_credentials(actor)
        raise Forbidden(
            "Only published entries are visible to you: searching drafts needs the contributor role or higher.",
            details={"status": "Only 'published' is available to you."},
        )
    return STATUSES[status]


def _check_locale(locale: str | None) -> str | None:
    if locale is not None and locale not in settings.CMS_LOCALES:
        raise ValidationError(
            details={"locale": f"Unknown locale '{locale}'; configured: {', '.join(settings.CMS_LOCALES)}."}
        )
    return locale


def _cursor_tag(*parts) -> str:
    digest = hashlib.sha256(json.dumps(parts, separators=(",", ":")).encode()).hexdigest()[:20]
    return f"search|{digest}"


@metrics.observe_search("search")
def search(
    *,
    actor: Actor | None,
    query: str,
    collections: list[str] | None = None,
    status: str = "published",
    locale: str | None = None,
    limit: int = 20,
    cursor: str | None = None,
    query_param: str = "q",
) -> SearchPage:
    """One page of entries matching ``query``, best first, then by id. Any text is a valid query: words, "phrases",
    -exclusions and ``or`` (apps/search/query.py); what cannot match anything gives an empty page."""
    authorize(actor, "search.read", public=site_is_public)
    if not isinstance(query, str) or not query.strip():
        raise ValidationError(details={query_param: "Required: the words to search for."})
    if len(query) > MAX_QUERY_CHARS:
        raise ValidationError(
            details={
                query_param: f"At most {MAX_QUERY_CHARS} characters (got {len(query)}); shorten the query."
            }
        )
    if not 1 <= limit <= MAX_LIMIT:
        raise ValidationError(details={"limit": f"Between 1 and {MAX_LIMIT}."})
    collection_ids = _public_only(actor, _check_collections(collections, "collections"))
    variant = _check_status(actor, status)
    locale = _check_locale(locale)
    tag = _cursor_tag(query, sorted(collection_ids or ()), variant, locale)
    after = None
    if cursor:
        mode, key, entry_id = decode_cursor(cursor, CURSOR_KEYS, tag)
        if mode not in MODES or not isinstance(key, (int, float)) or not isinstance(entry_id, str):
            raise ValidationError(details={"cursor": "Pass the nextCursor of the previous page unchanged."})
        after = Position(mode, float(key), entry_id)
    parsed = parse(query)
    if (
        parsed.is_empty or collection_ids == ()
    ):  # () : an anonymous reader and no public searchable collection
        return SearchPage([], None)
    slugs = {c.pk: c.slug for c in collections_for_read()}
    result = get_search_backend().search(
        SearchRequest(
            query=parsed,
            variant=variant,
            collection_ids=collection_ids,
            locale=locale,
            limit=limit,
            after=after,
        )
    )
    hits = [
        SearchHit(slugs[hit.collection_id], hit.entry_id, hit.slug, hit.title, hit.snippet, hit.score)
        for hit in result.hits
        if hit.collection_id in slugs
    ]
    next_cursor = None
    if result.more and result.hits:
        last = result.hits[-1]
        next_cursor = encode_cursor([result.mode, last.key, last.entry_id], tag)
    return SearchPage(hits, next_cursor)


@metrics.observe_search("suggest")
def search_suggest(
    *,
    actor: Actor | None,
    query: str,
    limit: int = 5,
    collections: list[str] | None = None,
    status: str = "published",
    locale: str | None = None,
    query_param: str = "q",
) -> list[Suggestion]:
    """Entries whose title, or a word of it, starts with ``query``, ignoring case and accents: whole-title matches
    first, then matches further in, each alphabetically. Two index range scans, whatever the size of the index."""
    authorize(actor, "search.read", public=site_is_public)
    if not isinstance(query, str) or not query.strip():
        raise ValidationError(details={query_param: "Required: the beginning of a title."})
    if len(query) > MAX_QUERY_CHARS:
        raise ValidationError(
            details={
                query_param: f"At most {MAX_QUERY_CHARS} characters (got {len(query)}); shorten the query."
            }
        )
    if not 1 <= limit <= MAX_SUGGEST_LIMIT:
        raise ValidationError(details={"limit": f"Between 1 and {MAX_SUGGEST_LIMIT}."})
    collection_ids = _public_only(actor, _check_collections(collections, "collections"))
    variant = _check_status(actor, status)
    locale = _check_locale(locale)
    prefix = fold(query)[:200]
    if not prefix:
        return []
    upper = prefix[:-1] + chr(ord(prefix[-1]) + 1)
    rows = SearchSuggestion.objects.filter(key__gte=prefix, key__lt=upper, **{variant: True})
    if collection_ids is not None:
        rows = rows.filter(collection_id__in=collection_ids)
    if locale is not None:
        rows = rows.filter(locale=locale)
    slugs = {c.pk: c.slug for c in collections_for_read()}
    found: dict[str, Suggestion] = {}
    for first in (True, False):
        if len(found) >= limit:
            break
        # A title can match at several of its words: fetch extra rows so duplicates do not shorten the answer.
        matches = list(
            rows.filter(first=first)
            .order_by("key", "document_id")
            .values_list("document_id", "collection_id")[: limit * 3]
        )
        documents = {
            row[0]: row[1:]
            for row in SearchDocument.objects.filter(pk__in=[m[0] for m in matches]).values_list(
                "id", "entry_id", "slug", "title"
            )
        }
        for document_id, collection_id in matches:
            if document_id not in documents or collection_id not in slugs:
                continue
            entry_id, slug, title = documents[document_id]
            if entry_id in found:
                continue
            found[entry_id] = Suggestion(slugs[collection_id], entry_id, slug, title)
            if len(found) >= limit:
                break
    return list(found.values())


def search_stats(*, actor: Actor | None) -> dict:
    """Documents in the index per collection and locale, the index engine, and when each collection was rebuilt."""
    authorize(actor, "search.stats")
    collections = collections_for_read()
    counts = (
        SearchDocument.objects.values("collection_id", "locale")
        .annotate(
            documents=Count("id"),
            published=Count("id", filter=Q(published=True)),
            working=Count("id", filter=Q(working=True)),
        )
        .order_by("collection_id", "locale")
    )
    by_collection: dict[str, list[dict]] = {}
    for row in counts:
        by_collection.setdefault(row["collection_id"], []).append(row)
    rebuilt = {row.collection_id: row.rebuilt_at for row in SearchRebuild.objects.all()}
    items = []
    for collection in collections:
        rows = by_collection.get(collection.pk, [])
        searchable = collection.supports_feature("search")
        if not searchable and not rows:
            continue
        items.append(
            {
                "collection": collection.slug,
                "searchable": searchable,
                "documents": sum(row["documents"] for row in rows),
                "published": sum(row["published"] for row in rows),
                "working": sum(row["working"] for row in rows),
                "locales": [{"locale": row["locale"], "documents": row["documents"]} for row in rows],
                "lastRebuildAt": iso(rebuilt.get(collection.pk)),
            }
        )
    last = SearchRebuild.objects.aggregate(last=Max("rebuilt_at"))["last"]
    return {
        "engine": get_search_backend().engine(),
        "documents": sum(item["documents"] for item in items),
        "lastRebuildAt": iso(last),
        "collections": items,
    }


def search_rebuild_job_read(*, actor: Actor | None, job_id: str) -> SearchRebuildJob:
    authorize(actor, "search.rebuild")
    job = SearchRebuildJob.objects.filter(pk=job_id).first()
    if job is None:
        raise NotFound(f"No search rebuild job {job_id}.")
    return job


def search_rebuild_job_latest(*, actor: Actor | None) -> SearchRebuildJob | None:
    """The newest rebuild job, whatever its state (a page shows it again after a reload)."""
    authorize(actor, "search.rebuild")
    return SearchRebuildJob.objects.order_by("-created_at", "-id").first()
