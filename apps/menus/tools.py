"""MCP tools for navigation menus (SPEC §4.11), over the menu selectors and services and REST's presenters."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from apps.content.selectors import can_read_drafts
from apps.mcp.registry import ToolInput, tool
from apps.menus import selectors, services
from apps.menus.api.serializers import present_menu, present_menu_detail

NAME = r"^[a-z][a-z0-9_-]*$"


class Empty(ToolInput):
    pass


@tool("menu_list", title="List menus", scope="content:read", input=Empty, read_only=True)
def menu_list(actor, args: Empty) -> dict:
    """List the navigation menus: name, label and timestamps.

    Returns {items, nextCursor} (all at once; nextCursor is always null). menu_get gives a menu's items.
    """
    return {"items": [present_menu(menu) for menu in selectors.menu_list()], "nextCursor": None}


class MenuNameIn(ToolInput):
    name: str = Field(min_length=1, max_length=63, description="The menu's name.")


def _detail(menu, actor) -> dict:
    return present_menu_detail(menu, selectors.menu_tree(menu=menu, drafts=can_read_drafts(actor)))


@tool("menu_get", title="Get a menu with its items", scope="content:read", input=MenuNameIn, read_only=True)
def menu_get(actor, args: MenuNameIn) -> dict:
    """Get a menu with its items in order, nested: each item has type (custom, content, taxonomy), label, url
    (custom items), referenceCollection and referenceId, target (content: {collection, id, slug, title, status,
    trashed, url}; taxonomy: {taxonomy, id, slug, label, url}; null when gone), missing (target gone, unpublished or
    trashed) and children.
    """
    return _detail(selectors.menu_get(name=args.name), actor)


class MenuCreateIn(ToolInput):
    name: str = Field(pattern=NAME, max_length=63, description="Identifier, e.g. 'main'; cannot change.")
    label: str = Field(min_length=1, max_length=200)


@tool("menu_create", title="Create a menu", scope="content:write", input=MenuCreateIn)
def menu_create(actor, args: MenuCreateIn) -> dict:
    """Create an empty navigation menu; fill it with menu_set_items. A taken name is [DUPLICATE_SLUG]."""
    return present_menu(services.menu_create(actor=actor, name=args.name, label=args.label))


class MenuItemIn(ToolInput):
    type: Literal["custom", "content", "taxonomy"] = Field(
        description="custom: a url; content: an entry; taxonomy: a term."
    )
    label: str = Field(
        None,
        max_length=200,
        description="Shown text; content and taxonomy items default to their target's title.",
    )
    url: str = Field(None, max_length=2000, description="custom items: a relative path or an http(s) URL.")
    referenceCollection: str = Field(
        None, max_length=63, description="content: the collection slug; taxonomy: the taxonomy name."
    )
    referenceId: str = Field(None, max_length=26, description="content: the entry id; taxonomy: the term id.")
    children: list[MenuItemIn] = Field([], description="Nested items, in order.")


class MenuSetItemsIn(MenuNameIn):
    items: list[MenuItemIn] = Field(
        description="The whole menu, top-level items in order, each with its children."
    )


def _model_names(item: MenuItemIn) -> dict:
    return {
        "type": item.type,
        "label": item.label,
        "url": item.url,
        "reference_collection": item.referenceCollection,
        "reference_id": item.referenceId,
        "children": [_model_names(child) for child in item.children],
    }


@tool(
    "menu_set_items",
    title="Replace a menu's items",
    scope="content:write",
    input=MenuSetItemsIn,
    destructive=True,
    idempotent=True,
)
def menu_set_items(actor, args: MenuSetItemsIn) -> dict:
    """Replace all items of a menu with the given tree, in order. Targets are checked (the entry or term must
    exist, URLs must be safe); if any item is invalid nothing changes and each problem is named by its path.

    Returns the menu with its items as menu_get shows them.
    """
    menu = services.menu_items_replace(
        actor=actor,
        menu=selectors.menu_get(name=args.name),
        items=[_model_names(item) for item in args.items],
    )
    return _detail(menu, actor)
