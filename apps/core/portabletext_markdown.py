"""Markdown ↔ Portable Text, so agents (the MCP tool server) and people can write rich text as Markdown.

``markdown_to_portable_text(text)`` parses CommonMark (with GitHub's tables and ``~~strikethrough~~``) using
markdown-it-py: headings → ``h1``…``h6``; paragraphs; bullet and numbered lists, nested, with ``level``; block
quotes → style ``blockquote``; fenced and indented code → ``code`` (the fence's language kept); ``---`` → a
separator ``break``; images → ``image`` (the title becomes the caption, a link around it the ``href``); tables →
``table``; HTML blocks → ``htmlBlock``. Inline: ``*em*``, ``**strong**``, ``~~strike~~``, `` `code` ``, links (with
titles), autolinks, hard breaks ("\\n"); the inline HTML tags ``<u>``, ``<ins>``, ``<sup>``, ``<sub>``, ``<s>``,
``<del>``, ``<br>`` (which Markdown has no syntax for) become their marks. A soft line break is a space, as
CommonMark renders it. A paragraph that is only a link to a known embed provider becomes an ``embed``, as in
WordPress. WordPress's ``<!--more-->``, ``<!--nextpage-->`` and our ``<!--spacer-->`` become ``break`` blocks.

``portable_text_to_markdown(blocks)`` writes the same constructs back, escaping text so it reads back unchanged
(marks properly nested, spaces kept outside emphasis delimiters, line-start characters that would start a list or
heading escaped). Types Markdown cannot express degrade to the nearest thing that keeps their content: video,
audio and files become links, galleries their images, buttons links, containers their content, shortcodes their
text, section references an HTML comment.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from markdown_it import MarkdownIt
from markdown_it.token import Token

from apps.core.embeds import provider_for_url
from apps.core.portabletext import SequentialKeys

__all__ = ["markdown_to_portable_text", "portable_text_to_markdown"]

_PARSER = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
_INLINE_HTML_MARKS = {
    "u": "underline",
    "ins": "underline",
    "sup": "sup",
    "sub": "sub",
    "s": "strike-through",
    "del": "strike-through",
    "strike": "strike-through",
    "b": "strong",
    "strong": "strong",
    "i": "em",
    "em": "em",
    "code": "code",
    "kbd": "code",
}
_INLINE_TAG = re.compile(r"^<(/?)([a-zA-Z][a-zA-Z0-9]*)\b[^>]*?(/?)>$")
_BREAK_COMMENT = re.compile(r"^<!--\s*(more|nextpage|spacer)(?:\s+(.*?))?\s*-->\s*$", re.DOTALL)


# --- Markdown → Portable Text ---------------------------------------------------------------------------------------


def markdown_to_portable_text(text: str, *, keys: Callable[[], str] | None = None) -> list[dict]:
    """Convert Markdown to Portable Text blocks (valid for ``portabletext.normalize``, keys filled in)."""
    reader = _Reader(keys or SequentialKeys())
    reader.blocks(_PARSER.parse(text or ""), 0, None)
    return reader.out


@dataclass
class _Paragraph:
    style: str
    list_item: str | None
    level: int
    spans: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    links: dict[tuple[str, str], str] = field(default_factory=dict)
    mark_defs: list[dict] = field(default_factory=list)


class _Reader:
    def __init__(self, keys: Callable[[], str]) -> None:
        self.keys = keys
        self.out: list[dict] = []
        self.quote = 0
        self.lists: list[str] = []
        # The block of the list item being read, so a second paragraph in one item joins it.
        self.item_block: dict | None = None
        self.in_item = False

    def blocks(self, tokens: list[Token], start: int, stop_type: str | None) -> int:
        index = start
        while index < len(tokens):
            token = tokens[index]
            kind = token.type
            if stop_type and kind == stop_type:
                return index
            if kind == "heading_open":
                self.text_block(tokens[index + 1], token.tag, None, 0)
                index += 3
                continue
            if kind == "paragraph_open":
                inline = tokens[index + 1]
                if self.lists:
                    self.list_paragraph(inline)
                elif not self.embed(inline):
                    self.text_block(inline, "blockquote" if self.quote else "normal", None, 0)
                index += 3
                continue
            if kind == "blockquote_open":
                self.quote += 1
            elif kind == "blockquote_close":
                self.quote -= 1
            elif kind in ("bullet_list_open", "ordered_list_open"):
                self.lists.append("number" if kind == "ordered_list_open" else "bullet")
            elif kind in ("bullet_list_close", "ordered_list_close"):
                self.lists.pop()
            elif kind == "list_item_open":
                self.in_item, self.item_block = True, None
            elif kind == "list_item_close":
                self.in_item, self.item_block = False, None
            elif kind in ("fence", "code_block"):
                block = {"_type": "code", "_key": self.keys(), "code": token.content.removesuffix("\n")}
                language = (token.info or "").strip().split(" ", 1)[0]
                if language:
                    block["language"] = language
                self.emit(block)
            elif kind == "hr":
                self.emit({"_type": "break", "_key": self.keys(), "style": "separator"})
            elif kind == "html_block":
                self.html_block(token.content)
            elif kind == "table_open":
                index = self.table(tokens, index)
            index += 1
        return index

    def emit(self, block: dict) -> None:
        self.out.append(block)
        self.item_block = None

    def embed(self, inline: Token) -> bool:
        children = [
            child for child in inline.children or [] if not (child.type == "text" and not child.content)
        ]
        if len(children) == 3 and children[0].type == "link_open" and children[2].type == "link_close":
            href = str(children[0].attrs.get("href", ""))
            provider = provider_for_url(href)
            if provider and children[1].type == "text" and children[1].content == href:
                self.emit({"_type": "embed", "_key": self.keys(), "url": href, "provider": provider})
                return True
        return False

    def html_block(self, html: str) -> None:
        found = _BREAK_COMMENT.match(html.strip())
        if found:
            block: dict = {"_type": "break", "_key": self.keys(), "style": found.group(1)}
            if found.group(1) == "more" and found.group(2):
                block["customText"] = found.group(2)
            self.emit(block)
        else:
            self.emit({"_type": "htmlBlock", "_key": self.keys(), "html": html.removesuffix("\n")})

    def list_paragraph(self, inline: Token) -> None:
        level, kind = len(self.lists), self.lists[-1]
        if self.item_block is not None and self.item_block.get("level") == level:
            # A further paragraph of the same item: one item, paragraphs on separate lines.
            paragraph = _Paragraph("normal", kind, level)
            self.inline(inline, paragraph)
            self.item_block["children"].append(
                {"_type": "span", "_key": self.keys(), "text": "\n", "marks": []}
            )
            self.item_block["markDefs"].extend(paragraph.mark_defs)
            self.item_block["children"].extend(self.spans(paragraph))
            return
        self.item_block = self.text_block(inline, "normal", kind, level)

    def text_block(self, inline: Token, style: str, list_item: str | None, level: int) -> dict | None:
        paragraph = _Paragraph(style, list_item, level)
        self.inline(inline, paragraph)
        return self._flush_partial(paragraph)

    def spans(self, paragraph: _Paragraph) -> list[dict]:
        children: list[dict] = []
        for text, marks in paragraph.spans:
            if children and children[-1]["marks"] == list(marks):
                children[-1]["text"] += text
            elif text:
                children.append({"_type": "span", "_key": self.keys(), "text": text, "marks": list(marks)})
        return children

    def inline(self, inline: Token, paragraph: _Paragraph) -> None:
        marks: list[str] = []
        for child in inline.children or []:
            kind = child.type
            if kind == "text":
                paragraph.spans.append((child.content, tuple(marks)))
            elif kind == "softbreak":
                paragraph.spans.append((" ", tuple(marks)))
            elif kind == "hardbreak":
                paragraph.spans.append(("\n", tuple(marks)))
            elif kind == "code_inline":
                paragraph.spans.append((child.content, (*marks, "code")))
            elif kind in ("em_open", "strong_open", "s_open"):
                marks.append({"em_open": "em", "strong_open": "strong", "s_open": "strike-through"}[kind])
            elif kind in ("em_close", "strong_close", "s_close"):
                _remove_last(
                    marks, {"em_close": "em", "strong_close": "strong", "s_close": "strike-through"}[kind]
                )
            elif kind == "link_open":
                href, title = str(child.attrs.get("href", "")), str(child.attrs.get("title") or "")
                key = paragraph.links.get((href, title))
                if key is None:
                    key = paragraph.links[href, title] = self.keys()
                    mark_def = {"_type": "link", "_key": key, "href": href}
                    if title:
                        mark_def["title"] = title
                    paragraph.mark_defs.append(mark_def)
                marks.append(key)
            elif kind == "link_close":
                if any(mark in paragraph.links.values() for mark in marks):
                    for index in range(len(marks) - 1, -1, -1):
                        if marks[index] in paragraph.links.values():
                            del marks[index]
                            break
            elif kind == "image":
                self.image(child, paragraph, marks)
            elif kind == "html_inline":
                self.html_inline(child.content, paragraph, marks)

    def html_inline(self, html: str, paragraph: _Paragraph, marks: list[str]) -> None:
        tag = _INLINE_TAG.match(html.strip())
        if tag is None:
            return  # comments and other markup have no text
        closing, name = tag.group(1) == "/", tag.group(2).lower()
        if name == "br":
            paragraph.spans.append(("\n", tuple(marks)))
        elif name in _INLINE_HTML_MARKS:
            if closing:
                _remove_last(marks, _INLINE_HTML_MARKS[name])
            else:
                marks.append(_INLINE_HTML_MARKS[name])

    def image(self, token: Token, paragraph: _Paragraph, marks: list[str]) -> None:
        # Portable Text images are blocks: the paragraph is split around the image.
        style, list_item, level = paragraph.style, paragraph.list_item, paragraph.level
        links = {key: href for (href, _), key in paragraph.links.items()}
        href = next((links[mark] for mark in reversed(marks) if mark in links), None)
        before = _Paragraph(style, list_item, level, list(paragraph.spans), dict(paragraph.links))
        before.mark_defs = list(paragraph.mark_defs)
        self._flush_partial(before)
        paragraph.spans.clear()
        block: dict = {"_type": "image", "_key": self.keys(), "url": str(token.attrs.get("src", ""))}
        block["alt"] = token.content
        if token.attrs.get("title"):
            block["caption"] = str(token.attrs["title"])
        if href:
            block["href"] = href
        self.emit(block)

    def _flush_partial(self, paragraph: _Paragraph) -> dict | None:
        """Emit the paragraph read so far (all of it, or the part before an image) as a text block."""
        spans = list(paragraph.spans)
        while spans and not spans[-1][0].strip(" "):
            spans.pop()
        while spans and not spans[0][0].strip(" "):
            spans.pop(0)
        if not spans or not any(text.strip() for text, _ in spans):
            return None
        spans[-1] = (spans[-1][0].rstrip(" "), spans[-1][1])
        spans[0] = (spans[0][0].lstrip(" "), spans[0][1])
        paragraph.spans = spans
        used = {mark for _, marks in spans for mark in marks}
        block: dict = {
            "_type": "block",
            "_key": self.keys(),
            "style": paragraph.style,
            "markDefs": [mark_def for mark_def in paragraph.mark_defs if mark_def["_key"] in used],
        }
        if paragraph.list_item:
            block["listItem"], block["level"] = paragraph.list_item, paragraph.level
        block["children"] = self.spans(paragraph)
        self.out.append(block)
        self.item_block = None
        return block

    def table(self, tokens: list[Token], index: int) -> int:
        rows: list[dict] = []
        section = "body"
        cells: list[dict] = []
        while tokens[index].type != "table_close":
            kind = tokens[index].type
            if kind == "thead_open":
                section = "head"
            elif kind == "tbody_open":
                section = "body"
            elif kind == "tr_open":
                cells = []
            elif kind in ("th_open", "td_open"):
                paragraph = _Paragraph("normal", None, 0)
                self.inline(tokens[index + 1], paragraph)
                content = []
                if any(text.strip() for text, _ in paragraph.spans):
                    content = [
                        {
                            "_type": "block",
                            "_key": self.keys(),
                            "style": "normal",
                            "markDefs": paragraph.mark_defs,
                            "children": self.spans(paragraph),
                        }
                    ]
                cell: dict = {"_type": "tableCell", "_key": self.keys(), "content": content}
                if kind == "th_open":
                    cell["header"] = True
                cells.append(cell)
            elif kind == "tr_close":
                row: dict = {"_type": "tableRow", "_key": self.keys(), "cells": cells}
                if section == "head":
                    row["section"] = "head"
                rows.append(row)
            index += 1
        self.emit({"_type": "table", "_key": self.keys(), "rows": rows})
        return index


def _remove_last(marks: list[str], mark: str) -> None:
    for index in range(len(marks) - 1, -1, -1):
        if marks[index] == mark:
            del marks[index]
            return


# --- Portable Text → Markdown ---------------------------------------------------------------------------------------


_DELIMITERS = {"strong": ("**", "**"), "em": ("*", "*"), "strike-through": ("~~", "~~")}
# Characters with meaning inside Markdown text; a backslash makes each literal.
_ESCAPE = re.compile(r"([\\`*_\[\]<~|]|!(?=\[))")
_ENTITY = re.compile(r"&(?=#?[0-9A-Za-z]+;)")
# At the start of a line: a block quote marker (">"), or a heading, list or setext marker followed by a space or
# the line's end ("#", "+", "-", "=", "1." or "1)"), or a line of "-" or "=" (a setext underline).
_LINE_START = re.compile(r"^(\s*)(>|(?:[#+\-=]|\d+[.)])(?=\s|$)|[-=](?=[-=\s]*$))", re.MULTILINE)


def portable_text_to_markdown(blocks: Iterable[dict]) -> str:
    """Write Portable Text as Markdown that ``markdown_to_portable_text`` reads back to the same text blocks."""
    parts: list[str] = []
    previous: dict | None = None
    counters: dict[int, tuple[str, int]] = {}  # per level: the list kind and the number of the last item
    content_offsets: list[int] = []
    for block in blocks:
        kind = block.get("_type")
        if kind == "block" and block.get("listItem"):
            level = max(1, int(block.get("level") or 1))
            del content_offsets[level - 1 :]
            while len(content_offsets) < level - 1:
                content_offsets.append(content_offsets[-1] + 2 if content_offsets else 2)
            indent = content_offsets[-1] if content_offsets else 0
            counters = {depth: counter for depth, counter in counters.items() if depth <= level}
            same_list = (
                previous is not None
                and previous.get("listItem")
                and counters.get(level, ("", 0))[0] == block["listItem"]
            )
            number = counters[level][1] + 1 if same_list else 1
            counters[level] = (block["listItem"], number)
            marker = f"{number}. " if block["listItem"] == "number" else "- "
            content_offsets.append(indent + len(marker))
            text = _inline(block)
            item = " " * indent + marker + _indent(text, indent + len(marker))
            separator = "\n" if previous is not None and previous.get("listItem") else "\n\n"
            parts.append((separator if parts else "") + item)
        else:
            counters, content_offsets = {}, []
            rendered = _block(block)
            if rendered is None:
                continue
            separator = "\n\n"
            if kind == "block" and block.get("style") == "blockquote" and _is_quote(previous):
                separator = "\n>\n"
            parts.append((separator if parts else "") + rendered)
        previous = block
    return "".join(parts) + ("\n" if parts else "")


def _is_quote(block: dict | None) -> bool:
    return bool(block and block.get("_type") == "block" and block.get("style") == "blockquote")


def _indent(text: str, width: int) -> str:
    return text.replace("\n", "\n" + " " * width)


def _block(block: dict) -> str | None:
    kind = block.get("_type")
    if kind == "block":
        style = block.get("style", "normal")
        if style in ("h1", "h2", "h3", "h4", "h5", "h6"):
            return "#" * int(style[1]) + " " + _inline(block, heading=True)
        text = _inline(block)
        if not text.strip():
            return None
        if style == "blockquote":
            return "\n".join("> " + line if line else ">" for line in text.split("\n"))
        return text
    if kind == "code":
        code = block.get("code", "")
        fence = "```"
        while fence in code:
            fence += "`"
        return f"{fence}{block.get('language') or ''}\n{code}\n{fence}"
    if kind == "break":
        style = block.get("style")
        if style == "separator":
            return "---"
        if style == "more" and block.get("customText"):
            return f"<!--more {block['customText']}-->"
        return f"<!--{style}-->"
    if kind == "image":
        return _image(block)
    if kind == "htmlBlock":
        return block.get("html", "").strip("\n") or None
    if kind == "table":
        return _table(block)
    if kind == "embed":
        return f"<{block['url']}>" if block.get("url") else None
    if kind in ("video", "audio", "file"):
        label = block.get("name") or block.get("caption") or block.get("title") or block.get("url", "")
        return f"[{_escape(label)}]({_destination(block.get('url', ''))})"
    if kind == "gallery":
        return "\n\n".join(_image(image) for image in block.get("images") or []) or None
    if kind == "button":
        text = _escape(block.get("text", ""))
        return f"[{text}]({_destination(block['href'])})" if block.get("href") else text
    if kind in ("group", "cover", "mediaText"):
        return portable_text_to_markdown(block.get("content") or []).strip("\n") or None
    if kind == "columns":
        columns = [
            portable_text_to_markdown(column.get("content") or []).strip("\n") for column in block["columns"]
        ]
        return "\n\n".join(column for column in columns if column) or None
    if kind == "sectionReference":
        return f"<!-- section: {block.get('sectionId') or block.get('ref')} -->"
    if kind == "shortcode":
        return _escape(block.get("raw", "")) or None
    return None


def _image(image: dict) -> str:
    title = f' "{image["caption"]}"'.replace("\n", " ") if image.get("caption") else ""
    markdown = f"![{_escape(image.get('alt') or '')}]({_destination(image.get('url', ''))}{title})"
    return f"[{markdown}]({_destination(image['href'])})" if image.get("href") else markdown


def _table(block: dict) -> str | None:
    rows = block.get("rows") or []
    if not rows:
        return None
    lines = []
    width = max(len(row.get("cells") or []) for row in rows)
    for index, row in enumerate(rows):
        cells = [
            " <br> ".join(_inline(item, line_break="<br>") for item in cell.get("content") or [] if item.get("_type") == "block")
            for cell in row.get("cells") or []
        ]  # fmt: skip
        cells += [""] * (width - len(cells))
        lines.append("| " + " | ".join(cells) + " |")
        if index == 0:
            lines.append("|" + "|".join(["---"] * width) + "|")
    return "\n".join(lines)


def _destination(url: str) -> str:
    return f"<{url}>" if re.search(r"[\s()<>]", url) else url


def _escape(text: str) -> str:
    text = _ENTITY.sub(r"\\&", _ESCAPE.sub(r"\\\1", text))
    # "1." is escaped as "1\." (a backslash before a digit would be literal); "#", "+", "-", "=" get one before.
    return _LINE_START.sub(
        lambda match: match.group(1) + (f"{match.group(2)[:-1]}\\{match.group(2)[-1]}" if match.group(2)[0].isdigit()
                                         else "\\" + match.group(2)),
        text,
    )  # fmt: skip


def _inline(block: dict, *, heading: bool = False, line_break: str = "\\\n") -> str:
    """The spans of a text block with their marks as properly nested Markdown delimiters."""
    links = {
        mark_def["_key"]: mark_def
        for mark_def in block.get("markDefs") or []
        if mark_def.get("_type") == "link"
    }
    spans: list[tuple[str, list[str]]] = []
    for span in block.get("children") or []:
        text = span.get("text", "")
        if not text:
            continue
        if heading:
            text = text.replace("\n", " ")
        known = [mark for mark in span.get("marks") or [] if mark in links or mark in _WRITTEN]
        # Links outermost, code innermost (nothing can be inside a code span).
        known.sort(key=lambda mark: 0 if mark in links else 2 if mark == "code" else 1)
        if spans and spans[-1][1] == known:
            spans[-1] = (spans[-1][0] + text, known)  # one code span, not two touching ones
        else:
            spans.append((text, known))

    output: list[str] = []
    open_marks: list[tuple[str, str]] = []  # (mark, its closing text)

    def close_to(keep: int) -> None:
        trailing = ""
        while len(open_marks) > keep:
            # Emphasis cannot end after a space: spaces move outside the closing delimiter.
            if output and output[-1].endswith(" ") and output[-1].strip():
                stripped = output[-1].rstrip(" ")
                trailing = output[-1][len(stripped) :] + trailing
                output[-1] = stripped
            output.append(open_marks.pop()[1])
        if trailing:
            output.append(trailing)

    for index, (text, marks) in enumerate(spans):
        common = 0
        while common < len(open_marks) and common < len(marks) and open_marks[common][0] == marks[common]:
            common += 1
        if not text.strip():
            marks = marks[:common]  # no formatting opens on whitespace alone
        close_to(common)
        opening = [mark for mark in marks[common:] if mark != "code"]
        if opening:
            leading = text[: len(text) - len(text.lstrip(" "))]
            if leading:
                output.append(leading)
                text = text[len(leading) :]
        for mark in opening:
            start, end = _delimiters(mark, links, *_run(spans, index, mark))
            if start == "[" and output and output[-1].endswith("!") and not output[-1].endswith("\\!"):
                output[-1] = output[-1][:-1] + "\\!"  # "![" would start an image
            output.append(start)
            open_marks.append((mark, end))
        if "code" in marks and "\n" in text:
            # A code span cannot hold a line break; the HTML tags can, and read back as the code mark.
            output.append("<code>" + _escape(text).replace("\n", "<br>") + "</code>")
        elif "code" in marks:
            output.append(_code(text))
        else:
            output.append(_escape(text).replace("\n", line_break))
    close_to(0)
    return "".join(output)


_WRITTEN = {"strong", "em", "strike-through", "underline", "sup", "sub", "code"}
_TAGS = {"strong": "strong", "em": "em", "strike-through": "s", "underline": "u", "sup": "sup", "sub": "sub"}


def _run(spans: list[tuple[str, list[str]]], start: int, mark: str) -> tuple[str, bool]:
    """The text a mark covers from span ``start`` on, and whether the first or last span of it opens or closes
    other marks inside this one (whose delimiters, backticks or brackets would then touch this one's)."""
    parts, covered = [], []
    for text, marks in spans[start:]:
        if mark not in marks:
            break
        parts.append(text)
        covered.append(marks)
    position = covered[0].index(mark)
    nested = len(covered[0]) > position + 1 or covered[-1].index(mark) + 1 < len(covered[-1])
    return "".join(parts), nested


def _punctuation(character: str) -> bool:
    return unicodedata.category(character)[0] in "PS"


def _delimiters(mark: str, links: dict[str, dict], run: str, nested: bool) -> tuple[str, str]:
    if mark in links:
        link = links[mark]
        title = f' "{link["title"]}"' if link.get("title") else ""
        return "[", f"]({_destination(link.get('href', ''))}{title})"
    core = run.strip()
    if (
        mark in _DELIMITERS
        and core
        and not nested
        and not _punctuation(core[0])
        and not _punctuation(core[-1])
    ):
        return _DELIMITERS[mark]
    # Delimiters next to punctuation may not count as emphasis in CommonMark; the HTML tags always do.
    return f"<{_TAGS[mark]}>", f"</{_TAGS[mark]}>"


def _code(text: str) -> str:
    fence = "`"
    while fence in text:
        fence += "`"
    padding = (
        " "
        if text.startswith("`") or text.endswith("`") or (text.startswith(" ") and text.endswith(" "))
        else ""
    )
    return f"{fence}{padding}{text.replace(chr(10), ' ')}{padding}{fence}"
