"""Reads of menus: the list, and one menu with its items as an ordered tree, references resolved.

A content item's target is its entry: collection, id, slug, title (the collection's title-like field, else the slug),
status and whether it is in the trash; a taxonomy item's target is its term: taxonomy, id, slug and label. Resolving
costs a constant number of queries whatever the menu's size: the items, then every referenced entry at once and
every referenced term at once (the fields naming each collection's title come from the schema cache).

Readers who may see drafts (contributor and up, who build menus) get the target of any entry still stored, trashed
and unpublished ones included, with its working title; everyone else only sees published entries, so a draft's title
never reaches a public front end. An item whose target is gone, or not public (unpublished or in the trash), is
flagged ``missing`` (front ends usually hide it) rather than dropped; its ``target`` is None when the reader may not
see it or it no longer exists.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from urllib.parse import quote

from django.conf import settings

from apps.accounts.permissions import Actor, authorize
from apps.content.models import Entry, Status
from apps.content.selectors import can_read_drafts
from apps.core.db.jsonkeys import JsonKey
from apps.core.errors import NotFound
from apps.menus.models import ItemType, Menu, MenuItem
from apps.schema.addresses import entry_path
from apps.schema.selectors import collections_for_read, site_is_public, title_field
from apps.taxonomy.models import Term


@dataclass(frozen=True)
class EntryTarget:
    collection: str
    id: str
    slug: str
    title: str
    status: str
    trashed: bool
    # The entry's path under its collection's URL pattern; None when the collection has none.
    url: str | None = None

    @property
    def public(self) -> bool:
        return self.status == Status.PUBLISHED and not self.trashed


@dataclass(frozen=True)
class TermTarget:
    taxonomy: str
    id: str
    slug: str
    label: str
    url: str | None = None
    public = True

    @property
    def collection(self) -> str:
        """The taxonomy's name, as a menu item's ``referenceCollection`` names it."""
        return self.taxonomy


@dataclass
class ResolvedItem:
    item: MenuItem
    target: EntryTarget | TermTarget | None = None
    children: list[ResolvedItem] = field(default_factory=list)

    @property
    def missing(self) -> bool:
        return self.item.type != ItemType.CUSTOM and (self.target is None or not self.target.public)


def menu_list(*, actor: Actor | None) -> list[Menu]:
    authorize(actor, "menus.read", public=site_is_public)
    return list(Menu.objects.order_by("name"))


def menu_read(*, actor: Actor | None, name: str) -> tuple[Menu, list[ResolvedItem]]:
    """A menu and its item tree as ``actor`` may see it (drafts' titles only for those who may read drafts)."""
    authorize(actor, "menus.read", public=site_is_public)
    return menu_as_seen(actor=actor, menu=menu_get(name=name))


def menu_as_seen(*, actor: Actor | None, menu: Menu) -> tuple[Menu, list[ResolvedItem]]:
    """The menu as ``actor`` sees it, without a read check: the answer to a write the actor was allowed to make."""
    return menu, menu_tree(menu=menu, drafts=can_read_drafts(actor))


def item_as_seen(*, actor: Actor | None, item: MenuItem) -> ResolvedItem:
    return resolve([item], drafts=can_read_drafts(actor))[0]


def menu_get(*, name: str) -> Menu:
    """The menu named ``name`` for a service to act on (the service authorizes), or NOT_FOUND naming the others."""
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


def _entry_targets(ids: list[str], *, drafts: bool) -> dict[str, EntryTarget]:
    """Entries by id in one query, each titled by its collection's title field (one column per distinct field)."""
    collections = collections_for_read()
    titles = {collection.slug: title_field(collection) for collection in collections}
    patterns = {collection.slug: collection.url_pattern for collection in collections}
    keys = sorted({key for key in titles.values() if key})
    rows = Entry.objects.filter(pk__in=ids)
    if not drafts:
        rows = rows.filter(deleted_at__isnull=True, status=Status.PUBLISHED)
    # What the public sees of a published entry is its published version; a working title only for the others.
    columns = {f"live_{index}": JsonKey("live_data", key) for index, key in enumerate(keys)}
    columns.update(
        {f"work_{index}": JsonKey("data", key) for index, key in enumerate(keys)} if drafts else {}
    )
    names = ["pk", "collection__slug", "slug", "locale", "status", "deleted_at", *columns]
    targets = {}
    for values in rows.annotate(**columns).values_list(*names):
        row = dict(zip(names, values, strict=True))
        collection = row["collection__slug"]
        key = titles.get(collection)
        title = None
        if key is not None:
            index = keys.index(key)
            version = "live" if row["status"] == Status.PUBLISHED or not drafts else "work"
            title = row.get(f"{version}_{index}")
        targets[row["pk"]] = EntryTarget(
            collection=collection,
            id=row["pk"],
            slug=row["slug"],
            title=title if isinstance(title, str) and title.strip() else row["slug"],
            status=row["status"],
            trashed=row["deleted_at"] is not None,
            url=entry_path(patterns[collection], slug=row["slug"], locale=row["locale"], id=row["pk"])
            if patterns.get(collection)
            else None,
        )
    return targets


def resolve(items: list[MenuItem], *, drafts: bool) -> list[ResolvedItem]:
    """Each item with its target resolved (flat, in the given order). ``drafts``: the reader may see unpublished
    entries (``apps.content.selectors.can_read_drafts``)."""
    entry_ids = [item.reference_id for item in items if item.type == ItemType.CONTENT]
    term_ids = [item.reference_id for item in items if item.type == ItemType.TAXONOMY]
    entries = _entry_targets(entry_ids, drafts=drafts) if entry_ids else {}
    terms = {}
    if term_ids:
        rows = Term.objects.filter(pk__in=term_ids).values_list("pk", "taxonomy__name", "slug", "label")
        pattern = settings.CMS_TERM_URL_PATTERN
        terms = {
            pk: TermTarget(
                taxonomy=name,
                id=pk,
                slug=slug,
                label=label,
                url=pattern.format(taxonomy=quote(name, safe=""), slug=quote(slug, safe=""))
                if pattern
                else None,
            )
            for pk, name, slug, label in rows
        }
    resolved = []
    for item in items:
        node = ResolvedItem(item)
        if item.type == ItemType.CONTENT:
            target = entries.get(item.reference_id)
            node.target = (
                target if target is not None and target.collection == item.reference_collection else None
            )
        elif item.type == ItemType.TAXONOMY:
            target = terms.get(item.reference_id)
            node.target = (
                target if target is not None and target.taxonomy == item.reference_collection else None
            )
        resolved.append(node)
    return resolved


def menu_tree(*, menu: Menu, drafts: bool) -> list[ResolvedItem]:
    """The menu's items as a forest: roots in order, each with its children in order."""
    items = list(MenuItem.objects.filter(menu=menu).order_by("sort_order", "created_at", "id"))
    nodes = resolve(items, drafts=drafts)
    by_id = {node.item.pk: node for node in nodes}
    children: dict[str | None, list[ResolvedItem]] = defaultdict(list)
    for node in nodes:
        parent = node.item.parent_id if node.item.parent_id in by_id else None
        children[parent].append(node)
    for node in nodes:
        node.children = children.get(node.item.pk, [])
    return children[None]
