"""What the index holds for an entry: its documents, built from the entry alone (no queries), the same way by every
writer (the incremental receivers, ``POST /search/rebuild`` and ``manage.py reindex``), so a rebuild equals what the
incremental updates produced.

- Collections without ``search`` in ``supports`` have no documents; entries in the trash have none.
- The title is the ``title`` field, or when that is absent or empty the first searchable ``string`` field; it is
  always indexed (weight A on PostgreSQL, the weighted ``title`` column on SQLite). The body is the text of every other
  searchable field, in the collection's field order: strings, text, slugs (hyphens as spaces), select values and the
  plain text of Portable Text (spans, image alt and caption, code, and the visible text of the other block types).
- The published document is what the public sees: the published version (``live_data``) while the status is
  published. The working document is the working copy (``data``) that editors see, whatever the status. When the two
  have the same text they are one document carrying both flags.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from apps.schema.field_types import FIELD_TYPES

# Snippets are marked by the database with these two private-use characters, then HTML-escaped and turned into
# <mark> tags (apps/search/backends/base.py). Indexed text never contains them, so content cannot forge a mark.
MARK_START = "\ue000"
MARK_END = "\ue001"
# Longer text is cut: PostgreSQL refuses a tsvector over 1 MB, and nobody reads a snippet from the 250,000th letter.
MAX_BODY_CHARS = 250_000
MAX_TITLE_CHARS = 1_000
# Autocomplete keys: the title from each of its first words on, each at most this long (the index entry stays small).
SUGGEST_WORDS = 12
SUGGEST_KEY_CHARS = 200

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ue000\ue001]")
_NOT_WORD = re.compile(r"[\W_]+")


def clean_text(text: str) -> str:
    """Text as the index stores it: NFC (so composed and decomposed accents match), without control characters,
    the snippet mark characters, or lone surrogates (which no database encoding accepts)."""
    if not text:
        return ""
    text = text.encode("utf-8", "replace").decode("utf-8") if _has_surrogates(text) else text
    return _CONTROL.sub(" ", unicodedata.normalize("NFC", text))


def _has_surrogates(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def fold(text: str) -> str:
    """Lowercase, without diacritics, words separated by single spaces: "Café  au-Lait!" → "cafe au lait". Used for
    autocomplete keys and prefixes, so matching ignores case and accents on both databases alike."""
    decomposed = unicodedata.normalize("NFKD", clean_text(text))
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(_NOT_WORD.sub(" ", stripped.casefold()).split())


def suggestion_keys(title: str) -> list[str]:
    words = fold(title).split()
    keys = []
    for start in range(min(len(words), SUGGEST_WORDS)):
        key = " ".join(words[start:])[:SUGGEST_KEY_CHARS].rstrip()
        if key:
            keys.append(key)
    return keys


@dataclass(frozen=True)
class DocumentSpec:
    """One document to write for an entry."""

    published: bool
    working: bool
    title: str
    body: str


def _field_text(field, value: Any) -> str:
    if value is None:
        return ""
    return FIELD_TYPES[field.type].search_text(value) if field.type in FIELD_TYPES else ""


def document_text(fields, data: dict) -> tuple[str, str]:
    """(title, body) of one version of an entry (``data`` or ``live_data``); ``fields`` in the collection's order."""
    searchable = [field for field in fields if field.searchable]
    title_source = None
    title = ""
    named = next((field for field in fields if field.slug == "title"), None)
    if named is not None:
        title = _field_text(named, data.get("title")).strip()
        title_source = named if title else None
    if not title:
        fallback = next((field for field in searchable if field.type == "string"), None)
        if fallback is not None:
            title = _field_text(fallback, data.get(fallback.slug)).strip()
            title_source = fallback
    parts = [
        _field_text(field, data.get(field.slug))
        for field in searchable
        if field is not title_source and field.slug != "title"
    ]
    body = "\n".join(part for part in parts if part and part.strip())
    return clean_text(title)[:MAX_TITLE_CHARS], clean_text(body)[:MAX_BODY_CHARS]


def documents_for(entry, collection, fields) -> list[DocumentSpec]:
    """The documents ``entry`` should have now. ``fields`` are the collection's current definitions, in order."""
    if entry.deleted_at is not None or not collection.supports_feature("search"):
        return []
    working = document_text(fields, entry.data or {})
    if entry.status == "published" and entry.live_data is not None:
        same = entry.live_data is entry.data or entry.live_data == entry.data
        published = working if same else document_text(fields, entry.live_data)
        if published == working:
            return [DocumentSpec(True, True, *working)]
        return [DocumentSpec(True, False, *published), DocumentSpec(False, True, *working)]
    return [DocumentSpec(False, True, *working)]
