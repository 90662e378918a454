"""Writes to menus and their items.

Every item write checks what the item points at (a live entry of the named collection, a term of the named taxonomy,
or a URL with a safe scheme) and that its parent is an item of the same menu that is not the item itself or one of its
descendants. Reordering takes new parents and positions for any number of items at once, checks the resulting tree as
a whole, and applies it in one transaction, or not at all.
"""

from __future__ import annotations

import re
from typing import Any

from django.db import transaction
from django.db.models import Max

from apps.accounts.permissions import Actor, authorize
from apps.content.models import Entry
from apps.core import events
from apps.core.errors import DuplicateSlug, ValidationError
from apps.menus.models import ItemType, Menu, MenuItem
from apps.schema.models import Collection
from apps.taxonomy.models import Taxonomy, Term

NAME_RE = re.compile(r"^[a-z][a-z0-9_-]*$")
NAME_HINT = "Use lowercase letters, digits, '-' and '_', starting with a letter (e.g. primary, footer-links)."
# Relative links and the schemes a navigation link can reasonably have; never javascript: or data:.
SAFE_URL = re.compile(r"^(/|#|\?|https?://|mailto:|tel:)", re.IGNORECASE)
ITEM_FIELDS = ("type", "label", "url", "reference_collection", "reference_id", "parent_id", "sort_order")


def check_name(name: Any) -> None:
    if not isinstance(name, str) or not NAME_RE.match(name) or len(name) > 63:
        raise ValidationError(details={"name": NAME_HINT})


def _changed(menu: Menu, action: str, actor: Actor) -> None:
    events.menu_changed.send(sender=Menu, menu=menu, action=action, actor=actor)


@transaction.atomic
def menu_create(*, actor: Actor, name: str, label: str) -> Menu:
    authorize(actor, "menus.write")
    check_name(name)
    if not label or not label.strip():
        raise ValidationError(details={"label": "Required."})
    if Menu.objects.filter(name=name).exists():
        raise DuplicateSlug(f"A menu named '{name}' exists already.", details={"name": "Taken."})
    menu = Menu.objects.create(name=name, label=label.strip())
    _changed(menu, "create", actor)
    return menu


@transaction.atomic
def menu_update(*, actor: Actor, menu: Menu, label: str | None = None, name: str | None = None) -> Menu:
    """Change the label. The name is the menu's identity (themes ask for it) and does not change."""
    authorize(actor, "menus.write")
    if name is not None and name != menu.name:
        raise ValidationError(details={"name": "A menu's name cannot change; create another menu."})
    if label is not None:
        if not label.strip():
            raise ValidationError(details={"label": "Must not be empty."})
        menu.label = label.strip()
        menu.save()
        _changed(menu, "update", actor)
    return menu


@transaction.atomic
def menu_delete(*, actor: Actor, menu: Menu) -> None:
    authorize(actor, "menus.write")
    _changed(menu, "delete", actor)
    menu.delete()


def _check_target(values: dict[str, Any]) -> dict[str, str]:
    """Problems with what an item points at; fills in nothing."""
    problems: dict[str, str] = {}
    kind = values.get("type")
    url = values.get("url") or ""
    collection = values.get("reference_collection") or ""
    reference = values.get("reference_id") or ""
    if kind == ItemType.CUSTOM:
        if not url:
            problems["url"] = "A custom item needs a url."
        elif not SAFE_URL.match(url):
            problems["url"] = "Give a relative path (/about) or an http(s), mailto: or tel: address."
        if collection or reference:
            problems["referenceId"] = "A custom item has a url, not a reference."
        if not (values.get("label") or "").strip():
            problems["label"] = "A custom item needs a label."
    elif kind == ItemType.CONTENT:
        if url:
            problems["url"] = "A content item links to its entry; leave url out."
        if not collection or not reference:
            problems["referenceId"] = (
                "Give referenceCollection (a collection slug) and referenceId (an entry id)."
            )
        elif not Collection.objects.filter(slug=collection).exists():
            problems["referenceCollection"] = f"No collection '{collection}'."
        elif not Entry.objects.filter(
            pk=reference, collection__slug=collection, deleted_at__isnull=True
        ).exists():
            problems["referenceId"] = f"No entry {reference} in '{collection}'."
    elif kind == ItemType.TAXONOMY:
        if url:
            problems["url"] = "A taxonomy item links to its term; leave url out."
        if not collection or not reference:
            problems["referenceId"] = (
                "Give referenceCollection (a taxonomy name) and referenceId (a term id)."
            )
        elif not Taxonomy.objects.filter(name=collection).exists():
            problems["referenceCollection"] = f"No taxonomy '{collection}'."
        elif not Term.objects.filter(pk=reference, taxonomy__name=collection).exists():
            problems["referenceId"] = f"No term {reference} in '{collection}'."
    else:
        problems["type"] = f"One of {', '.join(ItemType.values)}."
    return problems


