"""The ``search`` tool (SPEC §4.11): the same selector as ``GET /search``, so the same answers and errors."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from apps.mcp.registry import ToolInput, tool
from apps.search import selectors
from apps.search.api.serializers import present_hit
from apps.search.query import MAX_QUERY_CHARS


class SearchIn(ToolInput):
    query: str = Field(
        min_length=1,
        max_length=MAX_QUERY_CHARS,
        description='Words to find; "a phrase" in quotes, -word to exclude, or between alternatives.',
    )
    collections: list[str] = Field(
        None, description="Only these collections (slugs); all searchable collections when omitted."
    )
    locale: str = Field(None, max_length=16, description="Only entries in this locale.")
    limit: int = Field(20, ge=1, le=50)
    cursor: str = Field(None, max_length=1000, description="nextCursor of the previous page.")
    status: Literal["published", "draft"] = Field(
        "published",
        description="'published' searches what readers see; 'draft' the working copies (contributors and up).",
    )


@tool("search", title="Search content", scope="content:read", input=SearchIn, read_only=True)
def search(actor, args: SearchIn) -> dict:
    """Full-text search over the entries of collections that support search, best matches first.

    Returns {items, nextCursor}; each item has collection, id, slug, title, a snippet with the matched words in
    <mark> tags, and score. Use content_get with the collection and id for the whole entry.
    """
    page = selectors.search(
        actor=actor,
        query=args.query,
        collections=args.collections,
        status=args.status,
        locale=args.locale,
        limit=args.limit,
        cursor=args.cursor,
        query_param="query",
    )
    return {"items": [present_hit(hit) for hit in page.results], "nextCursor": page.next_cursor}
