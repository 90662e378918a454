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

STYLES = ("normal", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote")
LIST_ITEMS = ("bullet", "number")
DECORATORS = ("strong", "em", "underline", "strike-through", "code", "sup", "sub")
MAX_DEPTH = 8  # nested containers (columns of groups of …); deeper is refused rather than recursed into

Problems = dict[str, str]


def new_key() -> str:
    return secrets.token_hex(6)


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
    for index, span in enumerate(children):
        here = f"{where}.children[{index}]"
        if not isinstance(span, dict):
            problems[here] = "Expected a span object {_type: 'span', text}."
            continue
        if span.get("_type", "span") != "span":
            problems[f"{here}._type"] = "Children of a text block are spans (_type 'span')."
            continue
        text = span.get("text")
        if not isinstance(text, str):
            problems[f"{here}.text"] = "A span needs its text as a string."
            continue
        marks = span.get("marks", [])
        if not isinstance(marks, list) or not all(isinstance(mark, str) for mark in marks):
            problems[f"{here}.marks"] = "Marks are a list of strings."
            marks = []
        unknown = [mark for mark in marks if mark not in DECORATORS and mark not in def_keys]
        if unknown:
            problems[f"{here}.marks"] = (
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
        problems: Problems = {}
        allowed = {"_type", "_key", *required, *optional}
        extra = set(block) - allowed
        if extra:
            problems[where] = f"Unknown key(s) {', '.join(sorted(extra))} in a '{block['_type']}' block."
        for name, kind in {**required, **optional}.items():
            if name not in block:
                if name in required:
                    problems[f"{where}.{name}"] = f"Required in a '{block['_type']}' block."
                continue
            value = block[name]
            if value is None and name in optional:
                continue
            if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                names = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
                problems[f"{where}.{name}"] = f"Expected {_JSON_NAMES.get(names, names)}."
        return block, problems

    return validate


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


register(
    BlockType(
        "image",
        object_validator(
            required={},
            optional={
                "url": str,
                "mediaId": str,
                "asset": dict,
                "alt": str,
                "caption": str,
                "width": int,
                "height": int,
                "href": str,
                "align": str,
            },
        ),
        text=lambda block: (block.get("alt") or "", block.get("caption") or ""),
        description="An image: a media item (mediaId) or a URL, with alt text and caption.",
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
        description="Raw HTML kept as it was (for markup that has no Portable Text equivalent).",
    )
)
register(
    BlockType(
        "break",
        object_validator(required={"style": str}),
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
