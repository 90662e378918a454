"""The media library as a grid of what has been uploaded, newest first, searchable by filename, alt text and caption (the full library is issue 20's)."""

from __future__ import annotations

from apps.core.errors import CmsError
from apps.media.presenters import present_media
from apps.media.selectors import media_list
from apps.studio.access import studio_page
from apps.studio.rendering import render_studio

PAGE_SIZE = 40
KINDS = {"image": "Images", "video": "Video", "audio": "Audio", "application": "Documents"}


@studio_page
def media_library(request):
    kind = request.GET.get("type") or ""
    if kind not in KINDS:
        kind = ""
    query = request.GET.get("q", "").strip()[:200]
    error, status = None, 200
    try:
        page = media_list(
            actor=request.actor,
            mime_type=kind or None,
            search=query,
            cursor=request.GET.get("cursor"),
            limit=PAGE_SIZE,
        )
        items, next_cursor = [present_media(item) for item in page.items], page.next_cursor
    except CmsError as exc:
        items, next_cursor, error, status = [], None, exc.message, exc.status
    return render_studio(
        request,
        "studio/media.html",
        {
            "items": items,
            "next_cursor": next_cursor,
            "kind": kind,
            "kinds": KINDS,
            "query": query,
            "error": error,
        },
        section="media",
        status=status,
    )
