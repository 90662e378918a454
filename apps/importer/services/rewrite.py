"""URL rewriting after a media import: old media URLs in imported entries and sections replaced by the new ones."""

from __future__ import annotations

import re
from collections.abc import Callable
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


def rewrite_urls(
    *, actor: Actor, url_map: dict[str, str], progress: Callable[[], None] | None = None
) -> dict[str, int]:
    """Replace old media URLs (also their resized ``-300x200`` variants and with query strings) in every string of
    imported entries and sections: Portable Text image URLs, link hrefs, text and string fields. Each entry is
    updated through the content service in its own transaction.

    ``progress()`` is called after each entry and section, outside their transactions: an import job renews its
    lease there, since rewriting thousands of entries takes longer than a lease, and a job left unrenewed that long
    is taken over by another worker as a dead one's and run twice at once."""
    authorize(actor, "import.run")
    rewriter = UrlRewriter(url_map)
    counts = {"entriesScanned": 0, "entriesUpdated": 0, "sectionsUpdated": 0, "urlsReplaced": 0}
    if not rewriter.map:
        return counts
    for chunk in _imported_entry_ids(200):
        for entry in Entry.objects.filter(pk__in=chunk, deleted_at__isnull=True).select_related("collection"):
            counts["entriesScanned"] += 1
            changed = {key: rewriter.walk(value) for key, value in entry.data.items()}
            changed = {key: value for key, value in changed.items() if value != entry.data.get(key)}
            if changed:
                with transaction.atomic():
                    write_imported_entry(entry, changed)
                counts["entriesUpdated"] += 1
            if progress is not None:
                progress()
    system = Actor.system()
    for section in Section.objects.filter(source=SectionSource.IMPORT):
        content = rewriter.walk(section.content)
        if content != section.content:
            site_services.section_update(actor=system, section=section, changes={"content": content})
            counts["sectionsUpdated"] += 1
        if progress is not None:
            progress()
    counts["urlsReplaced"] = rewriter.replaced
    return counts


def _imported_entry_ids(size: int):
    """The ids of every imported entry, ``size`` at a time, each page read by a query of its own. One cursor open
    over them all kept a read snapshot on SQLite while the entries were rewritten: once another connection (a
    worker's heartbeat) had committed, the next rewrite could not take the write lock and failed at once with
    "database is locked", pausing the import."""
    records = ImportRecord.objects.filter(kind="entry").exclude(target_id="").order_by("pk")
    after = None
    while True:
        page = list(
            (records if after is None else records.filter(pk__gt=after)).values_list("pk", "target_id")[:size]
        )
        if not page:
            return
        yield [target for _, target in page]
        after = page[-1][0]
