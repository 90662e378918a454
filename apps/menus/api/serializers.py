"""Menu shapes on the wire (SPEC §2.7, §4.8), their presenters and OpenAPI documentation."""

from __future__ import annotations

from dataclasses import asdict

from drf_spectacular.utils import PolymorphicProxySerializer
from rest_framework import serializers

from apps.content.models import Status
from apps.core.timefmt import iso
from apps.menus.models import ItemType, Menu
from apps.menus.selectors import EntryTarget, ResolvedItem, TermTarget

# --- input -----------------------------------------------------------------------------------------------------------


class MenuIn(serializers.Serializer):
    name = serializers.CharField(max_length=63, help_text="Identity, e.g. primary or footer-links.")
    label = serializers.CharField(max_length=200)


class MenuUpdateIn(serializers.Serializer):
    label = serializers.CharField(max_length=200)


class MenuItemIn(serializers.Serializer):
    type = serializers.ChoiceField(choices=ItemType.values)
    label = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=200,
        help_text="Shown text; content and taxonomy items "
        "fall back to the entry's title or the term's label.",
    )
    url = serializers.CharField(
        required=False, allow_blank=True, max_length=2000, help_text="custom items only."
    )
    referenceCollection = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=63,
        help_text="content: a collection slug; taxonomy: a name.",
    )
    referenceId = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=26,
        help_text="content: an entry id; taxonomy: a term id.",
    )
    parentId = serializers.CharField(required=False, allow_null=True, max_length=26)
    sortOrder = serializers.IntegerField(
        required=False, help_text="Position among siblings; last when omitted."
    )


class MenuItemUpdateIn(MenuItemIn):
    """Only the keys sent change; a change of type drops what belonged to the old one."""

    type = serializers.ChoiceField(choices=ItemType.values, required=False)


class ReorderItemIn(serializers.Serializer):
    id = serializers.CharField(max_length=26)
    parentId = serializers.CharField(allow_null=True, max_length=26, help_text="null for a top-level item.")
    sortOrder = serializers.IntegerField()


class ReorderIn(serializers.Serializer):
    items = ReorderItemIn(many=True, help_text="Items to move; items not listed keep their place.")


# --- output ----------------------------------------------------------------------------------------------------------


class MenuOut(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField()
    label = serializers.CharField()
    createdAt = serializers.DateTimeField()
    updatedAt = serializers.DateTimeField()


class MenuListOut(serializers.Serializer):
    items = MenuOut(many=True)


class EntryTargetOut(serializers.Serializer):
    collection = serializers.CharField(help_text="The collection's slug.")
    id = serializers.CharField()
    slug = serializers.CharField(help_text="The entry's current slug.")
    title = serializers.CharField(
        help_text="The collection's title field (title, else name, else its first string or text field): the "
        "published version's for published entries, the working copy's otherwise; the slug when empty."
    )
    status = serializers.ChoiceField(choices=Status.choices)
    trashed = serializers.BooleanField(help_text="The entry is in the trash.")
    url = serializers.CharField(
        allow_null=True, help_text="The entry's public address; null until the site has URL patterns."
    )


class TermTargetOut(serializers.Serializer):
    taxonomy = serializers.CharField(help_text="The taxonomy's name.")
    id = serializers.CharField()
    slug = serializers.CharField(help_text="The term's current slug.")
    label = serializers.CharField(help_text="The term's name.")
    url = serializers.CharField(
        allow_null=True, help_text="The term's public address; null until the site has URL patterns."
    )


class MenuItemOut(serializers.Serializer):
    id = serializers.CharField()
    type = serializers.ChoiceField(choices=ItemType.values)
    label = serializers.CharField(
        allow_blank=True, help_text="The item's label, else its target's title or label."
    )
    url = serializers.CharField(allow_null=True, help_text="custom items: their address; others: null.")
    referenceCollection = serializers.CharField(allow_null=True)
    referenceId = serializers.CharField(allow_null=True)
    target = PolymorphicProxySerializer(
        component_name="MenuItemTarget",
        serializers=[EntryTargetOut, TermTargetOut],
        resource_type_field_name=None,
        allow_null=True,
        help_text="content items: the entry; taxonomy items: the term; null for custom items, for a target that "
        "no longer exists, and for an unpublished or trashed entry when the reader may not see drafts.",
    )
    missing = serializers.BooleanField(
        help_text="The target is not on the public site: deleted, in the trash or unpublished (entries), or "
        "deleted (terms). Always false for custom items."
    )
    parentId = serializers.CharField(allow_null=True)
    sortOrder = serializers.IntegerField()


# Nested: each item carries its children, ordered. Declared after the class so the field can name it.
MenuItemOut._declared_fields["children"] = MenuItemOut(many=True)


class MenuDetailOut(MenuOut):
    items = MenuItemOut(many=True, help_text="Top-level items in order, each with its children in order.")


def present_menu(menu: Menu) -> dict:
    return {
        "id": menu.pk,
        "name": menu.name,
        "label": menu.label,
        "createdAt": iso(menu.created_at),
        "updatedAt": iso(menu.updated_at),
    }


def present_target(target: EntryTarget | TermTarget | None) -> dict | None:
    if target is None:
        return None
    # URL patterns of the public site do not exist yet; the key is there so clients can rely on it.
    return {**asdict(target), "url": None}


def present_item(node: ResolvedItem) -> dict:
    item = node.item
    referenced = item.type != ItemType.CUSTOM
    target = node.target
    shown = target.title if isinstance(target, EntryTarget) else target.label if target is not None else ""
    return {
        "id": item.pk,
        "type": item.type,
        "label": item.label or shown,
        "url": None if referenced else item.url,
        "referenceCollection": item.reference_collection if referenced else None,
        "referenceId": item.reference_id if referenced else None,
        "target": present_target(target),
        "missing": node.missing,
        "parentId": item.parent_id,
        "sortOrder": item.sort_order,
        "children": [present_item(child) for child in node.children],
    }


def present_menu_detail(menu: Menu, tree: list[ResolvedItem]) -> dict:
    return {**present_menu(menu), "items": [present_item(node) for node in tree]}


ITEM_NAMES = {
    "referenceCollection": "reference_collection",
    "referenceId": "reference_id",
    "parentId": "parent_id",
    "sortOrder": "sort_order",
}


def item_values(body: dict) -> dict:
    return {ITEM_NAMES.get(key, key): value for key, value in body.items()}
