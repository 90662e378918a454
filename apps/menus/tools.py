"""MCP tools for navigation menus (SPEC §4.11), over the menu selectors and services and REST's presenters."""

from __future__ import annotations

from pydantic import Field

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


def _detail(menu) -> dict:
    return present_menu_detail(menu, selectors.menu_tree(menu=menu))


@tool("menu_get", title="Get a menu with its items", scope="content:read", input=MenuNameIn, read_only=True)
def menu_get(actor, args: MenuNameIn) -> dict:
    """Get a menu with its items in order, nested: each item has type (custom, content, taxonomy), label, url or
    its target (referenceCollection, referenceId, slug, title), missing (target gone or unpublished) and children.
    """
    return _detail(selectors.menu_get(name=args.name))


class MenuCreateIn(ToolInput):
    name: str = Field(pattern=NAME, max_length=63, description="Identifier, e.g. 'main'; cannot change.")
    label: str = Field(min_length=1, max_length=200)


@tool("menu_create", title="Create a menu", scope="content:write", input=MenuCreateIn)
def menu_create(actor, args: MenuCreateIn) -> dict:
    """Create an empty navigation menu; fill it with menu_set_items. A taken name is [DUPLICATE_SLUG]."""
    return present_menu(services.menu_create(actor=actor, name=args.name, label=args.label))
