"""A streaming reader for WordPress eXtended RSS (WXR), the file WordPress's Tools → Export writes.

``read_wxr(file)`` parses the file with defusedxml's ``iterparse`` and yields, in document order: one ``SiteInfo``
(before anything else), then ``Author``, ``Term`` (categories, tags and terms of other taxonomies) and
``ImportItem`` records (posts, pages, attachments, menu items, reusable blocks, custom post types …), and a
``Skipped`` record for anything item-like it cannot use. Each element is cleared from the tree once read, so memory
stays bounded whatever the file's size. Entity declarations and external entities are refused (defusedxml), so a
file cannot expand itself or reach out to other files or hosts.

The format, as WordPress's exporter writes it (wp-admin/includes/export.php) and its importer reads it
(wordpress-importer's parsers): an RSS 2.0 ``<channel>`` holding the site's title and link, ``wp:wxr_version``
(1.0, 1.1, 1.2), ``wp:base_site_url``/``wp:base_blog_url``, then ``wp:author``, ``wp:category``, ``wp:tag``,
``wp:term`` and ``item`` elements. Namespaces are matched by URI, never by prefix: ``wp:`` is
``http(s)://wordpress.org/export/1.N/`` of any version, ``excerpt:`` the same with ``excerpt/``, ``content:`` the
RSS content module, ``dc:`` Dublin Core. Elements of any other namespace are not WXR, whatever prefix they use.

A file that is not XML, not well-formed, declares entities, refers to an external DTD, nests elements more than
``MAX_DEPTH`` deep, holds a single tag or comment over ``MAX_MARKUP_BYTES``, or has no valid ``wp:wxr_version`` before
its first author, term or item stops with a ``WxrError`` naming the line (SPEC §7: an invalid file stops the import).
WordPress writes none of these; each would let a small file cost unbounded time or memory, or reach other files.
A single item whose content cannot be converted is still yielded, with ``content=None``, its original content and
``conversion_error`` (SPEC §7: saved as a draft, the import goes on). Bytes that are not UTF-8 in a UTF-8 file are
replaced by U+FFFD as the file streams in (``utf8.py``), each line where that happened reported by a ``Notice``.
"""

from __future__ import annotations

import html
import logging
import os
import re
import unicodedata
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import IO, Any

import defusedxml.ElementTree as DefusedElementTree
from defusedxml import DefusedXmlException, DTDForbidden

from apps.importer.blocks.convert import convert_post
from apps.importer.items import (
    Author,
    Comment,
    ImportItem,
    Language,
    MenuItem,
    Notice,
    SiteInfo,
    Skipped,
    Term,
    TermRef,
)
from apps.importer.sources.phpserialize import maybe_unserialize
from apps.importer.sources.utf8 import Utf8Repair, is_utf8

__all__ = ["MalformedWxr", "NotWxr", "WxrError", "read_wxr"]

logger = logging.getLogger(__name__)

Record = SiteInfo | Author | Term | ImportItem | Skipped | Notice

_WP = re.compile(r"^https?://wordpress\.org/export/\d+\.\d+/$")
_EXCERPT = re.compile(r"^https?://wordpress\.org/export/\d+\.\d+/excerpt/$")
_NAMESPACES = {
    "http://purl.org/rss/1.0/modules/content/": "content",
    "http://purl.org/dc/elements/1.1/": "dc",
}
_VERSION = re.compile(r"^\d+\.\d+$")
_CONTENT_ELEMENTS = {("wp", "author"), ("wp", "category"), ("wp", "tag"), ("wp", "term"), ("", "item")}
_HEADER = {
    ("", "title"): "title",
    ("", "link"): "link",
    ("", "description"): "description",
    ("", "language"): "language",
    ("", "generator"): "generator",
    ("wp", "wxr_version"): "wxr_version",
    ("wp", "base_site_url"): "base_site_url",
    ("wp", "base_blog_url"): "base_blog_url",
}
_NO_DATE = "0000-00-00 00:00:00"
_WP_DATE = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}", re.ASCII)
_OLD_PLACEHOLDER = datetime(1999, 11, 30, tzinfo=UTC)
# The year of an RSS date ("Wed, 30 Nov 2011 …"): WordPress writes four digits, or "-0001" for no date.
_RSS_YEAR = re.compile(r"\b\d{1,2}\s+[A-Za-z]{3}\s+(\S+)", re.ASCII)
# WordPress nests at most 6 levels (rss, channel, item, wp:comment, wp:commentmeta, wp:meta_key). Nothing is cleared
# from the tree until its channel child ends, so without a bound a deeply nested file is held whole in memory.
MAX_DEPTH = 64
# The longest single piece of markup (a start tag with its attributes, a comment, a processing instruction). Text and
# CDATA are not markup in this sense: expat reports them as they arrive, so long posts are not limited by it.
MAX_MARKUP_BYTES = 1024 * 1024
READ_BYTES = 64 * 1024


