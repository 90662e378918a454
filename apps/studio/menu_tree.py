"""A menu's order as the studio moves it: the item tree as ids only, the four keyboard moves (up, down, indent,
outdent), and the ``[{id, parent_id, sort_order}]`` list that ``apps.menus.services.menu_reorder`` takes.

A move is the face translating a button into a new order; whether that order is acceptable (items of this menu, no
cycle) stays the service's decision."""

from __future__ import annotations

from dataclasses import dataclass, field

from apps.menus.selectors import ResolvedItem

MOVES = ("up", "down", "indent", "outdent")


@dataclass
class Node:
    id: str
    children: list[Node] = field(default_factory=list)


def shape(tree: list[ResolvedItem]) -> list[Node]:
    return [Node(node.item.pk, shape(node.children)) for node in tree]


def _locate(forest: list[Node], item_id: str, parent: Node | None = None):
    """(siblings, index, parent node) of ``item_id``, or None."""
    for index, node in enumerate(forest):
        if node.id == item_id:
            return forest, index, parent
        found = _locate(node.children, item_id, node)
        if found:
            return found
    return None


def possible(forest: list[Node], item_id: str) -> set[str]:
    """The moves that would change something for ``item_id``."""
    found = _locate(forest, item_id)
    if found is None:
        return set()
    siblings, index, parent = found
    moves = set()
    if index > 0:
        moves |= {"up", "indent"}
    if index < len(siblings) - 1:
        moves.add("down")
    if parent is not None:
        moves.add("outdent")
    return moves


def move(forest: list[Node], item_id: str, how: str) -> bool:
    """Apply one move in place; False when it would change nothing. An item moves with its children; indenting makes
    it the last child of the item above it, outdenting puts it right after its parent."""
    if how not in possible(forest, item_id):
        return False
    siblings, index, parent = _locate(forest, item_id)
    node = siblings[index]
    if how == "up":
        siblings[index - 1], siblings[index] = node, siblings[index - 1]
    elif how == "down":
        siblings[index + 1], siblings[index] = node, siblings[index + 1]
    elif how == "indent":
        siblings.pop(index)
        siblings[index - 1].children.append(node)
    else:
        siblings.pop(index)
        outer, position, _ = _locate(forest, parent.id)
        outer.insert(position + 1, node)
    return True


def positions(forest: list[Node], parent_id: str | None = None) -> list[dict]:
    """Every item's parent and position among its siblings, in the service's names."""
    out = []
    for order, node in enumerate(forest):
        out.append({"id": node.id, "parent_id": parent_id, "sort_order": order})
        out.extend(positions(node.children, node.id))
    return out
