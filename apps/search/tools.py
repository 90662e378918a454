"""The ``search`` tool (SPEC §4.11): the same selector as ``GET /search``, so the same answers and errors."""

from __future__ import annotations

from apps.mcp.registry import tool
from apps.search import selectors
from apps.search.inputs import SearchToolIn
from apps.search.presenters import SearchItemsOut, present_items


@tool(
    "search",
    title="Search content",
    operation="search.read",
    input=SearchToolIn,
    read_only=True,
    output=SearchItemsOut,
)
def search(actor, args: SearchToolIn) -> SearchItemsOut:
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
    return present_items(page)
