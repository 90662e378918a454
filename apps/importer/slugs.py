"""Slugs of imported entries: WordPress's ``post_name`` (else the title), made free in the collection and locale.

A slug taken by a live entry, or by an entry of the same batch not written yet (new entries are created together),
becomes the next free ``-2``, ``-3`` … in source order: a hundred posts named "Draft" are ``draft``, ``draft-2`` …
``draft-100``, never ``draft-2-54`` (the next free number used to be looked for after the previous candidate, each
suffix stacking on the last). What the database holds is read once per batch: the batch's wanted slugs in one query,
and for a slug that is taken, every ``slug-…`` of it in one more; the numbers after that are counted here.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from django.conf import settings

from apps.content.models import Entry
from apps.core.slugs import MAX_SLUG_LENGTH, slugify
from apps.importer.items import ImportItem

# WordPress renames a trashed post's slug to "<slug>__trashed" (then "-2" … when that is taken), so that the slug is
# free while it sits in the trash.
_TRASHED = re.compile(r"__trashed(?:-\d+)?$")


def base_slug(item: ImportItem) -> str:
    """The slug the item asks for: its ``post_name`` without WordPress's trash suffix, else its title."""
    name = unquote(item.slug)
    if item.status == "trash":
        name = _TRASHED.sub("", name)
    return slugify(name) or slugify(item.title)


class BatchSlugs:
    """The slugs of one batch's new entries, in source order."""

    def __init__(self, collection_ids: list[str], items: list[ImportItem]) -> None:
        wanted = {base_slug(item) for item in items} - {""}
        self.taken: set[tuple[str, str, str]] = set(
            Entry.objects.filter(
                collection_id__in=collection_ids, slug__in=wanted, deleted_at__isnull=True
            ).values_list("collection_id", "locale", "slug")
        )
        # Slugs given in this batch (written when its entries are), the last number given per base, and what an
        # item was given (a failing item becomes a draft under the slug it was given).
        self.assigned: set[tuple[str, str, str]] = set()
        self.numbers: dict[tuple[str, str, str], int] = {}
        self.given: dict[tuple[str, str, str], str | None] = {}

    def assign(
        self, item: ImportItem, collection_id: str, locale: str | None
    ) -> tuple[str | None, str | None]:
        """The item's slug (None when it has neither a usable name nor title), and the slug it asked for when that
        was taken (reported once: asking again gives the same slug and None)."""
        base = base_slug(item)
        locale = locale or settings.CMS_DEFAULT_LOCALE
        key = (collection_id, locale, str(item.source_id))
        if key in self.given:
            return self.given[key], None
        if not base:
            free = None
        elif not self._used(collection_id, locale, base):
            free = base
        else:
            free = self._next(collection_id, locale, base)
        if free is not None:
            self.assigned.add((collection_id, locale, free))
        self.given[key] = free
        return free, (base if free is not None and free != base else None)

    def _used(self, collection_id: str, locale: str, slug: str) -> bool:
        key = (collection_id, locale, slug)
        return key in self.taken or key in self.assigned

    def _next(self, collection_id: str, locale: str, base: str) -> str:
        key = (collection_id, locale, base)
        if key not in self.numbers:
            live = Entry.objects.filter(collection_id=collection_id, locale=locale, deleted_at__isnull=True)
            self.taken.update(
                (collection_id, locale, slug)
                for slug in live.filter(slug__gte=f"{base}-", slug__lt=f"{base}.").values_list(
                    "slug", flat=True
                )
            )
            self.numbers[key] = 1
        number = self.numbers[key]
        while True:
            number += 1
            suffix = f"-{number}"
            if len(base) + len(suffix) <= MAX_SLUG_LENGTH:
                candidate = base + suffix
            else:
                # Near the length limit the base is shortened, outside the range read above: asked for one by one.
                candidate = base[: MAX_SLUG_LENGTH - len(suffix)].rstrip("-") + suffix
                if Entry.objects.filter(
                    collection_id=collection_id, locale=locale, slug=candidate, deleted_at__isnull=True
                ).exists():
                    continue
            if not self._used(collection_id, locale, candidate):
                self.numbers[key] = number
                return candidate
