"""What each search operation takes (SPEC §4.7, §4.11): one model per operation and face spelling.

SPEC names the search's arguments differently on the two faces: ``GET /search`` takes ``q`` and comma-separated
``collections``, the ``search`` tool ``query`` and a list. Everything else is declared once below and shared, and
both reach the same selector, which checks the query text itself: any text is a valid query (NUL characters
included), so what the faces refuse is only what the selector refuses, worded alike.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import StringConstraints

from apps.core.shapes import Field, Input, Str, Text, choice, cursor_param, limit_param
from apps.search.query import MAX_QUERY_CHARS
from apps.search.selectors import MAX_LIMIT, MAX_SUGGEST_LIMIT

# Taken as it comes: not trimmed and without the NUL check of Str (the selector refuses blank and over-long text with
# its own message; its limits are documented here).
QueryText = Annotated[
    str,
    StringConstraints(strip_whitespace=False),
    Field(json_schema_extra={"minLength": 1, "maxLength": MAX_QUERY_CHARS}),
]
SEARCH_HELP = (
    f"At most {MAX_QUERY_CHARS} characters. "
    'Words must all match; "a phrase"; -word excludes; a or b for either.'
)
SUGGEST_HELP = "The beginning of a title, or of a word in it."
STATUS_HELP = (
    "published (default): what the public sees. "
    "draft: the working copies editors see (contributor role and up)."
)

Status = Annotated[choice("published", "draft"), Field(description=STATUS_HELP)]
Locale = Annotated[Str, Field(max_length=16, description="Only entries in this locale.")]
CollectionList = Annotated[
    Text,
    Field(
        max_length=2000,
        description="Comma-separated collection slugs (all searchable collections when omitted).",
    ),
]


class SearchQueryIn(Input):
    q: QueryText = Field(description=SEARCH_HELP)
    collections: CollectionList = None
    status: Status = "published"
    locale: Locale = None
    limit: int = limit_param(20, MAX_LIMIT)
    cursor: Str = cursor_param()


class SearchToolIn(Input):
    query: QueryText = Field(description=SEARCH_HELP)
    collections: list[str] = Field(
        None, description="Only these collections (slugs); all searchable collections when omitted."
    )
    locale: Locale = None
    limit: int = limit_param(20, MAX_LIMIT)
    cursor: Str = cursor_param()
    status: Status = "published"


class SuggestQueryIn(Input):
    q: QueryText = Field(description=SUGGEST_HELP)
    collections: CollectionList = None
    status: Status = "published"
    locale: Locale = None
    limit: int = limit_param(5, MAX_SUGGEST_LIMIT)


class RebuildIn(Input):
    collections: list[Annotated[Str, Field(max_length=63)]] = Field(
        None, description="Slugs of the collections to rebuild; every collection when omitted."
    )
    full: bool = Field(
        False, description="Delete and rewrite every document, instead of rewriting only those that differ."
    )


def split_collections(value: str | None) -> list[str] | None:
    """``a, b,`` → ``["a", "b"]``; None (every searchable collection) when nothing is named."""
    if value is None:
        return None
    slugs = [slug.strip() for slug in value.split(",") if slug.strip()]
    return slugs or None
