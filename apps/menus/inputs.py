"""What each menu operation takes (SPEC §2.7, §4.8, §4.11): one model per operation, read by REST and MCP alike."""

from __future__ import annotations

from apps.core.shapes import Field, Input, Str, Text, choice
from apps.menus.models import ItemType

ItemTypeName = choice(*ItemType.values)


class NoArguments(Input):
    pass


class MenuNameIn(Input):
    name: Str = Field(max_length=63, description="The menu's name.")


class MenuCreateIn(Input):
    name: Str = Field(max_length=63, description="Identity, e.g. primary or footer-links; cannot change.")
    label: Str = Field(max_length=200)


class MenuUpdateIn(Input):
    label: Str = Field(max_length=200)


# pydantic orders inherited fields from the last base to the first: the name comes first.
class MenuChangeIn(MenuUpdateIn, MenuNameIn):
    """The tool's update: the name names the menu (it cannot change); the other keys are the REST PUT body."""


class MenuItemIn(Input):
    type: ItemTypeName = Field(description="custom: a url; content: an entry; taxonomy: a term.")
    label: Text = Field(
        None,
        max_length=200,
        description="Shown text; content and taxonomy items fall back to the entry's title or the term's label.",
    )
    url: Text = Field(
        None, max_length=2000, description="custom items only: a relative path or an http(s) URL."
    )
    referenceCollection: Text = Field(
        None, max_length=63, description="content: a collection slug; taxonomy: a name."
    )
    referenceId: Text = Field(None, max_length=26, description="content: an entry id; taxonomy: a term id.")
    parentId: Str | None = Field(None, max_length=26)
    sortOrder: int = Field(None, description="Position among siblings; last when omitted.")


class MenuItemUpdateIn(MenuItemIn):
    """Only the keys sent change; a change of type drops what belonged to the old one."""

    type: ItemTypeName = Field(None, description="custom: a url; content: an entry; taxonomy: a term.")


class ReorderItemIn(Input):
    id: Str = Field(max_length=26)
    parentId: Str | None = Field(max_length=26, description="null for a top-level item.")
    sortOrder: int


class ReorderIn(Input):
    items: list[ReorderItemIn] = Field(description="Items to move; items not listed keep their place.")


class MenuTreeItemIn(Input):
    type: ItemTypeName = Field(description="custom: a url; content: an entry; taxonomy: a term.")
    label: Text = Field(
        None,
        max_length=200,
        description="Shown text; content and taxonomy items default to their target's title.",
    )
    url: Text = Field(None, max_length=2000, description="custom items: a relative path or an http(s) URL.")
    referenceCollection: Text = Field(
        None, max_length=63, description="content: the collection slug; taxonomy: the taxonomy name."
    )
    referenceId: Text = Field(
        None, max_length=26, description="content: the entry id; taxonomy: the term id."
    )
    children: list[MenuTreeItemIn] = Field([], description="Nested items, in order.")


class MenuSetItemsIn(MenuNameIn):
    items: list[MenuTreeItemIn] = Field(
        description="The whole menu, top-level items in order, each with its children."
    )


ITEM_NAMES = {
    "referenceCollection": "reference_collection",
    "referenceId": "reference_id",
    "parentId": "parent_id",
    "sortOrder": "sort_order",
}


def item_values(values: dict) -> dict:
    """Wire names to the service's names, nested children included."""
    out = {ITEM_NAMES.get(key, key): value for key, value in values.items()}
    if "children" in out:
        out["children"] = [item_values(child) for child in out["children"]]
    return out
