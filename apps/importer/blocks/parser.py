"""A parser for WordPress's block grammar: the HTML comments the block editor writes around each block.

A post written in the block editor is HTML with delimiters::

    <!-- wp:paragraph {"align":"right"} --><p class="has-text-align-right">Hi</p><!-- /wp:paragraph -->
    <!-- wp:image {"id":5} /-->                      (self-closing, no HTML of its own)
    <!-- wp:my-plugin/box --> … inner blocks … <!-- /wp:my-plugin/box -->

Names without a namespace are ``core/…``. HTML outside any block is "freeform" (classic) content and becomes a block
whose name is None. Each block has the same five parts as in WordPress's parsers (``parse_blocks()`` in PHP,
``@wordpress/block-serialization-default-parser`` in JavaScript): ``blockName``, ``attrs`` (the JSON object, or None
when it is not valid JSON), ``innerBlocks``, ``innerHTML`` (the block's own HTML, inner blocks left out) and
``innerContent`` (that HTML in pieces, with None where each inner block sits).

Behaviour follows WordPress's default parser: a closer closes the innermost open block whatever name it carries, and
a block still open at the end of the document is closed there. Two cases of broken markup are handled more
carefully, because imported content must not lose or repeat text (docs/decisions.md, "Import"):

- a closer with no open block is kept as part of the surrounding freeform HTML and parsing goes on, as in the
  block grammar's specification parser (WordPress's default parser turns the whole rest of the post into one
  freeform block);
- blocks still open at the end are closed innermost first and keep their nesting (WordPress's default parser
  moves them to the top level and repeats the inner markup in the outer block).

Blocks also remember where they came from in the document (``start``/``end``, ``markup``), so a block we cannot
convert is kept exactly as it was written, and how deeply blocks nest inside them (``nesting``).

``parse_blocks_checked`` also reports what was broken (``Issue``: where, and what): a comment that looks like a
delimiter but is not one (``<!-- wp:heading {"level":2 -->``, whose JSON never closes), attributes that are not valid
JSON, a closer naming another block than the one it closes, a closer with no open block, a block never closed. The
importer keeps every word of such a post and saves it as a draft with the original (docs/decisions.md, "Import").
Attributes cannot contain ``-->`` (WordPress writes ``--`` in them as ``\u002d\u002d``), so an opener whose JSON
never closes does not swallow the content up to the next ``} -->`` of another block.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

# One delimiter, as the block grammar defines it: "<!--", whitespace, an optional "/" (closer), "wp:", an optional
# namespace and a name (lowercase letter, then lowercase letters, digits, "_" or "-"), whitespace, optionally a JSON
# object ending at the first "}" that is followed by whitespace and "-->" or "/-->", an optional "/" (self-closing)
# and "-->". ASCII whitespace only, as in PHP's PCRE \s.
_DELIMITER = re.compile(
    r"<!--\s+(?P<closer>/)?wp:(?P<namespace>[a-z][a-z0-9_-]*/)?(?P<name>[a-z][a-z0-9_-]*)\s+"
    r"(?P<attrs>\{(?:(?!-->).)*?\}\s+)?(?P<void>/)?-->",
    re.DOTALL | re.ASCII,
)
_HAS_BLOCKS = re.compile(r"<!--\s+wp:", re.ASCII)
# What starts a delimiter: a comment of this form that is not one is broken block markup.
_DELIMITER_LIKE = re.compile(r"<!--\s+/?wp:", re.ASCII)


@dataclass(slots=True, eq=False)
class Block:
    """One parsed block. ``name`` is None for freeform HTML."""

    name: str | None
    attrs: dict[str, Any] | None
    inner_blocks: list[Block] = field(default_factory=list)
    inner_html: str = ""
    inner_content: list[str | None] = field(default_factory=list)
    # Where the block (delimiters included) sits in ``document``.
    start: int = 0
    end: int = 0
    document: str = field(default="", repr=False)
    # Levels of blocks in this one, itself included (a block without inner blocks: 1; freeform HTML: 0).
    nesting: int = 1

    @property
    def markup(self) -> str:
        """The block exactly as written in the source, delimiters and inner blocks included."""
        return self.document[self.start : self.end]

    def to_dict(self) -> dict[str, Any]:
        """WordPress's shape: blockName, attrs, innerBlocks, innerHTML, innerContent."""
        return {
            "blockName": self.name,
            "attrs": self.attrs,
            "innerBlocks": [inner.to_dict() for inner in self.inner_blocks],
            "innerHTML": self.inner_html,
            "innerContent": list(self.inner_content),
        }


@dataclass(slots=True, eq=False)
class _Open:
    block: Block
    # Where the next piece of this block's own HTML starts (after its opener, or after its latest inner block).
    html_from: int
    # Where freeform HTML before a top-level block starts, or None when there is none.
    leading_from: int | None


