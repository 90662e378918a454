"""What HTML elements mean in rich text, and readers of their attributes and content.

The tables sort tags by what they become in Portable Text: inline marks, headings, containers that only group
content, markup kept as raw HTML, and document metadata that is not content. The readers take what a conversion needs
from one element (a safe link, a caption, the text of a ``pre``, a code language, an embed's URL and provider) and
know nothing of the document being built. ``apps.core.htmltext`` parses fragments and gives their visible text.
"""

from __future__ import annotations

import re

import lxml.etree
import lxml.html

from apps.core.embeds import provider_for_url
from apps.core.htmltext import tag_of, visible_text

DECORATOR_TAGS = {
    "strong": "strong",
    "b": "strong",
    "em": "em",
    "i": "em",
    "u": "underline",
    "ins": "underline",
    "s": "strike-through",
    "del": "strike-through",
    "strike": "strike-through",
    "code": "code",
    "kbd": "code",
    "samp": "code",
    "tt": "code",
    "sup": "sup",
    "sub": "sub",
}
HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
# Elements that only group other content: they end the paragraph before them and start a new one after.
CONTAINERS = frozenset(
    {
        "p", "div", "section", "article", "header", "footer", "main", "aside", "nav", "address", "center", "hgroup",
        "figcaption", "caption", "body", "html", "tbody", "thead", "tfoot", "tr", "td", "th", "legend", "search",
        "summary",
    }
)  # fmt: skip
# Markup kept as raw HTML: Portable Text has nothing that means the same, and flattening it would change what it is.
RAW_HTML = frozenset(
    {
        "script", "style", "noscript", "template", "form", "fieldset", "object", "embed", "applet", "svg", "math",
        "canvas", "select", "textarea", "input", "button", "dl", "details", "map", "frameset", "frame", "dialog",
        "link", "param", "source", "track", "area",
    }
)  # fmt: skip
# Document metadata, not content: a fragment pasted from a whole page brings these along.
IGNORED = frozenset({"head", "meta", "title", "base"})
UNSAFE_SCHEMES = ("javascript:", "vbscript:")
# Formatting given by inline styles (WordPress's classic editor underlines with <span style="text-decoration:
# underline">; Google Docs formats everything with styles).
STYLE_MARKS = (
    (re.compile(r"font-weight\s*:\s*(?:bold|bolder|[6-9]00)\b", re.IGNORECASE), "strong"),
    (re.compile(r"font-style\s*:\s*(?:italic|oblique)\b", re.IGNORECASE), "em"),
    (re.compile(r"text-decoration(?:-line)?\s*:[^;]*\bunderline\b", re.IGNORECASE), "underline"),
    (re.compile(r"text-decoration(?:-line)?\s*:[^;]*\bline-through\b", re.IGNORECASE), "strike-through"),
    (re.compile(r"vertical-align\s*:\s*super\b", re.IGNORECASE), "sup"),
    (re.compile(r"vertical-align\s*:\s*sub\b", re.IGNORECASE), "sub"),
)
NOT_BOLD = re.compile(r"font-weight\s*:\s*(?:normal|[1-4]00)\b", re.IGNORECASE)
_LANGUAGE_CLASS = re.compile(r"^(?:language|lang)-([\w+#.-]+)$")
_BRUSH = re.compile(r"brush:\s*([\w+#.-]+)")
_ALIGN_CLASS = re.compile(r"^align(left|right|center|none|wide|full)$")


def outer_html(element: lxml.etree._Element) -> str:
    return lxml.html.tostring(element, encoding="unicode", method="html", with_tail=False)


def class_names(element: lxml.etree._Element) -> set[str]:
    return set((element.get("class") or "").split())


def integer_attribute(value: str | None) -> int | None:
    value = (value or "").strip()
    return int(value) if value.isdigit() and len(value) < 10 else None


def safe_href(anchor: lxml.etree._Element) -> str | None:
    """The link target of ``anchor``, or None when it has none or it would run script."""
    href = (anchor.get("href") or "").strip()
    if not href or href.lower().replace(" ", "").startswith(UNSAFE_SCHEMES):
        return None
    return href


def opens_new_tab(anchor: lxml.etree._Element) -> bool:
    return (anchor.get("target") or "").strip().lower() == "_blank"


def caption_text(element: lxml.etree._Element | None) -> str | None:
    if element is None:
        return None
    text = visible_text(element)
    return text or None


def image_align(image: lxml.etree._Element) -> str | None:
    """The alignment WordPress gives an image by class (``alignleft`` …), else its ``align`` attribute."""
    align = next((m.group(1) for c in class_names(image) if (m := _ALIGN_CLASS.match(c))), None)
    return align or (image.get("align") or "").strip().lower() or None


def text_outside(
    figure: lxml.etree._Element, media: lxml.etree._Element, caption: lxml.etree._Element | None
) -> bool:
    """Whether a figure shows text besides its one media element and its caption."""

    def excluded(node: lxml.etree._Element) -> bool:
        return node is media or node is caption or is_inside(node, media) or is_inside(node, caption)

    if figure.text and figure.text.strip():
        return True
    for node in figure.iter():
        if node is figure:
            continue
        if tag_of(node) is not None and not excluded(node) and node.text and node.text.strip():
            return True
        # A tail is text of the parent element.
        parent = node.getparent()
        if node.tail and node.tail.strip() and parent is not None and not excluded(parent):
            return True
    return False


def is_inside(node: lxml.etree._Element, ancestor: lxml.etree._Element | None) -> bool:
    if ancestor is None:
        return False
    parent = node.getparent()
    while parent is not None:
        if parent is ancestor:
            return True
        parent = parent.getparent()
    return False


def preformatted_text(element: lxml.etree._Element) -> str:
    parts: list[str] = []

    def walk(node: lxml.etree._Element) -> None:
        if node.text and tag_of(node) is not None:
            parts.append(node.text)
        for child in node:
            if tag_of(child) == "br":
                parts.append("\n")
            elif tag_of(child) is not None:
                walk(child)
            if child.tail:
                parts.append(child.tail)

    walk(element)
    text = "".join(parts)
    # HTML ignores one newline right after <pre>'s start tag.
    return text[1:] if text.startswith("\n") else text


def code_language(element: lxml.etree._Element) -> str | None:
    for node in (element, *element.iter("code")):
        for name in class_names(node):
            match = _LANGUAGE_CLASS.match(name)
            if match:
                return match.group(1).lower()
        brush = _BRUSH.search(node.get("class") or "")
        if brush:
            return brush.group(1).lower()
        if node.get("data-lang"):
            return node.get("data-lang").strip().lower() or None
    return None


def embed_url(element: lxml.etree._Element, caption: lxml.etree._Element | None) -> str | None:
    iframe = next(element.iter("iframe"), None)
    if iframe is not None and iframe.get("src"):
        return iframe.get("src").strip()
    for node in element.iter():
        if node is caption or is_inside(node, caption):
            continue
        for text in (
            node.text if tag_of(node) is not None else None,
            node.tail if node is not element else None,
        ):
            candidate = (text or "").strip()
            if candidate.startswith(("http://", "https://")) and " " not in candidate:
                return candidate
    return None


def embed_provider(classes: set[str], url: str) -> str | None:
    """The provider a WordPress embed names in its classes (``is-provider-…``), else the one of its URL's host."""
    for name in classes:
        if name.startswith("is-provider-"):
            return name[len("is-provider-") :]
    return provider_for_url(url)
