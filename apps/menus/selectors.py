"""Reads of menus: the list, and one menu with its items as an ordered tree, references resolved.

Resolving costs a constant number of queries whatever the menu's size: the items, then every referenced entry at once
and every referenced term at once. A content item whose entry is deleted, in the trash or not published, or a taxonomy
item whose term is gone, is flagged ``missing`` (front ends usually hide it) rather than dropped.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from apps.content.models import Entry, Status
from apps.core.db import JsonKey
from apps.core.errors import NotFound
from apps.menus.models import ItemType, Menu, MenuItem
from apps.taxonomy.models import Term


@dataclass
class ResolvedItem:
    item: MenuItem
    slug: str | None = None
    title: str | None = None
    missing: bool = False
    children: list[ResolvedItem] = field(default_factory=list)


def menu_list() -> list[Menu]:
    return list(Menu.objects.order_by("name"))


def menu_get(*, name: str) -> Menu:
    menu = Menu.objects.filter(name=name).first()
    if menu is None:
        known = ", ".join(Menu.objects.order_by("name").values_list("name", flat=True)[:50]) or "none yet"
        raise NotFound(f"No menu '{name}'; menus: {known}.")
    return menu


def menu_item_get(*, menu: Menu, item_id: str) -> MenuItem:
    item = MenuItem.objects.filter(menu=menu, pk=item_id).first()
    if item is None:
        raise NotFound(f"No item {item_id} in the menu '{menu.name}'.")
    return item


def resolve(items: list[MenuItem]) -> list[ResolvedItem]:
    """Each item with its reference resolved (flat, in the given order)."""
    entry_ids = [item.reference_id for item in items if item.type == ItemType.CONTENT]
    term_ids = [item.reference_id for item in items if item.type == ItemType.TAXONOMY]
    entries = {}
    if entry_ids:
        rows = (
            Entry.objects.filter(pk__in=entry_ids, deleted_at__isnull=True, status=Status.PUBLISHED)
            .annotate(title=JsonKey("live_data", "title"))
            .values_list("pk", "collection__slug", "slug", "title")
        )
        entries = {pk: (collection, slug, title) for pk, collection, slug, title in rows}
    terms = {}
    if term_ids:
        rows = Term.objects.filter(pk__in=term_ids).values_list("pk", "taxonomy__name", "slug", "label")
        terms = {pk: (taxonomy, slug, label) for pk, taxonomy, slug, label in rows}
    resolved = []
    for item in items:
        node = ResolvedItem(item)
        if item.type == ItemType.CONTENT:
            found = entries.get(item.reference_id)
            if found is None or found[0] != item.reference_collection:
                node.missing = True
            else:
                node.slug = found[1]
                node.title = found[2] if isinstance(found[2], str) else found[1]
        elif item.type == ItemType.TAXONOMY:
            found = terms.get(item.reference_id)
            if found is None or found[0] != item.reference_collection:
                node.missing = True
            else:
                node.slug, node.title = found[1], found[2]
        resolved.append(node)
    return resolved


def menu_tree(*, menu: Menu) -> list[ResolvedItem]:
    """The menu's items as a forest: roots in order, each with its children in order."""
    items = list(MenuItem.objects.filter(menu=menu).order_by("sort_order", "created_at", "id"))
    nodes = resolve(items)
    by_id = {node.item.pk: node for node in nodes}
    children: dict[str | None, list[ResolvedItem]] = defaultdict(list)
    for node in nodes:
        parent = node.item.parent_id if node.item.parent_id in by_id else None
        children[parent].append(node)
    for node in nodes:
        node.children = children.get(node.item.pk, [])
    return children[None]
