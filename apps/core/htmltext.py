"""HTML fragments: parsing them the way a browser would tolerate them, and the text a reader of them sees.

Rich text arrives as HTML fragments (imported posts, pasted content, raw HTML blocks). ``parse_fragment`` parses one
with lxml's HTML parser (libxml2: fast, forgiving, keeps whitespace and comments) into a ``<body>`` element holding the
fragment. ``visible_text`` is what a reader sees: text without markup, comments, scripts or styles, one line per block
element. Portable Text's ``htmlBlock`` reports its text through it, so raw HTML stays searchable and an import can
prove it kept every word.
"""

from __future__ import annotations

import re

import lxml.etree
import lxml.html

# Parse into a document of our own: comments stay (WordPress keeps meaning in them: <!--more-->, block delimiters).
_PARSER = lxml.html.HTMLParser(remove_comments=False, remove_pis=True, no_network=True)
# Characters libxml2 refuses (NUL and the C0 controls other than tab, newline and carriage return) and lone UTF-16
# surrogates (possible in Python strings, never in UTF-8) become U+FFFD, as a browser shows them.
_UNPARSABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff]")
# A fragment's own </body> or </html> would end our wrapper document early and drop what follows.
_DOCUMENT_END_TAGS = re.compile(r"</\s*(?:body|html)\s*>", re.IGNORECASE)

# Elements whose content is never shown as text.
INVISIBLE = frozenset(
    {"script", "style", "template", "noscript", "head", "title", "meta", "link", "base", "param"}
)
# Elements that start a new line of text (HTML's block-level and table elements, list items, line-like controls).
BLOCK_LEVEL = frozenset(
    {
        "address", "article", "aside", "blockquote", "body", "caption", "center", "dd", "details", "dialog", "dir",
        "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "frameset", "h1", "h2", "h3", "h4",
        "h5", "h6", "header", "hgroup", "hr", "html", "legend", "li", "main", "menu", "nav", "ol", "option", "p",
        "pre", "section", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul", "video", "audio",
        "iframe", "textarea", "select",
    }
)  # fmt: skip
PREFORMATTED = frozenset({"pre", "textarea", "listing", "plaintext", "xmp"})
_WHITESPACE = re.compile(r"[ \t\n\r\f\v]+")


def clean(html: str) -> str:
    """The fragment with what the parser cannot take replaced (see ``_UNPARSABLE``)."""
    return _UNPARSABLE.sub("\ufffd", html)


def parse_fragment(html: str) -> lxml.html.HtmlElement:
    """Parse an HTML fragment; returns a ``<body>`` element whose children are the fragment's nodes."""
    document = lxml.html.document_fromstring(
        "<html><body>" + _DOCUMENT_END_TAGS.sub("", clean(html)) + "</body></html>", parser=_PARSER
    )
    body = document.find("body")
    if body is None:  # libxml2 always makes one for this wrapper; be explicit rather than fail obscurely
        raise ValueError("The HTML fragment could not be parsed.")
    return body


def tag_of(node: lxml.etree._Element) -> str | None:
    """The lowercase tag name of an element, None for comments, processing instructions and entities."""
    tag = node.tag
    return tag.lower() if isinstance(tag, str) else None


def visible_text(html: str | lxml.etree._Element) -> str:
    """The text a reader sees: whitespace collapsed as a browser does, one line per block-level element."""
    root = parse_fragment(html) if isinstance(html, str) else html
    lines: list[str] = []
    current: list[str] = []

    def end_line() -> None:
        text = "".join(current).strip(" ")
        current.clear()
        if text:
            lines.append(text)

    def add(text: str | None, pre: bool) -> None:
        if not text:
            return
        if pre:
            for index, part in enumerate(text.split("\n")):
                if index:
                    end_line()
                current.append(part)
            return
        text = _WHITESPACE.sub(" ", text)
        if text.startswith(" ") and (not current or current[-1].endswith(" ")):
            text = text[1:]
        if text:
            current.append(text)

    def walk(node: lxml.etree._Element, pre: bool) -> None:
        for child in node:
            tag = tag_of(child)
            if tag is not None and tag not in INVISIBLE:
                if tag == "br":
                    end_line()
                else:
                    block = tag in BLOCK_LEVEL
                    if block:
                        end_line()
                    inner_pre = pre or tag in PREFORMATTED
                    add(child.text, inner_pre)
                    walk(child, inner_pre)
                    if block:
                        end_line()
            add(child.tail, pre)

    add(root.text, tag_of(root) in PREFORMATTED)
    walk(root, tag_of(root) in PREFORMATTED)
    end_line()
    return "\n".join(lines)
