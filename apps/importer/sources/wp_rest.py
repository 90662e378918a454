"""Reading a WordPress site through its REST API (``wp/v2``): shared by the self-hosted and the hosted source.

Collections are paged with ``per_page=100`` and ``X-WP-TotalPages``; every request goes through the safe HTTP client.
Posts, pages and media become the same normalised records a WXR file gives (``apps.importer.items``), so the
pipeline treats both alike: users → ``Author``, categories and tags → ``Term`` (parents by slug, as WXR names them),
posts and pages → ``ImportItem`` with their content converted to Portable Text, media → attachment items.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from apps.core import safehttp
from apps.core.htmltext import visible_text
from apps.importer.blocks.convert import convert_post
from apps.importer.items import Author, ImportItem, SiteInfo, Term, TermRef

logger = logging.getLogger("cms.importer")
PAGE_SIZE = 100
MAX_PAGES = 10_000


class RestError(Exception):
    """The API answered something other than what a WordPress REST API answers."""


def get_json(url: str, *, token: str | None = None, timeout: float = 20.0) -> tuple[Any, dict[str, str]]:
    headers = {"Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    response = safehttp.fetch(url, headers=headers, read_timeout=timeout, total_timeout=timeout * 3)
    if not response.ok:
        raise RestError(f"{url} answered HTTP {response.status}.")
    try:
        return response.json(), {key.lower(): value for key, value in response.headers.items()}
    except ValueError as error:
        raise RestError(f"{url} did not answer JSON.") from error


def total(url: str, *, token: str | None = None) -> int | None:
    """How many items a collection holds, from ``X-WP-Total`` (one item fetched)."""
    separator = "&" if "?" in url else "?"
    try:
        _, headers = get_json(f"{url}{separator}per_page=1", token=token, timeout=10.0)
    except (RestError, safehttp.SafeHttpError):
        return None
    value = headers.get("x-wp-total", "")
    return int(value) if value.isdigit() else None


def paged(url: str, *, token: str | None = None, params: str = "") -> Iterator[dict[str, Any]]:
    page = 1
    while page <= MAX_PAGES:
        separator = "&" if "?" in url else "?"
        data, headers = get_json(f"{url}{separator}per_page={PAGE_SIZE}&page={page}{params}", token=token)
        if not isinstance(data, list):
            raise RestError(f"{url} did not answer a list.")
        yield from data
        pages = headers.get("x-wp-totalpages", "1")
        if not data or not pages.isdigit() or page >= int(pages):
            return
        page += 1


def _text(value: Any) -> str:
    if isinstance(value, dict):
        value = value.get("raw", value.get("rendered", ""))
    return html.unescape(value) if isinstance(value, str) else ""


def _html(value: Any) -> str:
    if isinstance(value, dict):
        return value.get("raw") or value.get("rendered") or ""
    return value if isinstance(value, str) else ""


def _date(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def read_site(base: str, *, token: str | None = None, site: SiteInfo) -> Iterator[Any]:
    """Everything the API at ``base`` (ending in ``wp/v2``) holds, as normalised records."""
    yield site
    users: dict[int, str] = {}
    for user in paged(f"{base}/users", token=token):
        login = user.get("slug") or str(user.get("id"))
        users[user.get("id")] = login
        yield Author(login=login, source_id=user.get("id"), display_name=user.get("name") or login)
    terms: dict[tuple[str, int], Term] = {}
    for taxonomy, path in (("category", "categories"), ("post_tag", "tags")):
        found = list(paged(f"{base}/{path}", token=token))
        slugs = {item.get("id"): item.get("slug") for item in found}
        for item in found:
            term = Term(
                taxonomy=taxonomy,
                slug=item.get("slug") or str(item.get("id")),
                name=html.unescape(item.get("name") or ""),
                source_id=item.get("id"),
                parent=slugs.get(item.get("parent")) or "",
                description=item.get("description") or "",
            )
            terms[(taxonomy, item.get("id"))] = term
            yield term
    for item in paged(f"{base}/media", token=token):
        yield ImportItem(
            source_id=item["id"],
            post_type="attachment",
            status="inherit",
            slug=item.get("slug") or "",
            title=_text(item.get("title")),
            date=_date(item.get("date_gmt")),
            attachment_url=item.get("source_url"),
            guid=_text(item.get("guid")),
            parent_id=item.get("post"),
        )
    context = "&context=edit" if token else ""
    for path in ("posts", "pages"):
        for item in paged(f"{base}/{path}", token=token, params=f"{context}&status=any" if token else ""):
            yield _item(item, users, terms)


def _item(item: dict[str, Any], users: dict[int, str], terms: dict[tuple[str, int], Term]) -> ImportItem:
    raw = _html(item.get("content"))
    refs = [
        TermRef(taxonomy, terms[(taxonomy, term_id)].slug, terms[(taxonomy, term_id)].name)
        for taxonomy, key in (("category", "categories"), ("post_tag", "tags"))
        for term_id in item.get(key) or []
        if (taxonomy, term_id) in terms
    ]
    excerpt = _html(item.get("excerpt"))
    record = ImportItem(
        source_id=item["id"],
        post_type=item.get("type") or "post",
        status=item.get("status") or "publish",
        slug=item.get("slug") or "",
        title=_text(item.get("title")),
        raw_content=raw,
        excerpt=visible_text(excerpt).strip() if excerpt else "",
        date=_date(item.get("date_gmt")),
        modified=_date(item.get("modified_gmt")),
        author=users.get(item.get("author")),
        categories=[ref.slug for ref in refs if ref.taxonomy == "category"],
        tags=[ref.slug for ref in refs if ref.taxonomy == "post_tag"],
        terms=refs,
        meta={key: value for key, value in (item.get("meta") or {}).items()}
        if isinstance(item.get("meta"), dict)
        else {},
        featured_image=item.get("featured_media") or None,
        parent_id=item.get("parent") or None,
        menu_order=item.get("menu_order") or 0,
        comment_status=item.get("comment_status") or "",
        ping_status=item.get("ping_status") or "",
        sticky=bool(item.get("sticky")),
        # The password itself (context=edit), else only the REST API's "content.protected" flag: either keeps the
        # post out of public view (the pipeline imports it as a draft).
        password=str(item.get("password") or "")
        or (
            "protected"
            if isinstance(item.get("content"), dict) and item["content"].get("protected") is True
            else ""
        ),
        guid=_text(item.get("guid")),
        link=item.get("link") or "",
    )
    try:
        record.content, record.content_problem = convert_post(raw)
    except Exception as error:  # one item's failure must not stop the import (SPEC §7)
        record.conversion_error = f"{type(error).__name__}: {error}"
    return record
