"""WordPress post content → Portable Text: block editor markup block by block, classic content as HTML.

``content_to_portable_text(post_content)`` is the entry point: content with block delimiters goes through
``parse_blocks`` and one converter per block type; classic content (no delimiters) is HTML rendered by WordPress
through ``wpautop`` and ``do_shortcode``, so it converts with paragraph semantics and shortcodes expanded.

Block types and what they become (``portabletext`` registers every type named here):

- paragraph, heading, quote, pullquote, verse, preformatted, code, table, list (both the old ``<ul>`` markup and
  list/list-item inner blocks), freeform: their HTML through ``html_to_portable_text`` (text blocks with marks and
  links, ``code``, ``table``);
- image, gallery, file, video, audio, embed (and the old ``core-embed/*``): ``image``, ``gallery``, ``file``,
  ``video``, ``audio``, ``embed``;
- separator, spacer, more, nextpage: ``break`` with that style; buttons/button: ``button`` blocks;
- columns, group, cover, media-text: ``columns``, ``group``, ``cover``, ``mediaText`` holding their inner blocks;
- html: ``htmlBlock`` with the HTML as written; shortcode: see ``shortcodes``;
- block (a reusable block, ``{"ref": 123}``): ``sectionReference`` with that ref, for the pipeline to point at the
  section it makes of the ``wp_block`` post;
- missing (a block WordPress itself could not load): ``htmlBlock`` with its original content.

Any other block keeps what it has: with inner blocks it becomes a ``group`` of their conversion (``originalType``
names it, ``attributes`` keeps its attributes); without, it is an ``htmlBlock`` holding its markup exactly as
written, delimiters included, so a dynamic block such as ``<!-- wp:latest-posts {"postsToShow":5} /-->`` is kept
for whoever renders it. Plugins add converters with ``register_converter``.

``convert_post`` also says when the result is not faithful: broken block markup, or content nested too deeply, whose
text ``salvage`` keeps as plain paragraphs; the importer then saves the post as a draft with the original.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Sequence

import lxml.html

from apps.core.embeds import provider_for_url
from apps.core.htmltext import parse_fragment, tag_of, visible_text
from apps.core.portabletext import SequentialKeys, plain_text
from apps.core.portabletext_html import html_to_portable_text, insert_marker
from apps.importer.blocks import salvage
from apps.importer.blocks.parser import Block, Issue, has_blocks, parse_blocks_checked
from apps.importer.blocks.shortcodes import find_autoembeds, replace_shortcodes, shortcode_to_portable_text

Keys = Callable[[], str]
Converter = Callable[[Block, "_Run"], list[dict]]

_CONVERTERS: dict[str, Converter] = {}
_BACKGROUND_URL = re.compile(r"background-image\s*:\s*url\(\s*['\"]?([^'\")]+)['\"]?\s*\)", re.IGNORECASE)


def register_converter(name: str, converter: Converter) -> None:
    """Convert blocks named ``name`` (``namespace/name``) with ``converter(block, run) -> blocks``."""
    _CONVERTERS[name] = converter


def content_to_portable_text(content: str, *, keys: Keys | None = None) -> list[dict]:
    """A post's content (block markup or classic HTML) as Portable Text."""
    return convert_post(content, keys=keys)[0]


def convert_post(content: str, *, keys: Keys | None = None) -> tuple[list[dict], dict[str, str] | None]:
    """A post's content as Portable Text, and ``{code, message}`` when it could not be converted faithfully (broken
    block markup, nesting too deep: see ``salvage``), else None. Every visible word is kept either way."""
    keys = keys or SequentialKeys()
    run = _Run(keys)
    if not has_blocks(content):
        if salvage.html_too_deep(content):
            return salvage.flatten(content, keys), _too_deep()
        blocks = run.classic(content)
        if salvage.too_deep_for_portable_text(blocks, nesting=0, html=content):
            return salvage.flatten(content, SequentialKeys()), _too_deep()
        return blocks, None
    parsed, issues = parse_blocks_checked(content)
    output: list[dict] = []
    deep = broken = False
    for block in parsed:
        markup = block.markup
        if block.nesting > salvage.MAX_BLOCK_NESTING or salvage.html_too_deep(markup):
            output.extend(salvage.flatten(markup, keys))
            deep = True
            continue
        converted = run.convert(block)
        if salvage.too_deep_for_portable_text(converted, nesting=block.nesting, html=markup):
            converted, deep = salvage.flatten(markup, keys), True
        elif _affected(block, issues) and salvage.lost_words(markup, converted):
            converted, broken = salvage.flatten(markup, keys), True
        output.extend(converted)
    if deep:
        return output, _too_deep()
    if issues:
        listed = "; ".join(issue.message for issue in issues[:5]) + ("; …" if len(issues) > 5 else "")
        kept = ", as plain paragraphs where a block could not be read" if broken else ""
        message = f"The block markup is broken ({listed}); its text was kept{kept}."
        return output, {"code": salvage.BROKEN_MARKUP, "message": message}
    return output, None


