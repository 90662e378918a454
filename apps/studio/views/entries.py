"""A collection's entries, newest first, each titled by the collection's title field."""

from __future__ import annotations

import orjson

from apps.content.selectors import entry_list
from apps.core.errors import CmsError
from apps.schema.selectors import collection_for_read, title_field
from apps.studio.access import studio_page
from apps.studio.rendering import render_studio

PAGE_SIZE = 50


def _title(row, key: str | None) -> str:
    if key and row.data_raw:
        value = orjson.loads(row.data_raw).get(key)
        if isinstance(value, str) and value.strip():
            return value
    return row.slug


@studio_page
def entry_list_page(request, collection: str):
    found = collection_for_read(slug=collection)
    key = title_field(found)
    error, status, rows, next_cursor = None, 200, [], None
    try:
        seen = entry_list(
            collection=found, actor=request.actor, cursor=request.GET.get("cursor"), limit=PAGE_SIZE
        )
        rows = [{"entry": row, "title": _title(row, key)} for row in seen.items]
        next_cursor = seen.next_cursor
    except CmsError as exc:
        error, status = exc.message, exc.status
    return render_studio(
        request,
        "studio/entries/list.html",
        {"collection": found, "rows": rows, "next_cursor": next_cursor, "error": error},
        section=f"collection:{found.slug}",
        status=status,
    )