def _parents(menu: Menu) -> dict[str, str | None]:
    return dict(MenuItem.objects.filter(menu=menu).values_list("pk", "parent_id"))


def _cycle(parents: dict[str, str | None]) -> str | None:
    """An item that is its own ancestor in ``parents`` (id → parent id), or None when the structure is a forest."""
    for start in parents:
        seen, current = set(), start
        while current is not None:
            if current in seen:
                return current
            seen.add(current)
            current = parents.get(current)
    return None


@transaction.atomic
def menu_item_create(*, actor: Actor, menu: Menu, values: dict[str, Any]) -> MenuItem:
    """Add an item (``type``, ``label``, ``url``, ``reference_collection``, ``reference_id``, ``parent_id``,
    ``sort_order``). Without a sort order it goes after its siblings."""
    authorize(actor, "menus.write")
    menu = Menu.objects.select_for_update().get(pk=menu.pk)
    problems = _check_target(values)
    parent_id = values.get("parent_id")
    if parent_id is not None and parent_id not in _parents(menu):
        problems["parentId"] = f"No item {parent_id} in the menu '{menu.name}'."
    if problems:
        raise ValidationError(details=problems)
    sort_order = values.get("sort_order")
    if sort_order is None:
        last = MenuItem.objects.filter(menu=menu, parent_id=parent_id).aggregate(last=Max("sort_order"))[
            "last"
        ]
        sort_order = 0 if last is None else last + 1
    _changed(menu, "update", actor)
    return MenuItem.objects.create(
        menu=menu,
        parent_id=parent_id,
        type=values["type"],
        label=(values.get("label") or "").strip(),
        url=values.get("url") or "",
        reference_collection=values.get("reference_collection") or "",
        reference_id=values.get("reference_id") or "",
        sort_order=sort_order,
    )


@transaction.atomic
def menu_item_update(*, actor: Actor, item: MenuItem, changes: dict[str, Any]) -> MenuItem:
    """Change any of the item's fields; only the keys given. The result is checked as a whole."""
    authorize(actor, "menus.write")
    menu = Menu.objects.select_for_update().get(pk=item.menu_id)
    item = MenuItem.objects.get(pk=item.pk)
    values = {name: getattr(item, name) for name in ITEM_FIELDS}
    values.update(changes)
    if "type" in changes:
        # A change of type drops what belonged to the old type, unless new values came with the change.
        stale = ("reference_collection", "reference_id") if changes["type"] == ItemType.CUSTOM else ("url",)
        for name in stale:
            if name not in changes:
                values[name] = ""
    problems = _check_target(values)
    parents = _parents(menu)
    parent_id = values.get("parent_id")
    if parent_id is not None and parent_id not in parents:
        problems["parentId"] = f"No item {parent_id} in the menu '{menu.name}'."
    elif _cycle({**parents, item.pk: parent_id}):
        problems["parentId"] = "An item cannot be its own parent or the child of one of its descendants."
    if problems:
        raise ValidationError(details=problems)
    for name, value in values.items():
        if name in ("label", "url", "reference_collection", "reference_id"):
            value = (value or "").strip() if name == "label" else (value or "")
        setattr(item, name, value)
    item.save()
    _changed(menu, "update", actor)
    return item