@dataclass(slots=True, frozen=True)
class Issue:
    """Broken block markup: where in the document (a character offset) and what."""

    position: int
    message: str


def has_blocks(content: str) -> bool:
    """Whether content was written in the block editor (WordPress's ``has_blocks()`` looks for the same opener)."""
    return bool(_HAS_BLOCKS.search(content))


def parse_blocks(document: str) -> list[Block]:
    """Parse post content into its top-level blocks (freeform HTML included, as blocks named None)."""
    return parse_blocks_checked(document)[0]


def parse_blocks_checked(document: str) -> tuple[list[Block], list[Issue]]:
    """``parse_blocks``, and what is broken in the block markup (nothing for well-formed posts)."""
    output: list[Block] = []
    stack: list[_Open] = []
    issues: list[Issue] = []
    offset = 0  # end of the last delimiter that took effect
    starts: set[int] = set()

    for match in _DELIMITER.finditer(document):
        start, end = match.span()
        starts.add(start)
        is_closer = match["closer"] is not None
        name = (match["namespace"] or "core/") + match["name"]
        if is_closer and not stack:
            # A closer without an opener: leave it in the freeform HTML around it and go on.
            issues.append(Issue(start, f"a closing <!-- /wp:{_short(name)} --> without an open block"))
            continue
        leading_from = offset if start > offset else None
        offset = end
        if is_closer:
            opened = stack[-1].block.name
            if opened != name:
                issues.append(
                    Issue(
                        start,
                        f"<!-- /wp:{_short(name)} --> closes the {_short(opened)} block opened before it",
                    )
                )
            _close(stack, output, document, start, end)
            continue
        attrs = _attributes(match["attrs"])
        if attrs is None:
            issues.append(Issue(start, f"the attributes of a {_short(name)} block are not a JSON object"))
        block = Block(name, attrs, start=start, end=end, document=document)
        if match["void"] is not None:
            if stack:
                _add_inner(stack[-1], block, document, start, end)
            else:
                if leading_from is not None:
                    output.append(_freeform(document, leading_from, start))
                output.append(block)
        else:
            stack.append(_Open(block, end, leading_from))

    if stack:
        # Whatever is still open ends with the document, innermost first.
        while stack:
            issues.append(
                Issue(stack[-1].block.start, f"a {_short(stack[-1].block.name)} block is never closed")
            )
            _close(stack, output, document, len(document), len(document))
    elif offset < len(document):
        output.append(_freeform(document, offset, len(document)))
    if len(starts) != len(_DELIMITER_LIKE.findall(document)):
        for match in _DELIMITER_LIKE.finditer(document):
            if match.start() not in starts:
                comment = document[match.start() : match.start() + 60].split("-->", 1)[0]
                issues.append(Issue(match.start(), f"{comment.strip()} … is not valid block markup"))
    issues.sort(key=lambda issue: issue.position)
    return output, issues


def _short(name: str | None) -> str:
    """A block's name as its delimiter spells it (``core/`` left out)."""
    name = name or "freeform"
    return name[5:] if name.startswith("core/") else name


def parse_blocks_as_dicts(document: str) -> list[dict[str, Any]]:
    """``parse_blocks`` in WordPress's array shape (what ``parse_blocks()`` returns in PHP)."""
    return [block.to_dict() for block in parse_blocks(document)]


def _attributes(raw: str | None) -> dict[str, Any] | None:
    if raw is None:
        return {}
    try:
        value = json.loads(raw)
    except ValueError:
        # WordPress keeps the block and gives it null attributes when the JSON does not decode.
        return None
    return value if isinstance(value, dict) else None


def _freeform(document: str, start: int, end: int) -> Block:
    html = document[start:end]
    return Block(
        None, {}, inner_html=html, inner_content=[html], start=start, end=end, document=document, nesting=0
    )


def _append_html(open_block: _Open, document: str, until: int) -> None:
    html = document[open_block.html_from : until]
    if html:
        open_block.block.inner_html += html
        open_block.block.inner_content.append(html)


def _add_inner(parent: _Open, block: Block, document: str, start: int, end: int) -> None:
    _append_html(parent, document, start)
    parent.block.nesting = max(parent.block.nesting, block.nesting + 1)
    parent.block.inner_blocks.append(block)
    parent.block.inner_content.append(None)
    parent.html_from = end


def _close(stack: list[_Open], output: list[Block], document: str, start: int, end: int) -> None:
    closing = stack.pop()
    _append_html(closing, document, start)
    block = closing.block
    block.end = end
    if stack:
        _add_inner(stack[-1], block, document, block.start, end)
        return
    if closing.leading_from is not None:
        output.append(_freeform(document, closing.leading_from, block.start))
    output.append(block)
