"""MCP tools for navigation menus (SPEC §4.11): the menu selectors and services, the menu shapes."""

from __future__ import annotations

from apps.core.presenters import SUCCESS, SuccessFlagOut
from apps.mcp.registry import tool
from apps.menus import selectors, services
from apps.menus.inputs import MenuChangeIn, MenuCreateIn, MenuNameIn, MenuSetItemsIn, NoArguments, item_values
from apps.menus.presenters import (
    MenuDetailOut,
    MenuListOut,
    MenuOut,
    present_menu,
    present_menu_detail,
    present_menus,
)


@tool(
    "menu_list",
    title="List menus",
    operation="menus.read",
    input=NoArguments,
    read_only=True,
    output=MenuListOut,
)
def menu_list(actor, args: NoArguments) -> MenuListOut:
    """List the navigation menus: name, label and timestamps.

    Returns {items, nextCursor} (all at once; nextCursor is always null). menu_get gives a menu's items.
    """
    return present_menus(selectors.menu_list(actor=actor))


@tool(
    "menu_get",
    title="Get a menu with its items",
    operation="menus.read",
    input=MenuNameIn,
    read_only=True,
    output=MenuDetailOut,
)
def menu_get(actor, args: MenuNameIn) -> MenuDetailOut:
    """Get a menu with its items in order, nested: each item has type (custom, content, taxonomy), label, url
    (custom items), referenceCollection and referenceId, target (content: {collection, id, slug, title, status,
    trashed, url}; taxonomy: {taxonomy, id, slug, label, url}; null when gone), missing (target gone, unpublished or
    trashed) and children.
    """
    return present_menu_detail(*selectors.menu_read(actor=actor, name=args.name))


@tool("menu_create", title="Create a menu", operation="menus.write", input=MenuCreateIn, output=MenuOut)
def menu_create(actor, args: MenuCreateIn) -> MenuOut:
    """Create an empty navigation menu; fill it with menu_set_items. A taken name is [DUPLICATE_SLUG]."""
    return present_menu(services.menu_create(actor=actor, name=args.name, label=args.label))


@tool("menu_update", title="Rename a menu", operation="menus.write", input=MenuChangeIn, output=MenuOut)
def menu_update(actor, args: MenuChangeIn) -> MenuOut:
    """Change a menu's label; its name is what themes ask for and cannot change (create another menu instead).
    menu_set_items changes its items. Returns the menu."""
    return present_menu(
        services.menu_update(actor=actor, menu=selectors.menu_get(name=args.name), label=args.label)
    )


@tool(
    "menu_delete",
    title="Delete a menu",
    operation="menus.write",
    input=MenuNameIn,
    destructive=True,
    output=SuccessFlagOut,
)
def menu_delete(actor, args: MenuNameIn) -> SuccessFlagOut:
    """Delete a menu with all its items; themes asking for its name then find none. Irreversible. Returns
    {success: true}."""
    services.menu_delete(actor=actor, menu=selectors.menu_get(name=args.name))
    return SUCCESS


@tool(
    "menu_set_items",
    title="Replace a menu's items",
    operation="menus.write",
    input=MenuSetItemsIn,
    destructive=True,
    idempotent=True,
    output=MenuDetailOut,
)
def menu_set_items(actor, args: MenuSetItemsIn) -> MenuDetailOut:
    """Replace all items of a menu with the given tree, in order. Targets are checked (the entry or term must
    exist, URLs must be safe); if any item is invalid nothing changes and each problem is named by its path.

    Returns the menu with its items as menu_get shows them.
    """
    menu = services.menu_items_replace(
        actor=actor,
        menu=selectors.menu_get(name=args.name),
        items=[item_values(item) for item in args.values()["items"]],
    )
    return present_menu_detail(*selectors.menu_as_seen(actor=actor, menu=menu))