def _too_deep() -> dict[str, str]:
    return {
        "code": salvage.TOO_DEEP,
        "message": "The content is nested too deeply to convert (blocks, HTML elements or containers inside one another "
        "past what the CMS can hold); its text was kept as plain paragraphs.",
    }


def _affected(block: Block, issues: list[Issue]) -> bool:
    return any(block.start <= issue.position < block.end for issue in issues)


def blocks_to_portable_text(blocks: Sequence[Block], *, keys: Keys | None = None) -> list[dict]:
    """Parsed blocks as Portable Text."""
    run = _Run(keys or SequentialKeys())
    return [item for block in blocks for item in run.convert(block)]


def classic_to_portable_text(html: str, *, keys: Keys | None = None) -> list[dict]:
    """Classic (pre-block-editor) content: wpautop paragraphs, core shortcodes and auto-embedded URLs."""
    return _Run(keys or SequentialKeys()).classic(html)


class _Run:
    """One conversion: the key sequence and a token that makes insert markers unguessable by the content."""

    def __init__(self, keys: Keys) -> None:
        self.keys = keys
        self.token = secrets.token_hex(8)
        self._refs = 0

    def convert(self, block: Block) -> list[dict]:
        converter = _CONVERTERS.get(block.name or "core/freeform")
        if converter is None and block.name and block.name.startswith("core-embed/"):
            converter = _embed
        return (converter or _unknown)(block, self)

    # -- helpers for converters --

    def classic(self, html: str, *, any_shortcode: bool = False) -> list[dict]:
        if not html.strip():
            return []
        html, inserts = replace_shortcodes(
            html,
            lambda shortcode: shortcode_to_portable_text(shortcode, self.keys),
            token=self.token,
            any_name=any_shortcode,
        )
        html, embeds = find_autoembeds(html, self.keys, token=self.token)
        return html_to_portable_text(html, autop=True, keys=self.keys, inserts={**inserts, **embeds})

    def marked_html(self, block: Block, convert_inner: bool = True) -> tuple[str, dict[str, list[dict]]]:
        """The block's own HTML with a marker where each inner block goes, and those blocks converted."""
        parts: list[str] = []
        inserts: dict[str, list[dict]] = {}
        inner = iter(block.inner_blocks)
        for piece in block.inner_content:
            if piece is not None:
                parts.append(piece)
                continue
            child = next(inner, None)
            if child is None:
                continue
            self._refs += 1
            ref = f"{self.token}-block-{self._refs}"
            inserts[ref] = self.convert(child) if convert_inner else []
            parts.append(insert_marker(ref))
        return "".join(parts), inserts

    def rich(self, block: Block) -> list[dict]:
        """The block's HTML converted, its inner blocks converted where they sit."""
        html, inserts = self.marked_html(block)
        return html_to_portable_text(html, keys=self.keys, inserts=inserts)

    def rich_without(self, block: Block, drop: Callable[[lxml.html.HtmlElement], bool]) -> list[dict]:
        """Like ``rich``, leaving out the elements ``drop`` picks (a cover's background, a media-text's media)."""
        html, inserts = self.marked_html(block)
        body = parse_fragment(html)
        for element in [node for node in body.iter() if tag_of(node) and node is not body and drop(node)]:
            if element.getparent() is not None:
                element.drop_tree()  # keeps the element's tail text
        html = "".join(
            [body.text or ""]
            + [lxml.html.tostring(child, encoding="unicode", method="html") for child in body]
        )
        return html_to_portable_text(html, keys=self.keys, inserts=inserts)


def rendered_html(block: Block) -> str:
    """A block's HTML with its inner blocks' HTML in place (what a static block renders)."""
    parts: list[str] = []
    inner = iter(block.inner_blocks)
    for piece in block.inner_content:
        if piece is None:
            child = next(inner, None)
            if child is not None:
                parts.append(rendered_html(child))
        else:
            parts.append(piece)
    return "".join(parts)


