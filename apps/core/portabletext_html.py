"""HTML → Portable Text: rich text from HTML (imported posts, pasted content) as the blocks of ``portabletext``.

``html_to_portable_text(html)`` walks the parsed fragment once. Block-level elements start new blocks: paragraphs and
``div``-like containers, headings (style ``h1``…``h6``), ``blockquote`` (style ``blockquote``), lists (``listItem``
bullet/number with ``level`` for nesting), ``pre`` (a ``code`` block), ``hr`` (a ``break``), images and figures
(``image`` with alt text, link and caption), tables (``table``), ``iframe`` (``embed``), ``video``/``audio``. Inline
elements become marks: strong/b → ``strong``, em/i → ``em``, u/ins → ``underline``, s/del/strike →
``strike-through``, code/kbd/samp/tt → ``code``, sup, sub, and links as ``link`` mark definitions (``blank: true``
for ``target="_blank"``). Markup with no Portable Text equivalent (scripts, forms, embeds, definition lists,
``details``, SVG …) is kept as an ``htmlBlock`` with its HTML, so nothing is dropped. Text is never lost: an element
we do not know keeps its text.

Whitespace follows HTML: runs collapse to one space and ``<br>`` is a line break ("\\n" inside a span). With
``autop=True`` the fragment is classic WordPress content, which WordPress renders through ``wpautop()``: a blank line
starts a new paragraph and a single newline is a line break, except next to block-level tags; ``<br><br>`` also
separates paragraphs (WordPress ``wp-includes/formatting.php``, ``wpautop``). WordPress's comments ``<!--more-->``
(with optional custom text), ``<!--noteaser-->`` and ``<!--nextpage-->`` become ``break`` blocks.

Callers that converted parts of a document themselves (the importer's nested blocks and shortcodes) mark where those
blocks go with ``<pt-insert data-ref="…">`` and pass the blocks in ``inserts``; refs not in ``inserts`` are ordinary
unknown markup. Keys come from ``keys`` (sequential by default), so converting the same HTML twice gives the same
document: re-imports can tell that nothing changed.

What each tag becomes, and the readers of single elements, are in ``apps.core.htmlelements``; the embed providers
WordPress knows are in ``apps.core.embeds``. This module keeps the walk and the document it builds.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import lxml.etree

from apps.core.htmlelements import (
    CONTAINERS,
    DECORATOR_TAGS,
    HEADINGS,
    IGNORED,
    NOT_BOLD,
    RAW_HTML,
    STYLE_MARKS,
    caption_text,
    class_names,
    code_language,
    embed_provider,
    embed_url,
    image_align,
    integer_attribute,
    opens_new_tab,
    outer_html,
    preformatted_text,
    safe_href,
    text_outside,
)
from apps.core.htmltext import parse_fragment, tag_of, visible_text
from apps.core.portabletext import SequentialKeys

__all__ = ["INSERT_TAG", "html_to_portable_text", "insert_marker"]

INSERT_TAG = "pt-insert"

_WHITESPACE = re.compile(r"[ \t\n\r\f\v]+")
# wpautop: a blank line (possibly holding spaces) separates paragraphs; a single newline is a line break.
_PARAGRAPH_BREAK = re.compile(r"\n[ \t\r\f\v]*\n[ \t\n\r\f\v]*")
_LINE_BREAK = re.compile(r"[ \t\r\f\v]*\n[ \t\r\f\v]*")
_MORE = re.compile(r"^more(?:\s+(.*))?$", re.DOTALL)


def insert_marker(ref: str) -> str:
    """The HTML that marks where the blocks ``inserts[ref]`` go."""
    return f'<{INSERT_TAG} data-ref="{ref}"></{INSERT_TAG}>'


def html_to_portable_text(
    html: str,
    *,
    autop: bool = False,
    keys: Callable[[], str] | None = None,
    inserts: Mapping[str, Sequence[dict]] | None = None,
) -> list[dict]:
    """Convert an HTML fragment to Portable Text blocks (valid for ``portabletext.normalize``, keys filled in)."""
    if not html or not html.strip():
        return []
    converter = _Converter(keys or SequentialKeys(), autop=autop, inserts=inserts or {})
    return converter.run(parse_fragment(html.replace("\r\n", "\n")), _Context())


# --- inline state ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Link:
    href: str
    blank: bool = False
    title: str | None = None


Mark = str | Link


@dataclass(frozen=True, slots=True)
class _Context:
    style: str = "normal"
    list_item: str | None = None
    level: int = 0
    marks: tuple[Mark, ...] = ()
    # Inside <pre>-like content: whitespace is kept as written.
    pre: bool = False
    # The list item element text belongs to, so several paragraphs in one <li> stay one list item.
    item: object = None


class _Paragraph:
    """A text block being built: spans of (text, marks)."""

    __slots__ = ("item", "level", "list_item", "spans", "style")

    def __init__(self, context: _Context) -> None:
        self.style = context.style
        self.list_item = context.list_item
        self.level = context.level
        self.item = context.item
        self.spans: list[list] = []

    def matches(self, context: _Context) -> bool:
        return (
            self.style == context.style
            and self.list_item == context.list_item
            and self.level == context.level
            and self.item is context.item
        )

    def last_char(self) -> str:
        for text, _ in reversed(self.spans):
            if text:
                return text[-1]
        return ""

    def add(self, text: str, marks: tuple[Mark, ...]) -> None:
        if self.spans and self.spans[-1][1] == marks:
            self.spans[-1][0] += text
        else:
            self.spans.append([text, marks])

    def strip_end(self, characters: str) -> None:
        while self.spans:
            stripped = self.spans[-1][0].rstrip(characters)
            if stripped:
                self.spans[-1][0] = stripped
                return
            self.spans.pop()

    def finish(self) -> list[list]:
        self.strip_end(" \n")
        while self.spans:
            stripped = self.spans[0][0].lstrip(" \n")
            if stripped:
                self.spans[0][0] = stripped
                break
            self.spans.pop(0)
        return [span for span in self.spans if span[0]]


# --- the converter -----------------------------------------------------------------------------------------------


class _Converter:
    def __init__(
        self, keys: Callable[[], str], *, autop: bool, inserts: Mapping[str, Sequence[dict]]
    ) -> None:
        self.keys = keys
        self.autop = autop
        self.inserts = inserts
        self.out: list[dict] = []
        self.paragraph: _Paragraph | None = None
        # The last block emitted for a list item (with its link keys), so a second paragraph of the same <li>
        # joins it.
        self.last_item: tuple[object, dict, dict[Link, str]] | None = None

    def run(self, root: lxml.etree._Element, context: _Context) -> list[dict]:
        self.children(root, context)
        self.flush()
        return self.out

    def sub(self, root: lxml.etree._Element, context: _Context) -> list[dict]:
        """Convert an element's content on its own (a table cell, a figure's content)."""
        return _Converter(self.keys, autop=self.autop, inserts=self.inserts).run(root, context)

    # -- output --

    def emit(self, block: dict) -> None:
        self.flush()
        self.out.append(block)
        self.last_item = None

    def flush(self) -> None:
        paragraph, self.paragraph = self.paragraph, None
        if paragraph is None:
            return
        spans = paragraph.finish()
        if not any(text.strip() for text, _ in spans):
            return  # empty, or only spaces and no-break spaces: spacing, not content
        if self.last_item is not None and paragraph.item is not None and self.last_item[0] is paragraph.item:
            # A further paragraph of the same list item: one item, its paragraphs on separate lines.
            _, block, links = self.last_item
            self._add_spans(block, [["\n", ()], *spans], links)
            return
        block: dict = {"_type": "block", "_key": self.keys(), "style": paragraph.style, "markDefs": []}
        if paragraph.list_item:
            block["listItem"] = paragraph.list_item
            block["level"] = paragraph.level
        block["children"] = []
        links: dict[Link, str] = {}
        self._add_spans(block, spans, links)
        self.out.append(block)
        self.last_item = (paragraph.item, block, links) if paragraph.item is not None else None

    def _add_spans(self, block: dict, spans: list[list], links: dict[Link, str]) -> None:
        for text, marks in spans:
            names: list[str] = []
            for mark in marks:
                if isinstance(mark, Link):
                    key = links.get(mark)
                    if key is None:
                        key = links[mark] = self.keys()
                        mark_def = {"_type": "link", "_key": key, "href": mark.href}
                        if mark.blank:
                            mark_def["blank"] = True
                        if mark.title:
                            mark_def["title"] = mark.title
                        block["markDefs"].append(mark_def)
                    name = key
                else:
                    name = mark
                if name not in names:
                    names.append(name)
            children = block["children"]
            if children and children[-1]["marks"] == names:
                children[-1]["text"] += text
            else:
                children.append({"_type": "span", "_key": self.keys(), "text": text, "marks": names})

    # -- text --

    def current(self, context: _Context) -> _Paragraph:
        if self.paragraph is None or not self.paragraph.matches(context):
            self.flush()
            self.paragraph = _Paragraph(context)
        return self.paragraph

    def text(self, text: str | None, context: _Context) -> None:
        if not text:
            return
        if context.pre:
            self.current(context).add(text, context.marks)
            return
        if not self.autop:
            self.add_collapsed(text, context)
            return
        for index, part in enumerate(_PARAGRAPH_BREAK.split(text)):
            if index:
                self.flush()
            for line_index, line in enumerate(_LINE_BREAK.split(part)):
                if line_index:
                    self.line_break(context, from_newline=True)
                self.add_collapsed(line, context)

    def add_collapsed(self, text: str, context: _Context) -> None:
        text = _WHITESPACE.sub(" ", text)
        if not text:
            return
        if text == " " and self.paragraph is None:
            return  # whitespace between blocks
        paragraph = self.current(context)
        if text.startswith(" ") and paragraph.last_char() in ("", " ", "\n"):
            text = text[1:]
        if text:
            paragraph.add(text, context.marks)

    def line_break(self, context: _Context, *, from_newline: bool = False) -> None:
        paragraph = self.paragraph
        if paragraph is None or not paragraph.spans:
            return  # a break before any text shows nothing
        if paragraph.last_char() == "\n":
            if from_newline:
                return  # wpautop puts no second break after a <br> that ends its line
            if self.autop:
                self.flush()  # <br><br> separates paragraphs in classic content
                return
        paragraph.strip_end(" ")
        paragraph.add("\n", context.marks)

    # -- elements --

    def children(self, element: lxml.etree._Element, context: _Context) -> None:
        self.text(element.text, context)
        for child in element:
            self.node(child, context)
            self.text(child.tail, context)

    def node(self, element: lxml.etree._Element, context: _Context) -> None:
        tag = tag_of(element)
        if tag is None:
            if element.tag is lxml.etree.Comment:
                self.comment(element.text or "")
            return
        if tag in IGNORED:
            return
        style = element.get("style")
        if style and tag not in RAW_HTML:
            context = _styled(context, style, tag)
        if tag in DECORATOR_TAGS:
            if tag in ("b", "strong") and style and NOT_BOLD.search(style):
                # Google Docs wraps pasted documents in <b style="font-weight:normal">: not bold at all.
                self.children(element, context)
            else:
                self.children(element, replace(context, marks=(*context.marks, DECORATOR_TAGS[tag])))
        elif tag == "a":
            self.anchor(element, context)
        elif tag == "br":
            self.line_break(context)
        elif tag in CONTAINERS:
            self.flush()
            self.children(element, context)
            self.flush()
        elif tag in HEADINGS:
            self.flush()
            self.children(element, replace(context, style=tag, list_item=None, level=0, item=None))
            self.flush()
        elif tag == "blockquote":
            self.flush()
            self.children(element, replace(context, style="blockquote"))
            self.flush()
        elif tag in ("ul", "ol", "menu", "dir"):
            self.list(element, context, "number" if tag == "ol" else "bullet")
        elif tag == "li":
            self.list_item(element, context)
        elif tag in ("pre", "listing", "xmp", "plaintext"):
            self.preformatted(element, context)
        elif tag == "hr":
            self.emit({"_type": "break", "_key": self.keys(), "style": "separator"})
        elif tag == "img":
            self.image(element, context)
        elif tag == "figure":
            self.figure(element, context)
        elif tag == "picture":
            # <picture> offers sources for one image; its <img> says what it shows.
            image = next(element.iter("img"), None)
            if image is not None:
                self.image(image, context)
            else:
                self.raw(element)
        elif tag == "table":
            self.table(element, context)
        elif tag == "iframe":
            self.iframe(element)
        elif tag in ("video", "audio"):
            self.media(element, tag)
        elif tag == INSERT_TAG and element.get("data-ref") in self.inserts:
            self.insert(self.inserts[element.get("data-ref")], context)
        elif tag in RAW_HTML:
            self.raw(element, context)
        else:
            # Anything else (span, font, mark, abbr, cite, custom elements …) is inline: its text flows on.
            self.children(element, context)

    def comment(self, text: str) -> None:
        text = text.strip()
        more = _MORE.match(text)
        if more:
            block = {"_type": "break", "_key": self.keys(), "style": "more"}
            if more.group(1) and more.group(1).strip():
                block["customText"] = more.group(1).strip()
            self.emit(block)
        elif text == "noteaser":
            for block in reversed(self.out):
                if block["_type"] == "break" and block["style"] == "more":
                    block["noTeaser"] = True
                    break
        elif text == "nextpage":
            self.emit({"_type": "break", "_key": self.keys(), "style": "nextpage"})

    def anchor(self, element: lxml.etree._Element, context: _Context) -> None:
        link = _anchor_link(element)
        if link is None:
            self.children(element, context)
            return
        self.children(element, replace(context, marks=(*context.marks, link)))

    def list(self, element: lxml.etree._Element, context: _Context, kind: str) -> None:
        self.flush()
        inner = replace(context, list_item=kind, level=context.level + 1, item=object())
        self.text(element.text, inner)
        for child in element:
            if tag_of(child) == "li":
                self.list_item(child, inner)
            else:
                self.node(child, inner)
            self.text(child.tail, inner)
        self.flush()

    def list_item(self, element: lxml.etree._Element, context: _Context) -> None:
        self.flush()
        if context.list_item is None:  # an <li> outside any list
            context = replace(context, list_item="bullet", level=1)
        self.children(element, replace(context, item=object()))
        self.flush()

    def preformatted(self, element: lxml.etree._Element, context: _Context) -> None:
        classes = class_names(element)
        if "wp-block-verse" in classes:
            # Poetry keeps its line breaks and spacing, and its formatting: text, not code.
            self.flush()
            self.children(element, replace(context, pre=True))
            self.flush()
            return
        code = preformatted_text(element)
        if not code.strip():
            return
        block = {"_type": "code", "_key": self.keys(), "code": code}
        language = code_language(element)
        if language:
            block["language"] = language
        self.emit(block)

    def image(self, element: lxml.etree._Element, context: _Context, caption: str | None = None) -> None:
        block = _image_block(element, self.keys, _link_of(context), caption)
        if block is not None:
            self.emit(block)

    def figure(self, element: lxml.etree._Element, context: _Context) -> None:
        caption_element = next((child for child in element if tag_of(child) == "figcaption"), None)
        caption = caption_text(caption_element)
        media = [
            node
            for node in element.iter()
            if tag_of(node) in ("img", "table", "video", "audio", "iframe") and node is not element
        ]
        classes = class_names(element)
        if "wp-block-embed" in classes or "wp-block-embed__wrapper" in classes:
            url = embed_url(element, caption_element)
            if url:
                block = {"_type": "embed", "_key": self.keys(), "url": url}
                provider = embed_provider(classes, url)
                if provider:
                    block["provider"] = provider
                if caption:
                    block["caption"] = caption
                self.emit(block)
                return
        if len(media) == 1 and not text_outside(element, media[0], caption_element):
            kind = tag_of(media[0])
            if kind == "img":
                link = _link_of(context)
                parent = media[0].getparent()
                if link is None and parent is not None and tag_of(parent) == "a":
                    link = _anchor_link(parent)
                block = _image_block(media[0], self.keys, link, caption)
                if block is not None:
                    self.emit(block)
                    return
            elif kind == "table":
                self.table(media[0], context, caption)
                return
            elif kind == "iframe":
                self.iframe(media[0], caption)
                return
            else:
                self.media(media[0], kind, caption)
                return
        self.flush()
        self.children(element, context)
        self.flush()

    def table(self, element: lxml.etree._Element, context: _Context, caption: str | None = None) -> None:
        rows: list[dict] = []
        cell_context = _Context(marks=context.marks)

        def add_row(row: lxml.etree._Element, section: str) -> None:
            cells = []
            for cell in row:
                cell_tag = tag_of(cell)
                if cell_tag not in ("td", "th"):
                    continue
                entry: dict = {
                    "_type": "tableCell",
                    "_key": self.keys(),
                    "content": self.sub(cell, cell_context),
                }
                if cell_tag == "th":
                    entry["header"] = True
                for attribute, name in (("colspan", "colSpan"), ("rowspan", "rowSpan")):
                    span = integer_attribute(cell.get(attribute))
                    if span and span > 1:
                        entry[name] = span
                cells.append(entry)
            item: dict = {"_type": "tableRow", "_key": self.keys(), "cells": cells}
            if section != "body":
                item["section"] = section
            rows.append(item)

        for child in element:
            child_tag = tag_of(child)
            if child_tag == "tr":
                add_row(child, "body")
            elif child_tag in ("thead", "tbody", "tfoot"):
                section = {"thead": "head", "tbody": "body", "tfoot": "foot"}[child_tag]
                for row in child:
                    if tag_of(row) == "tr":
                        add_row(row, section)
            elif child_tag == "caption" and caption is None:
                caption = caption_text(child)
        if not rows:
            self.raw(element)
            return
        block: dict = {"_type": "table", "_key": self.keys(), "rows": rows}
        if caption:
            block["caption"] = caption
        self.emit(block)

    def iframe(self, element: lxml.etree._Element, caption: str | None = None) -> None:
        url = (element.get("src") or element.get("data-src") or "").strip()
        if not url:
            self.raw(element)
            return
        block = {"_type": "embed", "_key": self.keys(), "url": url, "html": outer_html(element)}
        provider = embed_provider(set(), url)
        if provider:
            block["provider"] = provider
        if caption:
            block["caption"] = caption
        self.emit(block)

    def media(self, element: lxml.etree._Element, kind: str, caption: str | None = None) -> None:
        url = (element.get("src") or "").strip()
        if not url:
            source = next((child for child in element.iter("source") if child.get("src")), None)
            url = (source.get("src") or "").strip() if source is not None else ""
        fallback = visible_text(element)
        if not url:
            self.raw(element)
            return
        block = {"_type": kind, "_key": self.keys(), "url": url}
        if kind == "video" and element.get("poster"):
            block["poster"] = element.get("poster")
        if caption:
            block["caption"] = caption
        self.emit(block)
        if fallback:
            # Text inside <video>/<audio> is shown by browsers that cannot play it: keep it with the markup.
            self.raw(element)

    def insert(self, blocks: Sequence[dict], context: _Context) -> None:
        self.flush()
        for block in blocks:
            if (
                context.style == "blockquote"
                and block.get("_type") == "block"
                and block.get("style", "normal") == "normal"
                and "listItem" not in block
            ):
                block = {**block, "style": "blockquote"}
            self.emit(block)

    def raw(self, element: lxml.etree._Element, context: _Context | None = None) -> None:
        if context is not None and any(
            marker.get("data-ref") in self.inserts for marker in element.iter(INSERT_TAG)
        ):
            # Blocks converted elsewhere sit inside (a <details> block's paragraphs): convert around them instead
            # of keeping markup that would hold only their markers.
            self.flush()
            self.children(element, context)
            self.flush()
            return
        self.emit(
            {
                "_type": "htmlBlock",
                "_key": self.keys(),
                "html": outer_html(element),
                "originalType": tag_of(element),
            }
        )


# --- helpers -----------------------------------------------------------------------------------------------------


def _styled(context: _Context, style: str, tag: str) -> _Context:
    """The context with the marks an element's inline style adds (and bold removed where it says normal)."""
    marks = list(context.marks)
    if "strong" in marks and NOT_BOLD.search(style) and tag not in ("b", "strong"):
        marks.remove("strong")
    in_link = tag == "a" or any(isinstance(mark, Link) for mark in marks)
    for pattern, mark in STYLE_MARKS:
        # Links are underlined by default; an underline style on one is its look, not the author's emphasis.
        if mark not in marks and pattern.search(style) and not (mark == "underline" and in_link):
            marks.append(mark)
    return context if marks == list(context.marks) else replace(context, marks=tuple(marks))


def _link_of(context: _Context) -> Link | None:
    return next((mark for mark in reversed(context.marks) if isinstance(mark, Link)), None)


def _anchor_link(anchor: lxml.etree._Element) -> Link | None:
    href = safe_href(anchor)
    if href is None:
        return None
    return Link(href, opens_new_tab(anchor), anchor.get("title") or None)


def _image_block(
    element: lxml.etree._Element, keys: Callable[[], str], link: Link | None, caption: str | None
) -> dict | None:
    url = (element.get("src") or element.get("data-src") or "").strip()
    alt = element.get("alt")
    if not url and not alt:
        return None
    block: dict = {"_type": "image", "_key": keys()}
    if url:
        block["url"] = url
    if alt is not None:
        block["alt"] = alt
    if caption:
        block["caption"] = caption
    for name in ("width", "height"):
        number = integer_attribute(element.get(name))
        if number:
            block[name] = number
    if link is not None:
        block["href"] = link.href
    align = image_align(element)
    if align:
        block["align"] = align
    return block