class WxrError(Exception):
    """The file cannot be imported; ``line`` says where (when known)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        self.message = message
        self.line = line
        super().__init__(f"{message} (line {line})" if line else message)


class NotWxr(WxrError):
    """Well-formed XML, but not a WordPress export (no RSS channel, no or an invalid WXR version)."""


class MalformedWxr(WxrError):
    """Not well-formed XML, or XML with constructs we refuse (entity declarations, external entities or DTDs, deep
    nesting, oversized markup)."""


def read_wxr(source: str | os.PathLike | IO[bytes], *, convert: bool = True) -> Iterator[Record]:
    """Read a WXR file (a path or a binary file object) as a stream of records.

    With ``convert=False`` items carry their original content only (``content`` is None) and their custom fields'
    values as written (PHP-serialized values stay text; keys, the featured image and language codes are plain):
    enough for analysis, and faster.
    """
    builder = _LineTrackingBuilder()
    parser = DefusedElementTree.DefusedXMLParser(target=builder)
    expat = builder.expat = parser.parser
    # defusedxml lets a DOCTYPE naming an external DTD through (only entities are refused); expat does not fetch it
    # today, but nothing in a WordPress export needs one, and refusing it keeps that true whatever the parser.
    expat.StartDoctypeDeclHandler = _refuse_external_dtd
    state = _State(convert)
    handle = source if hasattr(source, "read") else open(source, "rb")  # noqa: SIM115 (closed below)
    limit = _MarkupLimit(handle, expat)
    try:
        events = DefusedElementTree.iterparse(limit, events=("start", "end"), parser=parser)
        for event, element in _readable(events, expat):
            yield from state.handle(event, element, builder.lines)
            if state.site_sent and limit.utf8 is not None and limit.utf8.lines:
                yield from _notices(limit.repaired_lines())
    except ElementTree.ParseError as error:
        line, column = error.position
        reason = str(error).split(":", 1)[0]
        raise MalformedWxr(f"The file is not well-formed XML ({reason}, column {column}).", line) from error
    except DTDForbidden as error:
        raise MalformedWxr(
            "The file refers to an external document type definition (<!DOCTYPE … SYSTEM or PUBLIC …>); WordPress "
            "exports never do, and it is refused because it would load definitions from another file or host.",
            expat.CurrentLineNumber,
        ) from error
    except DefusedXmlException as error:
        raise MalformedWxr(
            "The file declares XML entities or refers to external ones; WordPress exports never do, and they are "
            "refused because they can expand without limit or read other files.",
            expat.CurrentLineNumber,
        ) from error
    finally:
        if handle is not source:
            handle.close()
    yield from state.finish(expat.CurrentLineNumber)
    yield from _notices(limit.repaired_lines())


def _notices(lines: list[int]) -> Iterator[Notice]:
    for line in lines:
        yield Notice(
            "INVALID_UTF8",
            f"Line {line} holds bytes that are not UTF-8; each was replaced by U+FFFD (\ufffd).",
            line,
        )


def _readable(events: Iterator[Any], expat: Any) -> Iterator[Any]:
    """The parser's events; an encoding the XML declaration names that Python cannot decode byte by byte stops the
    file (expat asks Python's codecs for any encoding it lacks, which fail with LookupError, ValueError or
    UnicodeError, none of them a ParseError)."""
    try:
        yield from events
    except DefusedXmlException:
        raise
    except (LookupError, ValueError) as error:
        raise MalformedWxr(
            "The XML declaration names an encoding that cannot be read; WordPress exports are UTF-8 or use a "
            "single-byte character set such as ISO-8859-1.",
            expat.CurrentLineNumber,
        ) from error


def _refuse_external_dtd(
    name: str, system_id: str | None, public_id: str | None, internal_subset: bool
) -> None:
    if system_id is not None or public_id is not None:
        raise DTDForbidden(name, system_id, public_id)


class _MarkupLimit:
    """The file as iterparse reads it, refused once one piece of markup outgrows ``MAX_MARKUP_BYTES``.

    expat before 2.6 scans an unfinished token again from its start whenever more bytes arrive, so one huge attribute
    value or comment costs time quadratic in its size (20 MB took 20 s, a 2 GB upload would take days). The limit
    bounds that; reads of 64 KB rather than iterparse's 16 KB make the rescans rarer while keeping the tree parsed
    ahead of the reader small. Between reads expat's position is the start of the token it has not finished, so the
    bytes fed since then are that token's length so far.
    """

    def __init__(self, handle: IO[bytes], expat: Any) -> None:
        self.handle = handle
        self.expat = expat
        self.fed = 0
        # Invalid UTF-8 is replaced on the way to expat (see utf8.py); None until the first chunk says the encoding.
        self.utf8: Utf8Repair | None = None
        self.checked = False

    def read(self, _size: int = -1) -> bytes:
        if self.fed - max(self.expat.CurrentByteIndex, 0) > MAX_MARKUP_BYTES:
            raise MalformedWxr(
                f"A single tag, attribute value or comment is longer than {MAX_MARKUP_BYTES // (1024 * 1024)} MB; "
                "WordPress exports have none this long (post content is text or CDATA, which is not limited).",
                self.expat.CurrentLineNumber,
            )
        data = self.handle.read(READ_BYTES)
        if not self.checked:
            self.checked = True
            self.utf8 = Utf8Repair() if is_utf8(data) else None
        if self.utf8 is not None:
            data = self.utf8.repair(data, final=not data)
        self.fed += len(data)
        return data

    def repaired_lines(self) -> list[int]:
        """Lines where invalid UTF-8 was replaced since the last call."""
        if self.utf8 is None or not self.utf8.lines:
            return []
        lines, self.utf8.lines = self.utf8.lines, []
        return lines


class _LineTrackingBuilder(ElementTree.TreeBuilder):
    """Records the line where each child of the channel starts (expat knows it while the start tag is handled).

    iterparse reports events only after parsing a whole chunk of the file, so the parser's position when an event
    is handled says nothing about that event's element.
    """

    expat: Any = None

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.lines: dict[int, int] = {}

    def start(self, tag: str, attrs: dict[str, str]) -> ElementTree.Element:
        if self.depth >= MAX_DEPTH:
            raise MalformedWxr(
                f"Elements are nested more than {MAX_DEPTH} levels deep; WordPress exports nest at most 6.",
                self.expat.CurrentLineNumber,
            )
        element = super().start(tag, attrs)
        self.depth += 1
        if self.depth == 3:
            self.lines[id(element)] = self.expat.CurrentLineNumber
        return element

    def end(self, tag: str) -> ElementTree.Element:
        self.depth -= 1
        return super().end(tag)


_names: dict[str, tuple[str, str]] = {}


def _name(tag: str) -> tuple[str, str]:
    """(namespace kind, local name): kind is "", "wp", "excerpt", "content", "dc" or the URI of another namespace."""
    known = _names.get(tag)
    if known is not None:
        return known
    if tag.startswith("{"):
        uri, local = tag[1:].split("}", 1)
        if _WP.match(uri):
            kind = "wp"
        elif _EXCERPT.match(uri):
            kind = "excerpt"
        else:
            kind = _NAMESPACES.get(uri, uri)
    else:
        kind, local = "", tag
    if len(_names) < 10_000:  # a file cannot grow this cache without bound with made-up namespaces
        _names[tag] = (kind, local)
    return kind, local


class _State:
    def __init__(self, convert: bool) -> None:
        self.convert = convert
        self.depth = 0
        self.root: ElementTree.Element | None = None
        self.channel: ElementTree.Element | None = None
        self.header: dict[str, str] = {}
        self.exported_at: datetime | None = None
        self.site_sent = False
        self.in_channel = False
        # Lines of the channel's children being read, by element id.
        self.lines: dict[int, int | None] = {}

    def handle(self, event: str, element: ElementTree.Element, lines: dict[int, int]) -> Iterator[Record]:
        if event == "start":
            self.depth += 1
            if self.depth == 1:
                self.root = element
                if _name(element.tag) != ("", "rss"):
                    raise NotWxr(
                        f"This is not a WordPress export: the document is <{_name(element.tag)[1]}>, "
                        "a WXR file is an RSS document (<rss>).",
                        1,
                    )
            elif self.depth == 2:
                if self.channel is None and _name(element.tag) == ("", "channel"):
                    self.channel = element
                    self.in_channel = True
            elif self.depth == 3:
                line = lines.pop(id(element), None)
                if self.in_channel:
                    self.lines[id(element)] = line
                    if _name(element.tag) in _CONTENT_ELEMENTS:
                        yield from self.site(line)
            return
        self.depth -= 1
        if self.depth == 2 and self.in_channel:
            yield from self.channel_child(element, self.lines.pop(id(element), None))
            # Read elements leave the tree (later siblings already parsed stay reachable through their events).
            del self.channel[:]
        elif self.depth == 1:
            if element is self.channel:
                self.in_channel = False
            elif self.root is not None and element in list(self.root):
                self.root.remove(element)

    def finish(self, line: int) -> Iterator[Record]:
        if self.channel is None:
            raise NotWxr("This is not a WordPress export: the RSS document has no <channel>.", line)
        yield from self.site(line)

    def site(self, line: int | None) -> Iterator[Record]:
        if self.site_sent:
            return
        version = self.header.get("wxr_version")
        if version is None:
            raise NotWxr(
                "This does not appear to be a WXR file: there is no <wp:wxr_version> before the first author, "
                "term or item.",
                line,
            )
        if not _VERSION.match(version):
            raise NotWxr(
                f"This does not appear to be a WXR file: the WXR version {version!r} is not valid.", line
            )
        self.site_sent = True
        yield SiteInfo(**self.header, exported_at=self.exported_at)

    def channel_child(self, element: ElementTree.Element, line: int | None) -> Iterator[Record]:
        kind, local = _name(element.tag)
        if (kind, local) in _HEADER:
            self.header.setdefault(_HEADER[kind, local], _text(element))
        elif (kind, local) == ("", "pubDate"):
            self.exported_at = self.exported_at or _rfc822(_text(element))
        elif kind == "wp" and local == "author":
            yield _author(element)
        elif kind == "wp" and local in ("category", "tag", "term"):
            term = _term(element, local)
            if term is None:
                yield Skipped(local, "it has no slug", line)
            else:
                yield term
        elif (kind, local) == ("", "item"):
            yield self.item(element, line)
        elif local in ("author", "category", "tag", "term", "item") and kind not in ("", "wp"):
            yield from self.site(line)
            yield Skipped(local, f"its namespace {kind} is not WXR's, so it is not part of the export", line)

    def item(self, element: ElementTree.Element, line: int | None) -> Record:
        fields: dict[tuple[str, str], str] = {}
        terms: list[TermRef] = []
        unnamed: list[TermRef] = []
        raw_meta: list[tuple[str, str]] = []
        comments: list[Comment] = []
        for child in element:
            kind, local = _name(child.tag)
            if (kind, local) == ("", "category"):
                domain = (child.get("domain") or "category").strip()
                taxonomy = "post_tag" if domain == "tag" else domain
                nicename = (child.get("nicename") or "").strip()
                name = html.unescape(_text(child))
                if nicename:
                    terms.append(TermRef(taxonomy, nicename, name))
                elif name.strip():
                    # WXR 1.0 repeats each term without its slug; hand-written files may only have that form.
                    unnamed.append(TermRef(taxonomy, _slugify(name), name))
            elif (kind, local) == ("wp", "postmeta"):
                meta = _meta_pair(child)
                if meta is not None:
                    raw_meta.append(meta)
            elif (kind, local) == ("wp", "comment"):
                comments.append(_comment(child))
            else:
                fields.setdefault((kind, local), _text(child))  # the first of repeated elements counts
        named = {(term.taxonomy, term.name) for term in terms}
        terms += [term for term in unnamed if term.slug and (term.taxonomy, term.name) not in named]
        # Without a post id (hand-written files), the guid identifies the item as steadily across re-imports.
        source_id: int | str | None = (
            _int(fields.get(("wp", "post_id"))) or fields.get(("", "guid"), "").strip()
        )
        post_type = fields.get(("wp", "post_type"), "").strip()
        if not source_id and source_id != 0:
            return Skipped(
                "item", "it has neither a <wp:post_id> nor a <guid>, so it cannot be identified", line
            )
        if not post_type:
            return Skipped("item", f"item {source_id} has no <wp:post_type>", line)
        meta = _meta_dict(raw_meta, unserialize=self.convert)
        raw_content = fields.get(("content", "encoded"), "")
        modified = _wp_date(fields.get(("wp", "post_modified_gmt"))) or _wp_date(
            fields.get(("wp", "post_modified"))
        )
        item = ImportItem(
            source_id=source_id,
            post_type=post_type,
            status=fields.get(("wp", "status"), "").strip() or "draft",
            slug=fields.get(("wp", "post_name"), "").strip(),
            # WordPress keeps titles HTML-escaped ("Media &amp; Text" in a CDATA section); the CMS's are text.
            title=html.unescape(fields.get(("", "title"), "")),
            raw_content=raw_content,
            excerpt=fields.get(("excerpt", "encoded"), ""),
            date=_item_date(fields, modified),
            modified=modified,
            terms=terms,
            categories=[term.slug for term in terms if term.taxonomy == "category"],
            tags=[term.slug for term in terms if term.taxonomy == "post_tag"],
            meta=meta,
            featured_image=_int(_first(meta.get("_thumbnail_id"))),
            attachment_url=fields.get(("wp", "attachment_url"), "").strip() or None,
            parent_id=_int(fields.get(("wp", "post_parent"))) or None,
            menu_order=_int(fields.get(("wp", "menu_order"))) or 0,
            comment_status=fields.get(("wp", "comment_status"), "").strip(),
            ping_status=fields.get(("wp", "ping_status"), "").strip(),
            password=fields.get(("wp", "post_password"), ""),
            sticky=fields.get(("wp", "is_sticky"), "").strip() == "1",
            guid=fields.get(("", "guid"), "").strip(),
            link=fields.get(("", "link"), "").strip(),
            comments=comments,
            line=line,
        )
        # dc:creator names the author; some hand-written files use <wp:author>login</wp:author> in the item.
        creator = (fields.get(("dc", "creator")) or fields.get(("wp", "author")) or "").strip()
        item.author = creator or None
        item.authors = _authors(creator, terms)
        if post_type == "nav_menu_item":
            item.menu_item = _menu_item(meta, terms)
        item.language = _language(meta, terms)
        if self.convert:
            try:
                item.content, item.content_problem = convert_post(raw_content)
            except Exception as error:  # one item's failure must not stop the import (SPEC §7)
                item.conversion_error = f"{type(error).__name__}: {error}"
                logger.warning(
                    "Could not convert item %s (line %s): %s", source_id, line, item.conversion_error
                )
        return item


# --- element readers ---------------------------------------------------------------------------------------------


def _text(element: ElementTree.Element) -> str:
    return element.text or ""


def _children(element: ElementTree.Element) -> dict[tuple[str, str], str]:
    values: dict[tuple[str, str], str] = {}
    for child in element:
        values.setdefault(_name(child.tag), _text(child))
    return values


def _int(value: Any) -> int | None:
    text = str(value).strip() if value is not None else ""
    if not text or len(text) > 20:
        return None
    try:
        return int(text)
    except ValueError:
        return None


def _slugify(name: str) -> str:
    """A slug for a term named without one, as WordPress's sanitize_title() would make it (ASCII letters, digits,
    hyphens; accents dropped)."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9_]+", "-", ascii_name.lower()).strip("-")


