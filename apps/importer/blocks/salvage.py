"""What the converter does with content it cannot convert faithfully: keep every word, as plain paragraphs.

Two kinds of post need this (docs/decisions.md, "Import"):

- broken block markup (``parser.parse_blocks_checked`` reports it): a block whose conversion lost any visible word
  of its markup is replaced by ``flatten``'s paragraphs of that markup;
- content nested too deeply to convert: blocks more than ``MAX_BLOCK_NESTING`` levels deep, HTML deeper than
  libxml2 parses (it silently drops everything past depth 256 and the rest of the document with it, which published
  posts empty), or Portable Text containers deeper than ``portabletext.MAX_DEPTH`` (which an entry refuses).

``flatten`` reads HTML with the standard library's tokenizer, which keeps no tree and has no depth to exceed: text
outside scripts, styles and comments (block delimiters are comments) in document order, a new paragraph at every
block-level element, line break or blank line, whitespace collapsed, headings keeping their level.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from html.parser import HTMLParser

import lxml.etree
import lxml.html

from apps.core.htmltext import BLOCK_LEVEL, INVISIBLE
from apps.core.portabletext import MAX_DEPTH, plain_text

# Real posts nest blocks 6 levels at most (the shared exports: 148 block posts); converting blocks recurses about five
# Python frames per level, and Portable Text refuses containers nested past MAX_DEPTH anyway.
MAX_BLOCK_NESTING = 32
# libxml2 (without XML_PARSE_HUGE) stops at this depth; fewer "<" than this cannot nest that deep.
LIBXML2_MAX_DEPTH = 256
_DEPTH_CHECK = lxml.html.HTMLParser(remove_comments=True, remove_pis=True, no_network=True)
_BLANK_LINE = re.compile(r"\n[ \t\r\f\v]*\n")
_WHITESPACE = re.compile(r"\s+")
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}

TOO_DEEP = "CONTENT_TOO_DEEP"
BROKEN_MARKUP = "BROKEN_BLOCK_MARKUP"


def html_too_deep(html: str) -> bool:
    """Whether libxml2 would stop parsing ``html`` at its depth limit, dropping the rest (parsed only when the
    fragment has enough tags to nest that deep, so ordinary posts pay one ``str.count``)."""
    if html.count("<") < LIBXML2_MAX_DEPTH - 2:
        return False
    lxml.html.document_fromstring(f"<html><body>{html}</body></html>", parser=_DEPTH_CHECK)
    return any(error.type == lxml.etree.ErrorTypes.ERR_RESOURCE_LIMIT for error in _DEPTH_CHECK.error_log)


def container_depth(blocks: list) -> int:
    """How deeply Portable Text containers nest in ``blocks`` (no container: 0), counted as ``normalize`` counts."""
    deepest, stack = 0, [(blocks, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                if isinstance(item, list) and key in (
                    "content",
                    "captionContent",
                    "columns",
                    "rows",
                    "cells",
                    "images",
                ):
                    # A list holding blocks (content) is one level deeper; lists of columns, rows and cells are the
                    # containers' own structure and reach their blocks through a "content" one level further.
                    stack.append((item, depth + 1 if key in ("content", "captionContent") else depth))
                elif isinstance(item, dict):
                    stack.append((item, depth))
        elif isinstance(value, list):
            deepest = max(deepest, depth)
            stack.extend((item, depth) for item in value)
    return deepest


def too_deep_for_portable_text(blocks: list, *, nesting: int, html: str) -> bool:
    """Whether converted ``blocks`` nest containers deeper than an entry takes. Each level of blocks (``nesting``),
    each HTML table and an image's rich caption add at most one level, so most blocks are not walked at all."""
    if nesting + html.count("<table") + html.count("<TABLE") + 1 <= MAX_DEPTH:
        return False
    return container_depth(blocks) > MAX_DEPTH


def lost_words(html: str, blocks: list) -> bool:
    """Whether a word a reader of ``html`` saw is missing from ``blocks`` (in order; added words are fine)."""
    converted = plain_text(blocks).split()
    position = 0
    for word in " ".join(_paragraphs(html)[1]).split():
        try:
            position = converted.index(word, position) + 1
        except ValueError:
            return True
    return False


def flatten(html: str, keys: Callable[[], str]) -> list[dict]:
    """The visible text of ``html`` as Portable Text paragraphs (headings keep their level)."""
    styles, texts = _paragraphs(html)
    return [
        {
            "_type": "block",
            "_key": keys(),
            "style": style,
            "markDefs": [],
            "children": [{"_type": "span", "_key": keys(), "text": text, "marks": []}],
        }
        for style, text in zip(styles, texts, strict=True)
    ]


def _paragraphs(html: str) -> tuple[list[str], list[str]]:
    reader = _TextReader()
    reader.feed(html)
    reader.close()
    reader.end_paragraph()
    return reader.styles, reader.texts


class _TextReader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.styles: list[str] = []
        self.texts: list[str] = []
        self.current: list[str] = []
        self.style = "normal"
        self.hidden = 0

    def end_paragraph(self) -> None:
        text = _WHITESPACE.sub(" ", "".join(self.current)).strip()
        self.current = []
        if text:
            self.styles.append(self.style)
            self.texts.append(text)
        self.style = "normal"

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in INVISIBLE:
            self.hidden += 1
        elif tag in BLOCK_LEVEL or tag == "br":
            self.end_paragraph()
            if tag in _HEADINGS:
                self.style = tag

    def handle_startendtag(self, tag: str, attrs: list) -> None:
        if tag in BLOCK_LEVEL or tag == "br":
            self.end_paragraph()

    def handle_endtag(self, tag: str) -> None:
        if tag in INVISIBLE:
            self.hidden = max(0, self.hidden - 1)
        elif tag in BLOCK_LEVEL:
            self.end_paragraph()

    def handle_data(self, data: str) -> None:
        if self.hidden:
            return
        parts = _BLANK_LINE.split(data)
        for index, part in enumerate(parts):
            if index:
                self.end_paragraph()  # a blank line separates paragraphs in classic content (wpautop)
            self.current.append(part)
