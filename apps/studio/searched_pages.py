"""A studio list with a search box and cursor pages (redirects, sections): the query string validated by the REST
list's input model, one page read by the domain's selector, and the links to the next and the first page."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.urls import reverse

from apps.core import shapes


@dataclass(frozen=True)
class SearchedPage:
    items: list
    search: str
    next_url: str | None
    first_url: str | None


def searched_page(request, *, query: type[shapes.Input], read: Callable[..., Any], url_name: str, limit: int):
    """``read(actor=, search=, cursor=, limit=)`` is the selector; ``url_name`` names the page, for its links."""
    search = request.GET.get("q", "").strip()
    sent = {"search": search, "cursor": request.GET.get("cursor"), "limit": limit}
    asked = shapes.validate(query, {key: value for key, value in sent.items() if value})
    page = read(actor=request.actor, search=asked.search, cursor=asked.cursor, limit=asked.limit)
    base = reverse(url_name)
    more = {"q": search} if search else {}
    return SearchedPage(
        items=page.items,
        search=search,
        next_url=f"{base}?{urlencode({**more, 'cursor': page.next_cursor})}" if page.next_cursor else None,
        first_url=(f"{base}?{urlencode(more)}" if more else base) if asked.cursor else None,
    )