def _attrs(block: Block) -> dict:
    return block.attrs if isinstance(block.attrs, dict) else {}


# --- converters --------------------------------------------------------------------------------------------------


def _freeform(block: Block, run: _Run) -> list[dict]:
    # Classic content between blocks, or a classic block: written for wpautop (docs/decisions.md, "Import").
    return run.classic(block.inner_html)


def _rich(block: Block, run: _Run) -> list[dict]:
    return run.rich(block)


def _heading(block: Block, run: _Run) -> list[dict]:
    blocks = run.rich(block)
    level = _attrs(block).get("level")
    if (
        isinstance(level, int)
        and 1 <= level <= 6
        and not any(item.get("style", "").startswith("h") for item in blocks)
    ):
        for item in blocks:
            if item["_type"] == "block" and "listItem" not in item:
                item["style"] = f"h{level}"
    return blocks


def _code(block: Block, run: _Run) -> list[dict]:
    blocks = run.rich(block)
    language = _attrs(block).get("language")
    if isinstance(language, str) and language:
        for item in blocks:
            if item["_type"] == "code":
                item.setdefault("language", language.lower())
    return blocks


def _list(block: Block, run: _Run) -> list[dict]:
    # List items are <li> HTML with nested lists inside: convert the whole rendered list so levels come out right.
    return html_to_portable_text(rendered_html(block), keys=run.keys)


def _image(block: Block, run: _Run) -> list[dict]:
    blocks = run.rich(block)
    attrs = _attrs(block)
    images = [item for item in blocks if item["_type"] == "image"]
    if not images and isinstance(attrs.get("url"), str):
        images = [{"_type": "image", "_key": run.keys(), "url": attrs["url"]}]
        blocks = images + blocks
    for image in images[:1]:
        for name in ("width", "height"):
            if (
                isinstance(attrs.get(name), int)
                and not isinstance(attrs.get(name), bool)
                and name not in image
            ):
                image[name] = attrs[name]
        if isinstance(attrs.get("align"), str) and "align" not in image:
            image["align"] = attrs["align"]
        if isinstance(attrs.get("alt"), str) and "alt" not in image:
            image["alt"] = attrs["alt"]
    return blocks


def _gallery(block: Block, run: _Run) -> list[dict]:
    body = parse_fragment(rendered_html(block))
    root = next((child for child in body if tag_of(child) in ("figure", "ul", "div")), body)
    images: list[dict] = []
    for element in body.iter("img"):
        figure = _ancestor(element, "figure", stop=root)
        caption_element = (
            next((child for child in figure if tag_of(child) == "figcaption"), None)
            if figure is not None
            else None
        )
        image: dict = {"_type": "image", "_key": run.keys()}
        if element.get("src"):
            image["url"] = element.get("src").strip()
        if element.get("alt") is not None:
            image["alt"] = element.get("alt")
        caption = visible_text(caption_element) if caption_element is not None else ""
        if caption:
            image["caption"] = caption
        anchor = _ancestor(element, "a", stop=root)
        if anchor is not None and anchor.get("href"):
            image["href"] = anchor.get("href").strip()
        images.append(image)
    if not images:
        return _unknown(block, run)
    gallery: dict = {"_type": "gallery", "_key": run.keys(), "images": images}
    caption_element = next((child for child in root if tag_of(child) == "figcaption"), None)
    if caption_element is not None and visible_text(caption_element):
        gallery["caption"] = visible_text(caption_element)
    columns = _attrs(block).get("columns")
    if not isinstance(columns, int) or isinstance(columns, bool):
        # Older galleries say it only in a class: "columns-3".
        found = re.search(r"(?:^|\s)columns-(\d{1,2})(?:\s|$)", root.get("class") or "")
        columns = int(found.group(1)) if found else None
    if columns:
        gallery["columns"] = columns
    return [gallery]


def _ancestor(element, tag: str, *, stop) -> lxml.html.HtmlElement | None:
    parent = element.getparent()
    while parent is not None and parent is not stop:
        if tag_of(parent) == tag:
            return parent
        parent = parent.getparent()
    return None


