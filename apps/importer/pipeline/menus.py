"""Menus: classic ones (``nav_menu`` terms and ``nav_menu_item`` items) and a block theme's navigation posts
(``wp_navigation``). While the items are read, each menu item's source is recorded; once every item is in (links
phase), the menus and their items are built, parents before children, each pointing at the entry or term it names
when that was imported, else at its URL."""

from __future__ import annotations

from typing import Any

from apps.content.models import Entry
from apps.core.errors import CmsError
from apps.core.slugs import slugify
from apps.importer.items import ImportItem
from apps.importer.models import ImportRecord
from apps.importer.navigation import navigation_items
from apps.importer.pipeline.state import RunState, attempt, reason
from apps.importer.slugs import base_slug
from apps.menus import services as menu_services
from apps.menus.models import Menu, MenuItem


class Menus:
    def __init__(self, state: RunState) -> None:
        self.state = state

    # --- while the items are read -----------------------------------------------------------------------------------

    def record_item(self, item: ImportItem) -> None:
        """A ``nav_menu_item``: its source, for each menu it is in."""
        menu = item.menu_item
        if menu is None or not self.state.options.get("includeMenus", True):
            return
        # Keyed by menu and post id: exports are known to repeat a menu item's post id in another menu.
        for slug in menu.menus:
            self.state.put("menu_item_source", f"{slug}:{item.source_id}", payload=_payload(item, slug))

    def record_navigation(self, item: ImportItem) -> None:
        """A block theme's navigation (a ``wp_navigation`` post) is a menu like a classic one: its links become items
        built in the links phase, keyed by the post and the link's place in it (docs/decisions.md, "Import
        pipeline")."""
        state = self.state
        if not state.options.get("includeMenus", True):
            return
        title = item.title or item.slug or f"Navigation {item.source_id}"
        if item.status != "publish":
            state.warn(
                "MENU_SKIPPED",
                f"Navigation {item.source_id} '{title}' is {item.status or 'unpublished'} in WordPress; not made a menu.",
                sourceId=item.source_id,
            )
            return
        key = f"wp_navigation:{item.source_id}"
        state.put("menu_term", key, payload={"name": title, "slug": base_slug(item) or "navigation"})
        links, others = navigation_items(item.raw_content)
        for payload in links:
            state.put("menu_item_source", f"{key}:{payload['id']}", payload={**payload, "menu": key})
        for name in others:
            state.warn(
                "MENU_ITEM_SKIPPED",
                f"Navigation {item.source_id} '{title}' holds a {name} block, which is no menu item; left out.",
                sourceId=item.source_id,
            )

    # --- once every item is in --------------------------------------------------------------------------------------

    def build(self) -> None:
        state = self.state
        sources = list(ImportRecord.objects.filter(site=state.site, kind="menu_item_source"))
        terms = list(ImportRecord.objects.filter(site=state.site, kind="menu_term"))
        names = {record.source_id: record.payload.get("name") or record.source_id for record in terms}
        # A navigation post's menu is named after its slug; a nav_menu term's menu after the term's slug (its key).
        bases = {record.source_id: record.payload.get("slug") or record.source_id for record in terms}
        for record in sources:
            names.setdefault(record.payload["menu"], record.payload["menu"])
        menus: dict[str, Menu] = {}
        for slug, label in sorted(names.items()):
            record = state.get("menu", slug)
            menu = Menu.objects.filter(pk=record.target_id).first() if record else None
            if menu is None:
                name = _menu_name(bases.get(slug, slug))
                base, number = name, 2
                while Menu.objects.filter(name=name).exists():
                    name = f"{base}-{number}"
                    number += 1
                menu = menu_services.menu_create(actor=state.system, name=name, label=label or slug)
                state.put("menu", slug, target_id=menu.pk, target_type=menu.name)
                state.counters["menus"] += 1
            menus[slug] = menu
        made: dict[str, str] = {
            record.source_id: record.target_id
            for record in ImportRecord.objects.filter(site=state.site, kind="menu_item")
            if MenuItem.objects.filter(pk=record.target_id).exists()
        }
        remaining = sorted(sources, key=lambda record: (record.payload.get("order") or 0, record.source_id))
        # Parents before children: each round places the items whose parent is placed (or that have none).
        while remaining:
            progressed, later = False, []
            waiting = {record.source_id for record in remaining}
            for record in remaining:
                parent = _parent_key(record.payload)
                if parent and parent not in made and parent in waiting:
                    later.append(record)
                    continue
                progressed = True
                if record.source_id in made:
                    continue
                item_id = self._item(record, menus, made)
                if item_id:
                    made[record.source_id] = item_id
            if not progressed:
                for record in later:
                    record.payload["parentId"] = None
            remaining = later

    def _item(self, record: ImportRecord, menus: dict[str, Menu], made: dict[str, str]) -> str | None:
        state = self.state
        payload = record.payload
        menu = menus[payload["menu"]]
        label = (payload.get("title") or "").strip()
        values: dict[str, Any] = {"label": label, "sort_order": payload.get("order") or 0}
        parent = _parent_key(payload)
        if parent and parent in made:
            values["parent_id"] = made[parent]
        kind, object_id = payload.get("type"), payload.get("objectId")
        target = None
        if kind == "post_type" and object_id is not None:
            target = state.get("entry", object_id)
            if (
                target
                and target.target_id
                and Entry.objects.filter(pk=target.target_id, deleted_at__isnull=True).exists()
            ):
                values.update(
                    type="content", reference_collection=target.target_type, reference_id=target.target_id
                )
            else:
                target = None
        elif kind == "taxonomy" and object_id is not None:
            term = self._term_by_source_id(payload.get("object"), object_id)
            if term is not None:
                values.update(type="taxonomy", reference_collection=term[0], reference_id=term[1])
                target = True
            else:
                target = None
        if target is None:
            url = payload.get("url") or ""
            if not url:
                state.warn(
                    "MENU_ITEM_SKIPPED",
                    f"Menu item {record.source_id} points at {kind} {object_id}, which was not imported.",
                    sourceId=record.source_id,
                )
                return None
            values.update(type="custom", url=url, label=label or url)
        item = attempt(lambda: menu_services.menu_item_create(actor=state.system, menu=menu, values=values))
        if isinstance(item, CmsError):
            state.warn(
                "MENU_ITEM_SKIPPED",
                f"Menu item {record.source_id}: {reason(item)}",
                sourceId=record.source_id,
            )
            return None
        state.put("menu_item", record.source_id, target_id=item.pk, target_type=menu.name)
        state.counters["menuItems"] += 1
        return item.pk

    def _term_by_source_id(self, wp_taxonomy: str | None, term_source_id: Any) -> tuple[str, str] | None:
        # WXR names menu targets by term id; terms are recorded by slug, with their id kept on the term record.
        record = ImportRecord.objects.filter(
            site=self.state.site, kind="term_id", source_id=f"{wp_taxonomy}:{term_source_id}"
        ).first()
        if record is None:
            return None
        return record.target_type, record.target_id


def _payload(item: ImportItem, slug: str) -> dict[str, Any]:
    menu = item.menu_item
    return {
        "menu": slug,
        "id": item.source_id,
        "type": menu.type,
        "object": menu.object,
        "objectId": menu.object_id,
        "parentId": menu.parent_id,
        "url": menu.url,
        "title": item.title,
        "order": item.menu_order,
    }


def _menu_name(name: str) -> str:
    slug = slugify(name)[:60] or "menu"
    return slug if slug[0].isalpha() else f"menu-{slug}"


def _parent_key(payload: dict[str, Any]) -> str | None:
    parent = payload.get("parentId")
    return f"{payload['menu']}:{parent}" if parent else None