@transaction.atomic
def menu_item_delete(*, actor: Actor, item: MenuItem) -> None:
    """Delete an item; its children move up to its parent, keeping their order after its position."""
    authorize(actor, "menus.write")
    menu = Menu.objects.select_for_update().get(pk=item.menu_id)
    MenuItem.objects.filter(parent_id=item.pk).update(parent_id=item.parent_id)
    MenuItem.objects.filter(pk=item.pk).delete()
    _changed(menu, "update", actor)


@transaction.atomic
def menu_reorder(*, actor: Actor, menu: Menu, items: list[dict[str, Any]]) -> Menu:
    """Give items new parents and positions: ``[{id, parent_id, sort_order}]``. Items not listed keep theirs. Every
    id must be an item of this menu, listed once; the resulting structure must have no cycle. All or nothing."""
    authorize(actor, "menus.write")
    menu = Menu.objects.select_for_update().get(pk=menu.pk)
    parents = _parents(menu)
    problems: dict[str, str] = {}
    seen: set[str] = set()
    for index, change in enumerate(items):
        item_id, parent_id = change["id"], change.get("parent_id")
        if item_id not in parents:
            problems[f"items.{index}.id"] = f"No item {item_id} in the menu '{menu.name}'."
        elif item_id in seen:
            problems[f"items.{index}.id"] = "Listed twice."
        seen.add(item_id)
        if parent_id is not None and parent_id not in parents:
            problems[f"items.{index}.parentId"] = f"No item {parent_id} in the menu '{menu.name}'."
    if problems:
        raise ValidationError(details=problems)
    proposed = {**parents, **{change["id"]: change.get("parent_id") for change in items}}
    looped = _cycle(proposed)
    if looped:
        raise ValidationError(
            "The new order would make an item its own ancestor; nothing was changed.",
            details={"items": f"Item {looped} would be inside itself."},
        )
    rows = {row.pk: row for row in MenuItem.objects.filter(menu=menu, pk__in=list(seen))}
    for change in items:
        row = rows[change["id"]]
        row.parent_id = change.get("parent_id")
        row.sort_order = change["sort_order"]
    MenuItem.objects.bulk_update(list(rows.values()), ["parent_id", "sort_order"])
    menu.save(update_fields=["updated_at"])
    _changed(menu, "update", actor)
    return menu


MAX_MENU_DEPTH = 10


@transaction.atomic
def menu_items_replace(*, actor: Actor, menu: Menu, items: list[dict[str, Any]]) -> Menu:
    """Replace every item of the menu with ``items``: a tree of ``{type, label, url, reference_collection,
    reference_id, children}`` in display order. Each item is checked as ``menu_item_create`` checks it; problems are
    named by path (``items.1.children.0.url``) and nothing changes unless all items are valid."""
    authorize(actor, "menus.write")
    menu = Menu.objects.select_for_update().get(pk=menu.pk)
    problems: dict[str, str] = {}

    def check(nodes: list[dict[str, Any]], path: str, depth: int) -> None:
        for index, node in enumerate(nodes):
            where = f"{path}.{index}"
            if depth > MAX_MENU_DEPTH:
                problems[where] = f"Menus nest at most {MAX_MENU_DEPTH} levels deep."
                continue
            for key, problem in _check_target(node).items():
                problems[f"{where}.{key}"] = problem
            check(node.get("children") or [], f"{where}.children", depth + 1)

    check(items, "items", 1)
    if problems:
        raise ValidationError(details=problems)
    MenuItem.objects.filter(menu=menu).delete()

    def create(nodes: list[dict[str, Any]], parent: MenuItem | None) -> None:
        for position, node in enumerate(nodes):
            row = MenuItem.objects.create(
                menu=menu,
                parent=parent,
                type=node["type"],
                label=(node.get("label") or "").strip(),
                url=node.get("url") or "",
                reference_collection=node.get("reference_collection") or "",
                reference_id=node.get("reference_id") or "",
                sort_order=position,
            )
            create(node.get("children") or [], row)

    create(items, None)
    menu.save(update_fields=["updated_at"])
    _changed(menu, "update", actor)
    return menu
