"""What import sources yield: site information, authors, terms and normalised import items (SPEC §4.10 rule 8).

Every source (a WXR file, a hosted WordPress site's API …) produces these plain, database-free values; the pipeline
turns them into collections, entries, bylines, terms, menus and media. ``ImportItem`` carries the fields of SPEC
§4.10 rule 8 (sourceId, postType, status, slug, title, content as Portable Text, excerpt, date, author, authors,
categories, tags, meta, featuredImage) and everything else a WordPress post has that an import must not lose:
the original content, custom taxonomy terms, the parent, menu order, comment settings, comments, attachment URL,
menu item data and language data. ``to_dict()`` gives the camelCase, JSON-ready form.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime
from functools import cache
from typing import Any

import orjson

from apps.core.timefmt import iso


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _json(value: Any) -> Any:
    if isinstance(value, _Record):
        return value.to_dict()
    if isinstance(value, datetime):
        return iso(value)
    if isinstance(value, dict):
        # Keys of data (meta keys, attributes) are kept exactly as the source wrote them.
        return {key: _json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json(item) for item in value]
    return value


@cache
def _names(cls: type) -> tuple[tuple[str, str], ...]:
    """(attribute, camelCase key) of a record class's fields: every item's checksum reads them."""
    return tuple((item.name, _camel(item.name)) for item in fields(cls))


class _Record:
    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        """camelCase keys, instants as ISO 8601 strings: ready for JSON."""
        return {key: _json(getattr(self, name)) for name, key in _names(type(self))}

    def shallow_dict(self) -> dict[str, Any]:
        """``to_dict()``'s keys with the values as they are, for ``orjson.dumps(…, **JSON_DUMPS)``."""
        return {key: getattr(self, name) for name, key in _names(type(self))}


def _json_default(value: Any) -> Any:
    if isinstance(value, _Record):
        return value.shallow_dict()
    if isinstance(value, datetime):
        return iso(value)
    raise TypeError(f"not JSON: {type(value).__name__}")


# orjson.dumps(record.shallow_dict(), **JSON_DUMPS) writes the same JSON as orjson.dumps(record.to_dict()), with
# orjson walking the plain data (Portable Text: thousands of nodes per post) instead of Python.
JSON_DUMPS = {
    "default": _json_default,
    "option": orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME,
}


@dataclass(slots=True)
class SiteInfo(_Record):
    title: str = ""
    link: str = ""
    description: str = ""
    language: str = ""
    wxr_version: str = ""
    # WordPress's site address and blog address (rewrite-urls maps URLs under them).
    base_site_url: str = ""
    base_blog_url: str = ""
    generator: str = ""
    exported_at: datetime | None = None


@dataclass(slots=True)
class Author(_Record):
    login: str
    source_id: int | None = None
    email: str = ""
    display_name: str = ""
    first_name: str = ""
    last_name: str = ""


@dataclass(slots=True)
class Term(_Record):
    """A category, tag or term of another taxonomy, with its parent's slug (WXR names parents by slug)."""

    taxonomy: str
    slug: str
    name: str = ""
    source_id: int | None = None
    parent: str = ""
    description: str = ""
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True, frozen=True)
class TermRef(_Record):
    """A term an item is filed under."""

    taxonomy: str
    slug: str
    name: str = ""


@dataclass(slots=True)
class Comment(_Record):
    source_id: int | None
    author: str = ""
    author_email: str = ""
    author_url: str = ""
    author_ip: str = ""
    date: datetime | None = None
    content: str = ""
    approved: str = ""
    type: str = ""
    parent_id: int | None = None
    user_id: int | None = None
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class MenuItem(_Record):
    """What a ``nav_menu_item`` post points at and where it sits (WordPress keeps this in ``_menu_item_*`` meta)."""

    menus: list[str] = field(default_factory=list)
    type: str = ""  # post_type, taxonomy, custom, post_type_archive
    object: str = ""  # the post type or taxonomy, or "custom"
    object_id: int | None = None
    parent_id: int | None = None  # the parent menu item's post id
    url: str = ""
    target: str = ""
    classes: list[str] = field(default_factory=list)
    xfn: str = ""


@dataclass(slots=True)
class Language(_Record):
    """Language data of WPML (``_wpml_import_*`` meta) or Polylang (``language``/``post_translations`` terms)."""

    code: str
    source: str  # "wpml" or "polylang"
    translation_group: str | None = None
    source_language: str | None = None


@dataclass(slots=True)
class ImportItem(_Record):
    source_id: int | str
    post_type: str
    status: str
    slug: str = ""
    title: str = ""
    # Portable Text, or None when converting the original content failed (see conversion_error).
    content: list[dict] | None = None
    raw_content: str = ""
    excerpt: str = ""
    # When it was published, in UTC: post_date_gmt, else the RSS pubDate, else post_date read as UTC, else when it
    # was last modified (WordPress's placeholders for "no date" count as none).
    date: datetime | None = None
    modified: datetime | None = None
    author: str | None = None
    authors: list[str] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    terms: list[TermRef] = field(default_factory=list)
    # Meta values unserialized; a key that occurs more than once maps to the list of its values.
    meta: dict[str, Any] = field(default_factory=dict)
    featured_image: int | None = None
    attachment_url: str | None = None
    parent_id: int | None = None
    menu_order: int = 0
    comment_status: str = ""
    ping_status: str = ""
    password: str = ""
    sticky: bool = False
    guid: str = ""
    link: str = ""
    menu_item: MenuItem | None = None
    language: Language | None = None
    comments: list[Comment] = field(default_factory=list)
    conversion_error: str | None = None
    # {code, message} when the content was converted but not faithfully (broken block markup, nesting too deep): every
    # word is in ``content``, and the pipeline saves the item as a draft with the original in _importError.
    content_problem: dict[str, str] | None = None
    # Where the item starts in its source (a line of the WXR file), for messages.
    line: int | None = None


@dataclass(slots=True)
class Notice(_Record):
    """Something the source repaired while reading (invalid UTF-8 replaced), with where it is, for the warnings."""

    code: str
    message: str
    line: int | None = None


@dataclass(slots=True)
class Skipped(_Record):
    """Something the source holds but could not turn into an item, with the reason and where it is."""

    kind: str
    reason: str
    line: int | None = None
