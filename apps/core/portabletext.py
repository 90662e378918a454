"""Portable Text: the one definition of rich text used by fields, widgets, sections, search, import and MCP.

A document is a list of blocks. Text blocks are ``{_type: "block", _key, style, children: [span…], markDefs: […],
listItem?, level?}``; a span is ``{_type: "span", _key, text, marks: [decorator or markDef key…]}``. Other blocks
(image, code, …) are registered block types, each with a validator and a way to give its visible text. Plugins
register more; a type whose plugin is disabled stops validating at once (``set_availability``).

``normalize`` both checks structure and fills what may be omitted (missing ``_key``s, ``markDefs``, ``marks``,
``style``), returning the clean document and the problems keyed by path (``[2].children[0].text``).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from apps.core.htmltext import visible_text

STYLES = ("normal", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote")
LIST_ITEMS = ("bullet", "number")
DECORATORS = ("strong", "em", "underline", "strike-through", "code", "sup", "sub")
MAX_DEPTH = 8  # nested containers (columns of groups of …); deeper is refused rather than recursed into

Problems = dict[str, str]


def new_key() -> str:
    return secrets.token_hex(6)


class SequentialKeys:
    """Keys k1, k2, … : unique within one document and the same every time the same input is converted."""

    def __init__(self, prefix: str = "k") -> None:
        self._prefix = prefix
        self._count = 0

    def __call__(self) -> str:
        self._count += 1
        return f"{self._prefix}{self._count}"


@dataclass(frozen=True)
class BlockType:
    """A non-text block type. ``validate(block, path, depth)`` returns the normalised block and its problems."""

    name: str
    validate: Callable[[dict, str, int], tuple[dict, Problems]]
    # The visible text of a block of this type (for search and for checking that imports lose no text).
    text: Callable[[dict], Iterable[str]] = lambda block: ()
    description: str = ""
    # "core", or the id of the plugin that contributes it.
    source: str = "core"
    # What an editor may fill in: a JSON Schema object ({type: "object", title, properties: {name: {type, title,
    # description, enum, default, minimum, maximum}}, required: [...]}). The studio's rich-text editor draws a form
    # from its string, number, integer and boolean properties (enum: a choice); other properties keep their default
    # or stored value. Validation stays with ``validate``.
    schema: dict | None = None


_TYPES: dict[str, BlockType] = {}


def _always(block_type: BlockType) -> bool:
    return True


_available: Callable[[BlockType], bool] = _always


def register(block_type: BlockType) -> None:
    if block_type.name in ("block", "span"):
        raise ValueError(f"'{block_type.name}' is built into Portable Text and cannot be registered")
    _TYPES[block_type.name] = block_type


def unregister(name: str) -> None:
    """Remove a registered type (the plugin registry reloading its plugins)."""
    _TYPES.pop(name, None)


def set_availability(check: Callable[[BlockType], bool]) -> None:
    """The plugins app decides, per request, which contributed types are active."""
    global _available
    _available = check


def registered_types() -> dict[str, BlockType]:
    """Every registered type, available or not."""
    return dict(_TYPES)


def available_types() -> dict[str, BlockType]:
    return {name: block_type for name, block_type in _TYPES.items() if _available(block_type)}


# --- validation -------------------------------------------------------------------------------------------------


def normalize(value: Any, path: str = "", depth: int = 0) -> tuple[list[dict], Problems]:
    """Check a Portable Text document and fill in what may be omitted."""
    if not isinstance(value, list):
        return [], {path or "value": "Expected a list of Portable Text blocks."}
    if depth > MAX_DEPTH:
        return [], {path or "value": f"Blocks are nested more than {MAX_DEPTH} levels deep."}
    types = available_types()
    blocks: list[dict] = []
    problems: Problems = {}
    seen_keys: set[str] = set()
    for index, raw in enumerate(value):
        where = f"{path}[{index}]"
        if not isinstance(raw, dict):
            problems[where] = "Expected a block object with a _type."
            continue
        kind = raw.get("_type")
        if not isinstance(kind, str) or not kind:
            problems[f"{where}._type"] = "Every block needs a _type, e.g. 'block' for text."
            continue
        if kind == "block":
            block, found = _normalize_text_block(raw, where)
        elif kind in types:
            block, found = types[kind].validate(dict(raw), where, depth)
        else:
            known = ", ".join(["block", *sorted(types)])
            problems[f"{where}._type"] = f"Unknown block type '{kind}'; known types: {known}."
            continue
        problems.update(found)
        key = block.get("_key")
        if not isinstance(key, str) or not key or key in seen_keys:
            block["_key"] = key = new_key()
        seen_keys.add(key)
        blocks.append(block)
    return blocks, problems


def _normalize_text_block(raw: dict, where: str) -> tuple[dict, Problems]:
    problems: Problems = {}
    block: dict[str, Any] = {"_type": "block", "_key": raw.get("_key")}
    extra = set(raw) - {"_type", "_key", "style", "children", "markDefs", "listItem", "level"}
    if extra:
        problems[where] = f"Unknown key(s) {', '.join(sorted(extra))} in a text block."
    style = raw.get("style", "normal")
    if style not in STYLES:
        problems[f"{where}.style"] = f"Unknown style '{style}'; one of {', '.join(STYLES)}."
    block["style"] = style
    mark_defs, def_keys = [], set()
    raw_defs = raw.get("markDefs", [])
    if not isinstance(raw_defs, list):
        problems[f"{where}.markDefs"] = "Expected a list of mark definitions."
        raw_defs = []
    for index, mark_def in enumerate(raw_defs):
        here = f"{where}.markDefs[{index}]"
        if (
            not isinstance(mark_def, dict)
            or not isinstance(mark_def.get("_key"), str)
            or not mark_def.get("_type")
        ):
            problems[here] = "A mark definition needs a _key and a _type, e.g. {_key, _type: 'link', href}."
            continue
        if mark_def["_type"] == "link" and not isinstance(mark_def.get("href"), str):
            problems[f"{here}.href"] = "A link needs an href string."
        def_keys.add(mark_def["_key"])
        mark_defs.append(mark_def)
    block["markDefs"] = mark_defs
    children = raw.get("children")
    if not isinstance(children, list):
        problems[f"{where}.children"] = "A text block needs a list of spans in children."
        children = []
    spans = []
    # Paths are spelled only for problems: a post has thousands of spans, nearly all of them fine.
    for index, span in enumerate(children):
        if not isinstance(span, dict):
            problems[f"{where}.children[{index}]"] = "Expected a span object {_type: 'span', text}."
            continue
        if span.get("_type", "span") != "span":
            problems[f"{where}.children[{index}]._type"] = (
                "Children of a text block are spans (_type 'span')."
            )
            continue
        text = span.get("text")
        if not isinstance(text, str):
            problems[f"{where}.children[{index}].text"] = "A span needs its text as a string."
            continue
        marks = span.get("marks", [])
        if marks or not isinstance(marks, list):
            if not isinstance(marks, list) or not all(isinstance(mark, str) for mark in marks):
                problems[f"{where}.children[{index}].marks"] = "Marks are a list of strings."
                marks = []
            unknown = [mark for mark in marks if mark not in DECORATORS and mark not in def_keys]
            if unknown:
                problems[f"{where}.children[{index}].marks"] = (
                    f"Unknown mark(s) {', '.join(unknown)}: use a decorator ({', '.join(DECORATORS)}) "
                    "or the _key of one of the block's markDefs."
                )
        spans.append(
            {"_type": "span", "_key": span.get("_key") or new_key(), "text": text, "marks": list(marks)}
        )
    block["children"] = spans
    if "listItem" in raw:
        if raw["listItem"] not in LIST_ITEMS:
            problems[f"{where}.listItem"] = f"listItem is one of {', '.join(LIST_ITEMS)}."
        block["listItem"] = raw["listItem"]
        level = raw.get("level", 1)
        if not isinstance(level, int) or isinstance(level, bool) or level < 1:
            problems[f"{where}.level"] = "level is a whole number from 1."
        block["level"] = level
    elif "level" in raw:
        problems[f"{where}.level"] = "level applies to list items only (give listItem too)."
    return block, problems


def object_validator(
    *,
    required: dict[str, type | tuple[type, ...]],
    optional: dict[str, type | tuple[type, ...]] | None = None,
) -> Callable[[dict, str, int], tuple[dict, Problems]]:
    """A validator for a flat block type: these keys, of these JSON types, and nothing else."""
    optional = optional or {}

    def validate(block: dict, where: str, depth: int) -> tuple[dict, Problems]:
        return block, _flat_problems(block, where, f"a '{block['_type']}' block", required, optional)

    return validate


def _flat_problems(
    value: dict,
    where: str,
    label: str,
    required: dict[str, type | tuple[type, ...]],
    optional: dict[str, type | tuple[type, ...]],
) -> Problems:
    """Problems of a flat object: unknown keys, missing required keys, values of the wrong JSON type."""
    problems: Problems = {}
    extra = set(value) - {"_type", "_key", *required, *optional}
    if extra:
        problems[where] = f"Unknown key(s) {', '.join(sorted(extra))} in {label}."
    for name, kind in {**required, **optional}.items():
        if name not in value:
            if name in required:
                problems[f"{where}.{name}"] = f"Required in {label}."
            continue
        item = value[name]
        if item is None and name in optional:
            continue
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if not isinstance(item, kinds) or (isinstance(item, bool) and bool not in kinds):
            names = " or ".join(k.__name__ for k in kinds)
            problems[f"{where}.{name}"] = f"Expected {_JSON_NAMES.get(names, names)}."
    return problems


_JSON_NAMES = {
    "str": "a string",
    "int": "a whole number",
    "bool": "true or false",
    "list": "a list",
    "dict": "an object",
}


# --- visible text -------------------------------------------------------------------------------------------------


def block_text(block: dict) -> str:
    """The visible text of one block."""
    if block.get("_type") == "block":
        return "".join(span.get("text", "") for span in block.get("children", []) if isinstance(span, dict))
    block_type = _TYPES.get(block.get("_type"))
    if block_type is None:
        return ""
    return "\n".join(part for part in block_type.text(block) if part)


def plain_text(blocks: Any) -> str:
    """All visible text of a document, one block per line: what search indexes and what an import must keep."""
    if not isinstance(blocks, list):
        return ""
    return "\n".join(
        text for text in (block_text(block) for block in blocks if isinstance(block, dict)) if text
    )


# --- built-in block types -----------------------------------------------------------------------------------------


_IMAGE_KEYS: dict[str, type | tuple[type, ...]] = {
    "url": str,
    "mediaId": str,
    "asset": dict,
    "alt": str,
    "caption": str,
    "captionContent": list,
    "width": int,
    "height": int,
    "href": str,
    "align": str,
}


def _validate_image(block: dict, where: str, depth: int) -> tuple[dict, Problems]:
    problems = _flat_problems(block, where, "a 'image' block", {}, _IMAGE_KEYS)
    if isinstance(block.get("captionContent"), list):
        # The caption with its marks and links (an imported [caption] keeps its links); `caption` is its text.
        problems.update(_nested(block, "captionContent", where, depth))
    return block, problems


register(
    BlockType(
        "image",
        _validate_image,
        text=lambda block: (
            block.get("alt") or "",
            block.get("caption") or plain_text(block.get("captionContent")),
        ),
        description="An image: a media item (mediaId) or a URL, with alt text and caption (captionContent: the "
        "caption as Portable Text, when it has links or marks).",
    )
)
register(
    BlockType(
        "code",
        object_validator(required={"code": str}, optional={"language": str, "filename": str}),
        text=lambda block: (block.get("code") or "",),
        description="Preformatted code, with an optional language.",
    )
)
register(
    BlockType(
        "htmlBlock",
        object_validator(required={"html": str}, optional={"originalType": str}),
        # What a reader of the HTML sees, so raw HTML is searchable and imports can show they kept every word.
        text=lambda block: (visible_text(block.get("html") or ""),),
        description="Raw HTML kept as it was (for markup that has no Portable Text equivalent).",
    )
)
register(
    BlockType(
        "break",
        object_validator(
            required={"style": str},
            # customText/noTeaser: WordPress's "more" tag (<!--more Read on--> and <!--noteaser-->); height: a spacer's.
            optional={"customText": str, "noTeaser": bool, "height": (str, int)},
        ),
        description="A thematic break: style 'separator', 'spacer', 'more' or 'nextpage'.",
    )
)
register(
    BlockType(
        "embed",
        object_validator(required={"url": str}, optional={"provider": str, "caption": str, "html": str}),
        text=lambda block: (block.get("caption") or "",),
        description="An embedded external resource (video, post, …) by URL.",
    )
)


# --- block types for imported and structured content ------------------------------------------------------------
#
# WordPress posts (and rich text from elsewhere) carry tables, media, buttons and layout containers that plain text
# blocks cannot hold without losing them. Containers hold nested Portable Text in ``content`` and are validated to
# MAX_DEPTH like the document itself.


def _items(
    block: dict,
    name: str,
    where: str,
    item_type: str,
    check: Callable[[dict, str], Problems],
    *,
    required: bool = True,
) -> Problems:
    """Validate a list of keyed sub-objects (rows, cells, columns, images), filling their _key and _type."""
    problems: Problems = {}
    raw = block.get(name)
    if raw is None and not required:
        return problems
    if not isinstance(raw, list):
        return {f"{where}.{name}": f"Expected a list of {item_type} objects."}
    items, seen = [], set()
    for index, item in enumerate(raw):
        here = f"{where}.{name}[{index}]"
        if not isinstance(item, dict):
            problems[here] = f"Expected a {item_type} object."
            continue
        item = dict(item)
        if item.setdefault("_type", item_type) != item_type:
            problems[f"{here}._type"] = f"Expected _type '{item_type}'."
        key = item.get("_key")
        if not isinstance(key, str) or not key or key in seen:
            item["_key"] = key = new_key()
        seen.add(key)
        problems.update(check(item, here))
        items.append(item)
    block[name] = items
    return problems


def _nested(value: dict, name: str, where: str, depth: int) -> Problems:
    """Normalise nested Portable Text in ``value[name]`` one level deeper."""
    blocks, problems = normalize(value.get(name), f"{where}.{name}", depth + 1)
    value[name] = blocks
    return problems


def _container_validator(
    optional: dict[str, type | tuple[type, ...]],
) -> Callable[[dict, str, int], tuple[dict, Problems]]:
    """A block with nested Portable Text in ``content`` and these flat keys."""

    def validate(block: dict, where: str, depth: int) -> tuple[dict, Problems]:
        label = f"a '{block['_type']}' block"
        problems = _flat_problems(block, where, label, {"content": list}, optional)
        problems.update(_nested(block, "content", where, depth))
        return block, problems

    return validate


def _validate_table(block: dict, where: str, depth: int) -> tuple[dict, Problems]:
    problems = _flat_problems(block, where, "a 'table' block", {"rows": list}, {"caption": str})

    def check_cell(cell: dict, here: str) -> Problems:
        found = _flat_problems(
            cell, here, "a table cell", {"content": list}, {"header": bool, "colSpan": int, "rowSpan": int}
        )
        found.update(_nested(cell, "content", here, depth))
        return found

    def check_row(row: dict, here: str) -> Problems:
        found = _flat_problems(row, here, "a table row", {"cells": list}, {"section": str})
        if row.get("section") not in (None, "head", "body", "foot"):
            found[f"{here}.section"] = "section is one of head, body, foot."
        found.update(_items(row, "cells", here, "tableCell", check_cell))
        return found

    problems.update(_items(block, "rows", where, "tableRow", check_row))
    return block, problems


def _table_text(block: dict) -> Iterable[str]:
    for row in block.get("rows") or ():
        cells = [plain_text(cell.get("content")).replace("\n", " ") for cell in row.get("cells") or ()]
        yield "\t".join(cells)
    yield block.get("caption") or ""


def _validate_gallery(block: dict, where: str, depth: int) -> tuple[dict, Problems]:
    problems = _flat_problems(
        block, where, "a 'gallery' block", {"images": list}, {"caption": str, "columns": int}
    )
    image = _TYPES["image"]
    problems.update(
        _items(block, "images", where, "image", lambda item, here: image.validate(item, here, depth)[1])
    )
    return block, problems


def _gallery_text(block: dict) -> Iterable[str]:
    for image in block.get("images") or ():
        yield from (image.get("alt") or "", image.get("caption") or "")
    yield block.get("caption") or ""


def _validate_columns(block: dict, where: str, depth: int) -> tuple[dict, Problems]:
    problems = _flat_problems(block, where, "a 'columns' block", {"columns": list}, {})

    def check_column(column: dict, here: str) -> Problems:
        found = _flat_problems(column, here, "a column", {"content": list}, {"width": str})
        found.update(_nested(column, "content", here, depth))
        return found

    problems.update(_items(block, "columns", where, "column", check_column))
    return block, problems


def _validate_section_reference(block: dict, where: str, depth: int) -> tuple[dict, Problems]:
    problems = _flat_problems(
        block, where, "a 'sectionReference' block", {}, {"ref": (str, int), "sectionId": str}
    )
    if block.get("ref") is None and block.get("sectionId") is None:
        problems[where] = (
            "A section reference needs the section's id (sectionId) or its source reference (ref)."
        )
    return block, problems


_MEDIA = {"url": str, "mediaId": str, "caption": str}

register(
    BlockType(
        "table",
        _validate_table,
        text=_table_text,
        description="A table: rows of cells, each cell holding Portable Text; an optional caption.",
    )
)
register(
    BlockType(
        "gallery",
        _validate_gallery,
        text=_gallery_text,
        description="Images shown together (each like an image block), with an optional caption and column count.",
    )
)
register(
    BlockType(
        "video",
        object_validator(required={"url": str}, optional={**_MEDIA, "poster": str, "title": str}),
        text=lambda block: (block.get("caption") or "",),
        description="A video file by URL (or media item), with an optional caption and poster image.",
    )
)
register(
    BlockType(
        "audio",
        object_validator(required={"url": str}, optional={**_MEDIA, "title": str}),
        text=lambda block: (block.get("caption") or "",),
        description="An audio file by URL (or media item), with an optional caption.",
    )
)
register(
    BlockType(
        "file",
        object_validator(
            required={"url": str},
            optional={**_MEDIA, "name": str, "showDownloadButton": bool, "downloadButtonText": str},
        ),
        text=lambda block: (block.get("name") or "", block.get("downloadButtonText") or ""),
        description="A downloadable file: its URL (or media item), the link text and an optional download button.",
    )
)
register(
    BlockType(
        "button",
        object_validator(required={"text": str}, optional={"href": str, "blank": bool}),
        text=lambda block: (block.get("text") or "",),
        description="A call-to-action button: its text and link (blank: opens in a new tab).",
    )
)
register(
    BlockType(
        "columns",
        _validate_columns,
        text=lambda block: (plain_text(column.get("content")) for column in block.get("columns") or ()),
        description="Content side by side: columns, each holding Portable Text, with an optional width.",
    )
)
register(
    BlockType(
        "group",
        _container_validator({"originalType": str, "attributes": dict, "tagName": str}),
        text=lambda block: (plain_text(block.get("content")),),
        description="Blocks kept together (a section, a box); originalType names the block it came from.",
    )
)
register(
    BlockType(
        "cover",
        _container_validator({"url": str, "mediaId": str, "alt": str, "mediaType": str}),
        text=lambda block: (block.get("alt") or "", plain_text(block.get("content"))),
        description="Content over a background image or video (mediaType 'image' or 'video').",
    )
)
register(
    BlockType(
        "mediaText",
        _container_validator(
            {"url": str, "mediaId": str, "alt": str, "mediaType": str, "mediaPosition": str, "href": str}
        ),
        text=lambda block: (block.get("alt") or "", plain_text(block.get("content"))),
        description="An image or video beside content (mediaPosition 'left' or 'right').",
    )
)
register(
    BlockType(
        "sectionReference",
        _validate_section_reference,
        description="A reusable section placed here: sectionId once resolved, ref as given by the source.",
    )
)
register(
    BlockType(
        "shortcode",
        object_validator(required={"name": str, "raw": str}, optional={"attributes": dict, "content": str}),
        # The enclosed content is what the shortcode showed readers; its name and attributes are not.
        text=lambda block: (visible_text(block.get("content") or ""),),
        description="A WordPress shortcode kept as written ([name attributes]content[/name]).",
    )
)
