"""Redirects, resolved paths and preview tokens as every face shows them, and the sitemap's XML."""

from __future__ import annotations

from typing import Annotated, Literal

from lxml import etree
from pydantic import Field, RootModel

from apps.content.presenters import EntryOut, present_entries
from apps.core.pagination import Page
from apps.core.shapes import Timestamp, TypedDict
from apps.core.timefmt import iso
from apps.delivery.links import links_resolved
from apps.delivery.models import Redirect
from apps.delivery.selectors import Resolved, SitemapUrl
from apps.delivery.services import Preview


class RedirectOut(TypedDict):
    id: str
    source: str
    location: str
    status: Literal[301, 302, 307, 308]
    origin: Annotated[
        Literal["manual", "auto"],
        Field(description="manual: made by someone; auto: left by the CMS when a published entry moved."),
    ]
    entryId: Annotated[str | None, Field(description="auto: the entry that moved.")]
    createdAt: Timestamp
    updatedAt: Timestamp


class RedirectPageOut(TypedDict):
    items: list[RedirectOut]
    nextCursor: str | None


class ResolvedEntryOut(TypedDict):
    kind: Literal["entry"]
    item: Annotated[EntryOut, Field(description="The published entry, as GET of the content route shows it.")]


class ResolvedRedirectOut(TypedDict):
    kind: Literal["redirect"]
    status: Literal[301, 302, 307, 308]
    location: str


class ResolvedOut(RootModel[ResolvedEntryOut | ResolvedRedirectOut]):
    """What a path shows: ``kind`` says which of the two."""


class PreviewOut(TypedDict):
    token: Annotated[
        str, Field(description="Send it as ?preview= or X-CMS-Preview to read the working copy.")
    ]
    url: Annotated[
        str | None,
        Field(description="The collection's previewUrl with the token filled in; null when it has none."),
    ]
    expiresAt: Timestamp


def present_redirect(redirect: Redirect) -> RedirectOut:
    return {
        "id": redirect.pk,
        "source": redirect.source,
        "location": redirect.location,
        "status": redirect.status,
        "origin": redirect.origin,
        "entryId": redirect.entry_id or None,
        "createdAt": iso(redirect.created_at),
        "updatedAt": iso(redirect.updated_at),
    }


def present_redirect_page(page: Page[Redirect]) -> RedirectPageOut:
    return page.to_data(present_redirect)


def present_resolved(resolved: Resolved) -> ResolvedOut:
    if resolved.entry is not None:
        item = links_resolved(present_entries(resolved.entry), resolved.entry.collection)[0]
        return {"kind": "entry", "item": item}
    redirect = resolved.redirect
    return {"kind": "redirect", "status": redirect.status, "location": redirect.location}


def present_preview(preview: Preview) -> PreviewOut:
    return {"token": preview.token, "url": preview.url, "expiresAt": iso(preview.expires_at)}


# --- sitemap (https://www.sitemaps.org/protocol.html) ---------------------------------------------------------------

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def _document(root: etree._Element) -> bytes:
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8")


def sitemap_xml(urls: list[SitemapUrl], *, site: str) -> bytes:
    """A ``<urlset>``: each entry's absolute address on ``site`` and its last change (W3C datetime)."""
    root = etree.Element("urlset", nsmap={None: SITEMAP_NS})
    for url in urls:
        node = etree.SubElement(root, "url")
        etree.SubElement(node, "loc").text = site + url.path
        etree.SubElement(node, "lastmod").text = iso(url.lastmod)
    return _document(root)


def sitemap_index_xml(parts: int, *, base: str) -> bytes:
    """A ``<sitemapindex>`` naming ``base?page=1`` … ``base?page=<parts>``."""
    root = etree.Element("sitemapindex", nsmap={None: SITEMAP_NS})
    for page in range(1, parts + 1):
        node = etree.SubElement(root, "sitemap")
        etree.SubElement(node, "loc").text = f"{base}?page={page}"
    return _document(root)
