"""Two versions of an entry's fields side by side, for people: Compare (live ↔ working copy) and a revision's view
(revision ↔ working copy) both show their fields through ``field_changes``, so the two pages cannot disagree about what
counts as a change or how it reads.

Values are shown readably (``shown``): Portable Text as its Markdown, never as JSON; booleans as yes/no; media by
file name with a thumbnail. Text-like fields (string, text, slug, and Portable Text through its plain text) also get a
word-level diff (``word_diff``, difflib): removed words in ``<del>``, added ones in ``<ins>``, each carrying a
visually-hidden "removed:"/"added:" so the change is not told by colour (or strike-through) alone.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass

import orjson
from django.utils.html import escape, format_html, format_html_join
from django.utils.safestring import SafeString

from apps.core.portabletext import plain_text
from apps.core.portabletext_markdown import portable_text_to_markdown
from apps.media.selectors import media_by_ids
from apps.media.storage import media_url

TEXT_TYPES = frozenset({"string", "text", "slug"})
MEDIA_TYPES = frozenset({"image", "file"})
# Words, runs of spaces, and single other characters: punctuation changes alone do not mark a whole word changed.
TOKENS = re.compile(r"\w+|\s+|[^\w\s]")
EMPTY = format_html('<span class="empty">{}</span>', "empty")
REMOVED = '<del class="diff-del"><span class="visually-hidden">removed: </span>{}</del>'
ADDED = '<ins class="diff-ins"><span class="visually-hidden">added: </span>{}</ins>'


@dataclass(frozen=True)
class FieldChange:
    slug: str
    label: str
    type: str
    changed: bool
    before: SafeString
    after: SafeString
    # The word diff from before to after, for text-like fields that changed.
    diff: SafeString | None


def _is_empty(value) -> bool:
    return value is None or value == "" or value == [] or value == {}


def diff_text(field_type: str, value) -> str | None:
    """The text a word diff compares for a value of this type, or None when the type is not text-like."""
    if field_type == "portableText":
        return plain_text(value)
    if field_type in TEXT_TYPES:
        return "" if value is None else str(value)
    return None


def shown(field_type: str, value, media: dict | None = None) -> SafeString:
    """A field value as HTML a person reads (escaped): see the module's docstring."""
    if _is_empty(value):
        return EMPTY
    if field_type == "portableText" and isinstance(value, list):
        return format_html('<div class="text-value">{}</div>', portable_text_to_markdown(value).strip())
    if field_type == "boolean":
        return format_html("{}", "Yes" if value else "No")
    if field_type in MEDIA_TYPES and isinstance(value, dict):
        item = (media or {}).get(value.get("id"))
        if item is None:
            return format_html('<span class="meta">Media item {} (missing)</span>', value.get("id", "?"))
        if field_type == "image" and item.mime_type.startswith("image/"):
            return format_html(
                '<span class="media-value"><img src="{}" alt="{}" width="64" height="64"> {}</span>',
                media_url(item.storage_key),
                value.get("alt") or item.alt,
                item.filename,
            )
        return format_html('<span class="media-value">{}</span>', item.filename)
    if isinstance(value, list) and all(isinstance(part, (str, int, float)) for part in value):
        return format_html("{}", ", ".join(str(part) for part in value))
    if isinstance(value, (dict, list)):
        text = orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode()
        return format_html('<pre class="code">{}</pre>', text)
    if field_type == "text":
        return format_html('<div class="text-value">{}</div>', value)
    return format_html("{}", value)


def word_diff(before: str, after: str) -> SafeString:
    """``after`` with the words taken out of ``before`` in ``<del>`` and the words put in ``<ins>``."""
    old, new = TOKENS.findall(before), TOKENS.findall(after)
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    parts: list[SafeString] = []
    for operation, old_start, old_end, new_start, new_end in matcher.get_opcodes():
        if operation == "equal":
            parts.append(escape("".join(new[new_start:new_end])))
            continue
        if operation in ("delete", "replace"):
            parts.append(format_html(REMOVED, "".join(old[old_start:old_end])))
        if operation in ("insert", "replace"):
            parts.append(format_html(ADDED, "".join(new[new_start:new_end])))
    return format_html_join("", "{}", ((part,) for part in parts))


def _media_ids(fields, versions: Iterable[dict]) -> set[str]:
    wanted = set()
    for values in versions:
        for field in fields:
            value = values.get(field.slug)
            if field.type in MEDIA_TYPES and isinstance(value, dict) and isinstance(value.get("id"), str):
                wanted.add(value["id"])
    return wanted


def field_values(fields, values: dict) -> list[tuple[str, SafeString]]:
    """(label, value shown) for each field in the collection's order: a version on its own."""
    media = media_by_ids(_media_ids(fields, [values]))
    return [(field.label or field.slug, shown(field.type, values.get(field.slug), media)) for field in fields]


def field_changes(fields, before: dict | None, after: dict) -> list[FieldChange]:
    """Each field of the collection (in its order) in ``before`` and ``after``, compared as values: a field changed
    when its values differ, whatever their layout."""
    before = before or {}
    media = media_by_ids(_media_ids(fields, [before, after]))
    changes = []
    for field in fields:
        old, new = before.get(field.slug), after.get(field.slug)
        changed = not (old == new or (_is_empty(old) and _is_empty(new)))
        diff = None
        if changed:
            old_text, new_text = diff_text(field.type, old), diff_text(field.type, new)
            if old_text is not None and new_text is not None:
                diff = word_diff(old_text, new_text)
        changes.append(
            FieldChange(
                slug=field.slug,
                label=field.label or field.slug,
                type=field.type,
                changed=changed,
                before=shown(field.type, old, media),
                after=shown(field.type, new, media),
                diff=diff,
            )
        )
    return changes
