"""Block-theme navigation (``wp_navigation`` posts) as menu items, without the database.

A block theme keeps each navigation menu as a post whose content is navigation blocks: ``navigation-link`` (a page,
post, term or address: ``{"label", "type", "id", "url", "kind"}``), ``navigation-submenu`` (the same, holding more
links) and ``home-link``. ``navigation_items`` turns them into the payloads the pipeline builds classic menus' items
from (``{id, parentId, type, object, objectId, url, title, order}``, ``type`` being WordPress's menu item type:
``post_type``, ``taxonomy`` or ``custom``), numbered in document order, and names the blocks that are no menu item
(``page-list``, which lists every page when WordPress shows it, a search field, social links …).
"""

from __future__ import annotations

import html
import re
from typing import Any

from apps.importer.blocks.parser import Block, parse_blocks

_LINKS = ("core/navigation-link", "core/navigation-submenu")
_TAGS = re.compile(r"<[^>]*>")
# A navigation-link's "type" names the post type or taxonomy, except that tags are "tag".
_TAXONOMIES = {"tag": "post_tag"}
MAX_NESTING = 32


def navigation_items(content: str) -> tuple[list[dict[str, Any]], list[str]]:
    """The menu item payloads of a navigation post's content, and the names of blocks that are not menu items."""
    items: list[dict[str, Any]] = []
    skipped: list[str] = []
    stack: list[tuple[Block, int | None, int]] = [
        (block, None, 0) for block in reversed(parse_blocks(content))
    ]
    while stack:
        block, parent, depth = stack.pop()
        if block.name is None:
            if block.inner_html.strip():
                skipped.append("freeform HTML")
            continue
        attrs = block.attrs if isinstance(block.attrs, dict) else {}
        if block.name in _LINKS:
            items.append(_link(attrs, len(items) + 1, parent))
            if depth < MAX_NESTING:
                stack.extend((inner, len(items), depth + 1) for inner in reversed(block.inner_blocks))
        elif block.name == "core/home-link":
            items.append(_item(len(items) + 1, parent, _label(attrs.get("label")) or "Home", url="/"))
        else:
            skipped.append(block.name.removeprefix("core/"))
    return items, skipped


def _label(value: Any) -> str:
    """A label as text: the editor stores it as HTML (entities, sometimes <strong> or <em>)."""
    return html.unescape(_TAGS.sub("", value)).strip() if isinstance(value, str) else ""


def _link(attrs: dict[str, Any], number: int, parent: int | None) -> dict[str, Any]:
    label = _label(attrs.get("label"))
    url = attrs.get("url") if isinstance(attrs.get("url"), str) else ""
    target_id = attrs.get("id")
    if isinstance(target_id, bool) or not isinstance(target_id, int):
        target_id = int(target_id) if isinstance(target_id, str) and target_id.isdigit() else None
    kind = attrs.get("kind")
    object_type = attrs.get("type") if isinstance(attrs.get("type"), str) else ""
    if kind == "post-type" and target_id is not None:
        return _item(
            number, parent, label, url=url, type="post_type", object=object_type, object_id=target_id
        )
    if kind == "taxonomy" and target_id is not None:
        taxonomy = _TAXONOMIES.get(object_type, object_type)
        return _item(number, parent, label, url=url, type="taxonomy", object=taxonomy, object_id=target_id)
    return _item(number, parent, label, url=url)


def _item(
    number: int,
    parent: int | None,
    title: str,
    *,
    url: str = "",
    type: str = "custom",
    object: str = "custom",
    object_id: int | None = None,
) -> dict[str, Any]:
    return {
        "id": number,
        "parentId": parent,
        "type": type,
        "object": object,
        "objectId": object_id,
        "url": url,
        "title": title,
        "order": number,
    }
