"""WordPress shortcodes in post content: ``[name attributes]``, ``[name]content[/name]``, ``[[escaped]]``.

WordPress expands shortcodes when it shows a post (``do_shortcode``, wp-includes/shortcodes.php), so what a reader
saw for ``[caption]…[/caption]`` was a captioned image, not the brackets. The importer converts the shortcodes
WordPress itself provides into Portable Text: ``caption`` → an ``image`` with its caption, ``embed`` → ``embed``,
``audio``/``video`` with a source → ``audio``/``video``. ``gallery``, ``playlist`` and anything inside a shortcode
block become ``shortcode`` blocks that keep the name, the parsed attributes and the original text, for the pipeline
(which knows the site's attachments) or a plugin to expand. Shortcodes of plugins in running text are left as text:
square brackets in prose ("[sic]", "[simple boat]") are far more common than a plugin's shortcode, and text is never
lost either way.

Classic content also turns a URL alone on its line into an embed when it is one of WordPress's embed providers
(``WP_Embed::autoembed``); ``find_autoembeds`` does the same.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import lxml.html

from apps.core.embeds import provider_for_url
from apps.core.htmltext import parse_fragment, tag_of, visible_text
from apps.core.portabletext_html import html_to_portable_text, insert_marker

# The shortcodes WordPress core registers (wp-includes/media.php, class-wp-embed.php).
CORE_SHORTCODES = ("caption", "wp_caption", "gallery", "playlist", "audio", "video", "embed")
AUDIO_SOURCES = ("src", "mp3", "ogg", "oga", "wav", "m4a", "wma", "flac")
VIDEO_SOURCES = ("src", "mp4", "m4v", "webm", "ogv", "wmv", "flv", "mov")


def _pattern(names: str) -> re.Pattern[str]:
    # The shortcode grammar of get_shortcode_regex(): an optional extra "[" (escaping), the name not followed by a
    # word character or "-", attributes up to "]" or "/]", then optionally content and the matching closer, and an
    # optional extra "]".
    return re.compile(
        r"\[(?P<escape>\[?)(?P<name>" + names + r")(?![\w-])"
        r"(?P<attrs>[^\]/]*(?:/(?!\])[^\]/]*)*?)"
        r"(?:(?P<selfclosing>/)\]|\](?:(?P<content>[^\[]*(?:\[(?!/(?P=name)\])[^\[]*)*)\[/(?P=name)\])?)"
        r"(?P<escape_end>\]?)"
    )


_CORE = _pattern("|".join(CORE_SHORTCODES))
_ANY = _pattern(r"[A-Za-z0-9_][\w-]*")
# shortcode_parse_atts(): name="value", name='value', name=value, "positional", 'positional', positional.
_ATTRIBUTE = re.compile(
    r"""([\w-]+)\s*=\s*"([^"]*)"(?:\s|$)|([\w-]+)\s*=\s*'([^']*)'(?:\s|$)|([\w-]+)\s*=\s*([^\s'"]+)(?:\s|$)"""
    r"""|"([^"]*)"(?:\s|$)|'([^']*)'(?:\s|$)|(\S+)(?:\s|$)"""
)
_NBSP = re.compile("[\u00a0\u200b]+")
# A line holding only a URL, or a paragraph holding only a URL (WP_Embed::autoembed).
_URL_LINE = re.compile(r"^(\s*)(https?://[^\s<>\"]+)(\s*)$", re.MULTILINE | re.IGNORECASE)
_URL_PARAGRAPH = re.compile(r"(<p(?:\s[^>]*)?>\s*)(https?://[^\s<>\"]+)(\s*</p>)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Shortcode:
    name: str
    attributes: dict[str, str]
    content: str | None
    raw: str


def parse_attributes(text: str) -> dict[str, str]:
    """Attributes as WordPress parses them: names lowercased, positional values under "0", "1", …"""
    attributes: dict[str, str] = {}
    position = 0
    for match in _ATTRIBUTE.finditer(_NBSP.sub(" ", text)):
        groups = match.groups()
        if groups[0] is not None:
            attributes[groups[0].lower()] = groups[1]
        elif groups[2] is not None:
            attributes[groups[2].lower()] = groups[3]
        elif groups[4] is not None:
            attributes[groups[4].lower()] = groups[5]
        else:
            value = next(group for group in groups[6:] if group is not None)
            attributes[str(position)] = value
            position += 1
    return attributes


def replace_shortcodes(
    html: str, convert: Callable[[Shortcode], list[dict]], *, token: str, any_name: bool = False
) -> tuple[str, dict[str, list[dict]]]:
    """Replace shortcodes in ``html`` by insert markers; returns the new HTML and the blocks for each marker.

    ``convert`` turns one shortcode into blocks. With ``any_name`` every shortcode counts (a shortcode block);
    otherwise only WordPress core's. An escaped shortcode ``[[name]]`` stays as the text ``[name]``. ``token``
    makes the markers' refs unguessable, so content cannot place blocks by writing a marker itself.
    """
    inserts: dict[str, list[dict]] = {}

    def replace(match: re.Match[str]) -> str:
        if match["escape"] and match["escape_end"]:
            return match.group(0)[1:-1]
        shortcode = Shortcode(
            name=match["name"].lower(),
            attributes=parse_attributes(match["attrs"] or ""),
            content=match["content"],
            raw=match.group(0)[len(match["escape"]) : len(match.group(0)) - len(match["escape_end"])],
        )
        ref = f"{token}-shortcode-{len(inserts)}"
        inserts[ref] = convert(shortcode)
        return match["escape"] + insert_marker(ref) + match["escape_end"]

    return (_ANY if any_name else _CORE).sub(replace, html), inserts


def find_autoembeds(html: str, keys: Callable[[], str], *, token: str) -> tuple[str, dict[str, list[dict]]]:
    """Replace URLs WordPress would embed (alone on a line or in a paragraph, known provider) by insert markers."""
    inserts: dict[str, list[dict]] = {}

    def embed(url: str) -> str | None:
        provider = provider_for_url(url)
        if provider is None:
            return None
        ref = f"{token}-autoembed-{len(inserts)}"
        inserts[ref] = [
            {"_type": "embed", "_key": keys(), "url": url.replace("&amp;", "&"), "provider": provider}
        ]
        return insert_marker(ref)

    def line(match: re.Match[str]) -> str:
        marker = embed(match.group(2))
        return match.group(0) if marker is None else match.group(1) + marker + match.group(3)

    def paragraph(match: re.Match[str]) -> str:
        marker = embed(match.group(2))
        return match.group(0) if marker is None else match.group(1) + marker + match.group(3)

    html = _URL_PARAGRAPH.sub(paragraph, html)
    return _URL_LINE.sub(line, html), inserts


def shortcode_to_portable_text(shortcode: Shortcode, keys: Callable[[], str]) -> list[dict]:
    """WordPress core's shortcodes as the blocks they showed; anything else as a ``shortcode`` block."""
    attributes = shortcode.attributes
    if shortcode.name in ("caption", "wp_caption"):
        image = _caption_image(shortcode, keys)
        if image is not None:
            return [image]
    elif shortcode.name == "embed" and shortcode.content and shortcode.content.strip():
        url = shortcode.content.strip().replace("&amp;", "&")
        block = {"_type": "embed", "_key": keys(), "url": url}
        provider = provider_for_url(url)
        if provider:
            block["provider"] = provider
        return [block]
    elif shortcode.name in ("audio", "video"):
        names = AUDIO_SOURCES if shortcode.name == "audio" else VIDEO_SOURCES
        url = next((attributes[name] for name in names if attributes.get(name)), None)
        url = url or next(
            (
                value
                for key, value in attributes.items()
                if key.isdigit() and value.startswith(("http://", "https://"))
            ),
            None,
        )
        if url:
            block = {"_type": shortcode.name, "_key": keys(), "url": url}
            if shortcode.name == "video" and attributes.get("poster"):
                block["poster"] = attributes["poster"]
            return [block]
    block = {"_type": "shortcode", "_key": keys(), "name": shortcode.name, "raw": shortcode.raw}
    if attributes:
        block["attributes"] = dict(attributes)
    if shortcode.content is not None:
        block["content"] = shortcode.content
    return [block]


def _caption_image(shortcode: Shortcode, keys: Callable[[], str]) -> dict | None:
    """[caption id="attachment_5" align="alignleft" width="300"]<a href><img></a> Caption text[/caption]."""
    if not shortcode.content:
        return None
    body = parse_fragment(shortcode.content)
    image = next(body.iter("img"), None)
    if image is None:
        return None
    # The caption is the attribute (WordPress before 3.4) or the text around the image.
    caption = shortcode.attributes.get("caption") or visible_text(body)
    blocks = html_to_portable_text(shortcode.content, keys=keys)
    block = next((block for block in blocks if block["_type"] == "image"), None)
    if block is None:
        return None
    if caption:
        block["caption"] = caption.strip()
        rich = _rich_caption(shortcode.attributes.get("caption") or _without(body, image), keys)
        if rich:
            block["captionContent"] = rich
    align = shortcode.attributes.get("align", "")
    if align.startswith("align") and len(align) > len("align"):
        block["align"] = align[len("align") :]
    width = shortcode.attributes.get("width", "")
    if width.isdigit() and "width" not in block and len(width) < 10:
        block["width"] = int(width)
    parent = image.getparent()
    if "href" not in block and parent is not None and tag_of(parent) == "a" and parent.get("href"):
        block["href"] = parent.get("href")
    return block


def _without(body, image) -> str:
    """The caption's HTML: the shortcode's content without the image (and a link holding nothing else)."""
    holder = image.getparent()
    if holder is not None and tag_of(holder) == "a" and not visible_text(holder) and len(holder) == 1:
        image = holder
    image.drop_tree()  # keeps the text after it
    return (body.text or "") + "".join(
        lxml.html.tostring(child, encoding="unicode", method="html") for child in body
    )


def _rich_caption(html: str, keys: Callable[[], str]) -> list[dict]:
    """The caption as Portable Text when it has links (their targets are kept as link annotations), else nothing:
    a caption of plain text is the image's ``caption`` alone."""
    if "<a" not in html.lower():
        return []
    blocks = [block for block in html_to_portable_text(html, keys=keys) if block["_type"] == "block"]
    return blocks if any(block.get("markDefs") for block in blocks) else []