def _file(block: Block, run: _Run) -> list[dict]:
    body = parse_fragment(block.inner_html)
    attrs = _attrs(block)
    links = [node for node in body.iter("a")]
    button = next(
        (node for node in links if "wp-block-file__button" in (node.get("class") or "").split()), None
    )
    link = next((node for node in links if node is not button), None)
    url = attrs.get("href") if isinstance(attrs.get("href"), str) else None
    url = (
        url
        or (link.get("href") if link is not None else None)
        or (button.get("href") if button is not None else None)
    )
    if not url:
        return _unknown(block, run)
    item: dict = {"_type": "file", "_key": run.keys(), "url": url.strip()}
    name = visible_text(link) if link is not None else ""
    if name:
        item["name"] = name
    if button is not None:
        item["showDownloadButton"] = True
        if visible_text(button):
            item["downloadButtonText"] = visible_text(button)
    return [item]


def _embed(block: Block, run: _Run) -> list[dict]:
    attrs = _attrs(block)
    body = parse_fragment(block.inner_html)
    url = attrs.get("url") if isinstance(attrs.get("url"), str) else None
    caption_element = next(body.iter("figcaption"), None)
    if not url:
        return run.rich(block)
    item: dict = {"_type": "embed", "_key": run.keys(), "url": url.strip()}
    provider = attrs.get("providerNameSlug")
    if not isinstance(provider, str) or not provider:
        provider = (
            block.name.split("/", 1)[1] if block.name and block.name.startswith("core-embed/") else None
        )
    provider = provider or provider_for_url(url)
    if provider:
        item["provider"] = provider
    caption = visible_text(caption_element) if caption_element is not None else ""
    if caption:
        item["caption"] = caption
    return [item]


def _break(style: str) -> Converter:
    def convert(block: Block, run: _Run) -> list[dict]:
        item: dict = {"_type": "break", "_key": run.keys(), "style": style}
        attrs = _attrs(block)
        if (
            style == "spacer"
            and isinstance(attrs.get("height"), (str, int))
            and not isinstance(attrs["height"], bool)
        ):
            item["height"] = attrs["height"]
        if style == "more":
            if isinstance(attrs.get("customText"), str) and attrs["customText"]:
                item["customText"] = attrs["customText"]
            if attrs.get("noTeaser") is True:
                item["noTeaser"] = True
        return [item]

    return convert


def _button(block: Block, run: _Run) -> list[dict]:
    body = parse_fragment(block.inner_html)
    anchor = next((node for node in body.iter() if tag_of(node) in ("a", "button")), None)
    text = visible_text(anchor if anchor is not None else body)
    if not text:
        return []
    item: dict = {"_type": "button", "_key": run.keys(), "text": text}
    if anchor is not None and tag_of(anchor) == "a" and (anchor.get("href") or "").strip():
        item["href"] = anchor.get("href").strip()
        if (anchor.get("target") or "").strip().lower() == "_blank":
            item["blank"] = True
    return [item]


def _columns(block: Block, run: _Run) -> list[dict]:
    columns: list[dict] = []
    html, inserts = run.marked_html(block, convert_inner=False)
    own = html_to_portable_text(html, keys=run.keys, inserts=inserts)
    if own:
        columns.append({"_type": "column", "_key": run.keys(), "content": own})
    for inner in block.inner_blocks:
        if inner.name == "core/column":
            content = run.rich(inner)
            width = _attrs(inner).get("width")
        else:
            content, width = run.convert(inner), None
        column: dict = {"_type": "column", "_key": run.keys(), "content": content}
        if isinstance(width, str) and width:
            column["width"] = width
        columns.append(column)
    return [{"_type": "columns", "_key": run.keys(), "columns": columns}] if columns else []


def _group(block: Block, run: _Run) -> list[dict]:
    content = run.rich(block)
    if not content:
        return []
    item: dict = {"_type": "group", "_key": run.keys(), "content": content}
    tag = _attrs(block).get("tagName")
    if isinstance(tag, str) and tag:
        item["tagName"] = tag
    return [item]


def _cover(block: Block, run: _Run) -> list[dict]:
    attrs = _attrs(block)

    def background(element) -> bool:
        classes = set((element.get("class") or "").split())
        return bool(
            classes & {"wp-block-cover__image-background", "wp-block-cover__video-background"}
            or "wp-block-cover__background" in classes
        )

    content = run.rich_without(block, background)
    body = parse_fragment(block.inner_html)
    media = next(
        (node for node in body.iter() if tag_of(node) in ("img", "video") and background(node)), None
    )
    item: dict = {"_type": "cover", "_key": run.keys(), "content": content}
    url = attrs.get("url") if isinstance(attrs.get("url"), str) else None
    if not url and media is not None:
        url = media.get("src")
    if not url:
        style = (
            next((node.get("style") for node in body.iter() if tag_of(node) and node.get("style")), "") or ""
        )
        found = _BACKGROUND_URL.search(style)
        url = found.group(1) if found else None
    if url:
        item["url"] = url.strip()
    alt = (
        attrs.get("alt")
        if isinstance(attrs.get("alt"), str)
        else (media.get("alt") if media is not None else None)
    )
    if alt:
        item["alt"] = alt
    kind = attrs.get("backgroundType")
    if kind in ("image", "video"):
        item["mediaType"] = kind
    elif media is not None:
        item["mediaType"] = tag_of(media) if tag_of(media) == "video" else "image"
    if not content and "url" not in item:
        return []
    return [item]