def _first(value: Any) -> Any:
    return value[0] if isinstance(value, list) and value else value


def _wp_date(value: str | None) -> datetime | None:
    """WordPress's "YYYY-MM-DD HH:MM:SS", read as UTC; None for its "0000-00-00 00:00:00" (no date yet)."""
    text = (value or "").strip()
    if not text or text == _NO_DATE:
        return None
    try:
        if _WP_DATE.fullmatch(text):
            # The exact form WordPress writes, read by the C parser (strptime was a tenth of reading an item).
            return datetime.fromisoformat(text).replace(tzinfo=UTC)
        return datetime.strptime(text, "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC)
    except ValueError:
        return None


def _item_date(fields: dict[tuple[str, str], str], modified: datetime | None) -> datetime | None:
    """post_date_gmt, else the RSS pubDate, else post_date read as UTC, else the last modification.

    A draft never published has WordPress's placeholder "0000-00-00 00:00:00" as its GMT date, and its pubDate is made
    from that placeholder (empty, "30 Nov -0001", or "30 Nov 1999" from older versions): its own post_date, the local
    time it was last saved, is then the post's date."""
    return (
        _wp_date(fields.get(("wp", "post_date_gmt")))
        or _rfc822(fields.get(("", "pubDate"), ""))
        or _wp_date(fields.get(("wp", "post_date")))
        or modified
    )


def _rfc822(value: str) -> datetime | None:
    """An RSS date; None when missing, invalid, or a placeholder WordPress writes for posts without a date: the Unix
    epoch, or its "0000-00-00 00:00:00" formatted as "30 Nov -0001" (which the email parser reads as 2000-11-30) or,
    by older versions, "Tue, 30 Nov 1999 00:00:00"."""
    text = value.strip()
    year = _RSS_YEAR.search(text)
    if not text or (year is not None and not year.group(1).isdigit()):
        return None
    try:
        parsed = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    parsed = parsed.astimezone(UTC)
    return None if parsed.timestamp() <= 0 or parsed == _OLD_PLACEHOLDER else parsed


def _author(element: ElementTree.Element) -> Author:
    values = _children(element)
    return Author(
        login=values.get(("wp", "author_login"), "").strip(),
        source_id=_int(values.get(("wp", "author_id"))),
        email=values.get(("wp", "author_email"), "").strip(),
        display_name=values.get(("wp", "author_display_name"), ""),
        first_name=values.get(("wp", "author_first_name"), ""),
        last_name=values.get(("wp", "author_last_name"), ""),
    )


def _term(element: ElementTree.Element, kind: str) -> Term | None:
    values = _children(element)
    meta = _meta_dict(
        [pair for child in element if _name(child.tag) == ("wp", "termmeta") and (pair := _meta_pair(child))]
    )
    if kind == "category":
        taxonomy, slug = "category", values.get(("wp", "category_nicename"), "")
        name, parent = values.get(("wp", "cat_name"), ""), values.get(("wp", "category_parent"), "")
        description = values.get(("wp", "category_description"), "")
    elif kind == "tag":
        taxonomy, slug, parent = "post_tag", values.get(("wp", "tag_slug"), ""), ""
        name, description = values.get(("wp", "tag_name"), ""), values.get(("wp", "tag_description"), "")
    else:
        taxonomy, slug = values.get(("wp", "term_taxonomy"), "").strip(), values.get(("wp", "term_slug"), "")
        name, parent = values.get(("wp", "term_name"), ""), values.get(("wp", "term_parent"), "")
        description = values.get(("wp", "term_description"), "")
    slug = slug.strip()
    if not slug or not taxonomy:
        return None
    return Term(
        taxonomy=taxonomy,
        slug=slug,
        name=html.unescape(name),  # escaped like titles ("Arts &amp; Crafts")
        source_id=_int(values.get(("wp", "term_id"))),
        parent=parent.strip(),
        description=description,
        meta=meta,
    )


def _meta_pair(element: ElementTree.Element) -> tuple[str, str] | None:
    values = _children(element)
    key = values.get(("wp", "meta_key"))
    if key is None:
        return None
    return key, values.get(("wp", "meta_value"), "")


def _meta_dict(pairs: list[tuple[str, str]], *, unserialize: bool = True) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    repeated: set[str] = set()
    for key, raw in pairs:
        value = maybe_unserialize(raw) if unserialize else raw
        if key not in meta:
            meta[key] = value
        elif key in repeated:
            meta[key].append(value)
        else:
            meta[key] = [meta[key], value]
            repeated.add(key)
    return meta


def _comment(element: ElementTree.Element) -> Comment:
    values = _children(element)
    return Comment(
        source_id=_int(values.get(("wp", "comment_id"))),
        author=values.get(("wp", "comment_author"), ""),
        author_email=values.get(("wp", "comment_author_email"), "").strip(),
        author_url=values.get(("wp", "comment_author_url"), "").strip(),
        author_ip=values.get(("wp", "comment_author_IP"), "").strip(),
        date=_wp_date(values.get(("wp", "comment_date_gmt"))) or _wp_date(values.get(("wp", "comment_date"))),
        content=values.get(("wp", "comment_content"), ""),
        approved=values.get(("wp", "comment_approved"), "").strip(),
        type=values.get(("wp", "comment_type"), "").strip(),
        parent_id=_int(values.get(("wp", "comment_parent"))) or None,
        user_id=_int(values.get(("wp", "comment_user_id"))) or None,
        meta=_meta_dict(
            [
                pair
                for child in element
                if _name(child.tag) == ("wp", "commentmeta") and (pair := _meta_pair(child))
            ]
        ),
    )


def _authors(creator: str, terms: list[TermRef]) -> list[str]:
    # Co-Authors Plus files co-authors under its "author" taxonomy, slugs "cap-<login>".
    logins = [creator] if creator else []
    for term in terms:
        if term.taxonomy == "author":
            login = term.slug[4:] if term.slug.startswith("cap-") else term.slug
            if login and login not in logins:
                logins.append(login)
    return logins


def _menu_item(meta: dict[str, Any], terms: list[TermRef]) -> MenuItem:
    classes = _first(meta.get("_menu_item_classes"))
    if isinstance(classes, str):
        classes = classes.split()
    return MenuItem(
        menus=[term.slug for term in terms if term.taxonomy == "nav_menu"],
        type=str(_first(meta.get("_menu_item_type")) or ""),
        object=str(_first(meta.get("_menu_item_object")) or ""),
        object_id=_int(_first(meta.get("_menu_item_object_id"))),
        parent_id=_int(_first(meta.get("_menu_item_menu_item_parent"))) or None,
        url=str(_first(meta.get("_menu_item_url")) or ""),
        target=str(_first(meta.get("_menu_item_target")) or ""),
        classes=[str(name) for name in classes if name] if isinstance(classes, list) else [],
        xfn=str(_first(meta.get("_menu_item_xfn")) or ""),
    )


def _language(meta: dict[str, Any], terms: list[TermRef]) -> Language | None:
    code = _first(meta.get("_wpml_import_language_code"))
    if isinstance(code, str) and code.strip():
        group = _first(meta.get("_wpml_import_translation_group"))
        source = _first(meta.get("_wpml_import_source_language_code"))
        return Language(
            code=code.strip(),
            source="wpml",
            translation_group=str(group).strip() if group not in (None, "") else None,
            source_language=source.strip() if isinstance(source, str) and source.strip() else None,
        )
    language = next((term.slug for term in terms if term.taxonomy == "language"), None)
    if language:
        group = next((term.slug for term in terms if term.taxonomy == "post_translations"), None)
        return Language(code=language, source="polylang", translation_group=group)
    return None
