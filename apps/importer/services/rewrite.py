"""URL rewriting after a media import: old media URLs in imported entries and sections replaced by the new ones."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from django.db import transaction

from apps.accounts.permissions import Actor, authorize
from apps.content.models import Entry
from apps.importer.models import ImportRecord
from apps.importer.services.records import write_imported_entry
from apps.site import services as site_services
from apps.site.models import Section, SectionSource

_URL = re.compile(r"""https?://[^\s"'<>()\[\]{}]+""", re.IGNORECASE)
_SIZE = re.compile(r"-\d+x\d+(?=\.[A-Za-z0-9]+$)")
_SCALED = re.compile(r"-(?:scaled|rotated)(?=\.[A-Za-z0-9]+$)")


def _url_key(url: str) -> str:
    """The form old URLs are matched in: no query or fragment, no ``-300x200`` size suffix, http and https alike."""
    parts = urlsplit(url)
    path = _SCALED.sub("", _SIZE.sub("", parts.path))
    return f"{parts.netloc.lower()}{path}"


class UrlRewriter:
    def __init__(self, url_map: dict[str, str]):
        self.map = {_url_key(old): new for old, new in url_map.items() if old and new}
        self.replaced = 0

    def text(self, value: str) -> str:
        if "://" not in value:
            return value

        def swap(match: re.Match) -> str:
            found = match.group(0)
            new = self.map.get(_url_key(found))
            if new is None:
                return found
            self.replaced += 1
            return new

        return _URL.sub(swap, value)

    def walk(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.walk(item) for item in value]
        if isinstance(value, dict):
            return {key: self.walk(item) for key, item in value.items()}
        return value


def rewrite_urls(*, actor: Actor, url_map: dict[str, str]) -> dict[str, int]:
    """Replace old media URLs (also their resized ``-300x200`` variants and with query strings) in every string of
    imported entries and sections: Portable Text image URLs, link hrefs, text and string fields. Each entry is
    updated through the content service in its own transaction."""
    authorize(actor, "import.run")
    rewriter = UrlRewriter(url_map)
    counts = {"entriesScanned": 0, "entriesUpdated": 0, "sectionsUpdated": 0, "urlsReplaced": 0}
    if not rewriter.map:
        return counts
    entry_ids = (
        ImportRecord.objects.filter(kind="entry").exclude(target_id="").values_list("target_id", flat=True)
    )
    for chunk in _chunks(entry_ids.iterator(), 200):
        for entry in Entry.objects.filter(pk__in=chunk, deleted_at__isnull=True).select_related("collection"):
            counts["entriesScanned"] += 1
            changed = {key: rewriter.walk(value) for key, value in entry.data.items()}
            changed = {key: value for key, value in changed.items() if value != entry.data.get(key)}
            if changed:
                with transaction.atomic():
                    write_imported_entry(entry, changed)
                counts["entriesUpdated"] += 1
    system = Actor.system()
    for section in Section.objects.filter(source=SectionSource.IMPORT):
        content = rewriter.walk(section.content)
        if content != section.content:
            site_services.section_update(actor=system, section=section, changes={"content": content})
            counts["sectionsUpdated"] += 1
    counts["urlsReplaced"] = rewriter.replaced
    return counts


def _chunks(iterator, size: int):
    chunk = []
    for value in iterator:
        chunk.append(value)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