def _media_text(block: Block, run: _Run) -> list[dict]:
    attrs = _attrs(block)

    def is_media(element) -> bool:
        return "wp-block-media-text__media" in (element.get("class") or "").split()

    content = run.rich_without(block, is_media)
    body = parse_fragment(block.inner_html)
    holder = next((node for node in body.iter() if tag_of(node) and is_media(node)), None)
    media = (
        next((node for node in holder.iter() if tag_of(node) in ("img", "video")), None)
        if holder is not None
        else None
    )
    item: dict = {"_type": "mediaText", "_key": run.keys(), "content": content}
    url = attrs.get("mediaUrl") if isinstance(attrs.get("mediaUrl"), str) else None
    url = url or (media.get("src") if media is not None else None)
    if url:
        item["url"] = url.strip()
    if media is not None and media.get("alt"):
        item["alt"] = media.get("alt")
    kind = attrs.get("mediaType")
    if kind in ("image", "video"):
        item["mediaType"] = kind
    elif media is not None:
        item["mediaType"] = "video" if tag_of(media) == "video" else "image"
    item["mediaPosition"] = "right" if attrs.get("mediaPosition") == "right" else "left"
    if isinstance(attrs.get("href"), str) and attrs["href"]:
        item["href"] = attrs["href"]
    return [item]


def _html(block: Block, run: _Run) -> list[dict]:
    if not block.inner_html.strip():
        return []
    return [{"_type": "htmlBlock", "_key": run.keys(), "html": block.inner_html, "originalType": "core/html"}]


def _shortcode(block: Block, run: _Run) -> list[dict]:
    return run.classic(block.inner_html.strip(), any_shortcode=True)


def _reusable(block: Block, run: _Run) -> list[dict]:
    ref = _attrs(block).get("ref")
    if isinstance(ref, (int, str)) and not isinstance(ref, bool) and str(ref):
        return [{"_type": "sectionReference", "_key": run.keys(), "ref": ref}]
    return _unknown(block, run)


def _missing(block: Block, run: _Run) -> list[dict]:
    attrs = _attrs(block)
    content = attrs.get("originalContent")
    if isinstance(content, str) and content.strip():
        item = {"_type": "htmlBlock", "_key": run.keys(), "html": content}
        if isinstance(attrs.get("originalName"), str):
            item["originalType"] = attrs["originalName"]
        return [item]
    return _unknown(block, run)


def _unknown(block: Block, run: _Run) -> list[dict]:
    if block.inner_blocks:
        content = run.rich(block)
        if plain_text(content).strip() or not all(item["_type"] == "htmlBlock" for item in content):
            item: dict = {"_type": "group", "_key": run.keys(), "content": content}
            if block.name:
                item["originalType"] = block.name
            if block.attrs:
                item["attributes"] = dict(block.attrs)
            return [item]
    if not block.markup.strip():
        return []
    item = {"_type": "htmlBlock", "_key": run.keys(), "html": block.markup}
    if block.name:
        item["originalType"] = block.name
    return [item]


for _name in ("paragraph", "quote", "pullquote", "verse", "preformatted", "table"):
    register_converter(f"core/{_name}", _rich)
for _name, _converter in {
    "freeform": _freeform,
    "heading": _heading,
    "code": _code,
    "list": _list,
    "list-item": _list,
    "image": _image,
    "gallery": _gallery,
    "file": _file,
    "video": _rich,
    "audio": _rich,
    "embed": _embed,
    "separator": _break("separator"),
    "spacer": _break("spacer"),
    "more": _break("more"),
    "nextpage": _break("nextpage"),
    "buttons": _rich,
    "button": _button,
    "columns": _columns,
    "column": _group,
    "group": _group,
    "cover": _cover,
    "media-text": _media_text,
    "html": _html,
    "shortcode": _shortcode,
    "block": _reusable,
    "missing": _missing,
}.items():
    register_converter(f"core/{_name}", _converter)
