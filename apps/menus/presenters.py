"""Menus as every face shows them (SPEC §2.7, §4.8): each shape once, with the function that builds it."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated, Literal

from pydantic import Field

from apps.content.models import Status
from apps.core.shapes import Timestamp, TypedDict
from apps.core.timefmt import iso
from apps.menus.models import ItemType, Menu
from apps.menus.selectors import EntryTarget, ResolvedItem, TermTarget

StatusName = Literal[tuple(Status.values)]  # type: ignore[valid-type]
ItemTypeName = Literal[tuple(ItemType.values)]  # type: ignore[valid-type]


class MenuOut(TypedDict):
    id: str
    name: str
    label: str
    createdAt: Timestamp
    updatedAt: Timestamp


class MenuListOut(TypedDict):
    items: list[MenuOut]
    nextCursor: Annotated[None, Field(description="Always null: every menu comes at once.")]


class EntryTargetOut(TypedDict):
    collection: Annotated[str, Field(description="The collection's slug.")]
    id: str
    slug: Annotated[str, Field(description="The entry's current slug.")]
    title: Annotated[
        str,
        Field(
            description="The collection's title field (title, else name, else its first string or text field): "
            "the published version's for published entries, the working copy's otherwise; the slug when empty."
        ),
    ]
    status: StatusName
    trashed: Annotated[bool, Field(description="The entry is in the trash.")]
    url: Annotated[
        str | None,
        Field(
            description="The entry's path on the front end (its collection's urlPattern); null without one."
        ),
    ]


class TermTargetOut(TypedDict):
    taxonomy: Annotated[str, Field(description="The taxonomy's name.")]
    id: str
    slug: Annotated[str, Field(description="The term's current slug.")]
    collection: Annotated[str, Field(description="The taxonomy's name again, as for entries' collection.")]
    label: Annotated[str, Field(description="The term's name.")]
    url: Annotated[
        str | None,
        Field(
            description="The term's path on the front end (CMS_TERM_URL_PATTERN, /{taxonomy}/{slug}); null without."
        ),
    ]


class MenuItemOut(TypedDict):
    id: str
    type: ItemTypeName
    label: Annotated[str, Field(description="The item's label, else its target's title or label.")]
    url: Annotated[
        str | None,
        Field(
            description="custom items: their address; content and taxonomy items: their target's url (null when the "
            "target is not shown or has no URL pattern)."
        ),
    ]
    referenceCollection: str | None
    referenceId: str | None
    target: Annotated[
        EntryTargetOut | TermTargetOut | None,
        Field(
            description="content items: the entry; taxonomy items: the term; null for custom items, for a target "
            "that no longer exists, and for an unpublished or trashed entry when the reader may not see drafts."
        ),
    ]
    missing: Annotated[
        bool,
        Field(
            description="The target is not on the public site: deleted, in the trash or unpublished (entries), or "
            "deleted (terms). Always false for custom items."
        ),
    ]
    parentId: str | None
    sortOrder: int
    children: Annotated[list[MenuItemOut], Field(description="Nested items, in order.")]


class MenuDetailOut(MenuOut):
    items: Annotated[
        list[MenuItemOut], Field(description="Top-level items in order, each with its children in order.")
    ]


def present_menu(menu: Menu) -> MenuOut:
    return {
        "id": menu.pk,
        "name": menu.name,
        "label": menu.label,
        "createdAt": iso(menu.created_at),
        "updatedAt": iso(menu.updated_at),
    }


def present_menus(menus: list[Menu]) -> MenuListOut:
    return {"items": [present_menu(menu) for menu in menus], "nextCursor": None}


def present_target(target: EntryTarget | TermTarget | None) -> EntryTargetOut | TermTargetOut | None:
    if target is None:
        return None
    if isinstance(target, TermTarget):
        return {**asdict(target), "collection": target.taxonomy}  # type: ignore[return-value]
    return asdict(target)  # type: ignore[return-value]


def present_item(node: ResolvedItem) -> MenuItemOut:
    item = node.item
    referenced = item.type != ItemType.CUSTOM
    target = node.target
    shown = target.title if isinstance(target, EntryTarget) else target.label if target is not None else ""
    return {
        "id": item.pk,
        "type": item.type,
        "label": item.label or shown,
        "url": (target.url if target is not None else None) if referenced else item.url,
        "referenceCollection": item.reference_collection if referenced else None,
        "referenceId": item.reference_id if referenced else None,
        "target": present_target(target),
        "missing": node.missing,
        "parentId": item.parent_id,
        "sortOrder": item.sort_order,
        "children": [present_item(child) for child in node.children],
    }


def present_menu_detail(menu: Menu, tree: list[ResolvedItem]) -> MenuDetailOut:
    return {**present_menu(menu), "items": [present_item(node) for node in tree]}
