"""Django admin for menus and their items. A menu's page lists its items in menu order (children indented under their
parent); items are added and changed on their own pages, through the menu services (references and cycles are checked
as on the API)."""

from __future__ import annotations

from collections import defaultdict

from django.contrib import admin
from django.contrib.admin.views.main import ChangeList
from django.utils.html import format_html_join

from apps.accounts.permissions import Actor
from apps.core.admin import ServiceAdminMixin, ServiceForm
from apps.menus import selectors, services
from apps.menus.models import Menu, MenuItem


def menu_order(items: list[MenuItem]) -> list[MenuItem]:
    """Items depth-first in menu order with ``tree_depth`` set; an item whose parent is not listed counts as a root."""
    present = {item.pk for item in items}
    children: dict[tuple, list[MenuItem]] = defaultdict(list)
    for item in items:
        parent = item.parent_id if item.parent_id in present else None
        children[(item.menu_id, parent)].append(item)
    ordered: list[MenuItem] = []

    def walk(menu_id, parent, depth):
        for item in sorted(children.get((menu_id, parent), []), key=lambda i: (i.sort_order, i.created_at)):
            item.tree_depth = depth
            ordered.append(item)
            walk(menu_id, item.pk, depth + 1)

    for menu_id in sorted({item.menu_id for item in items}):
        walk(menu_id, None, 0)
    return ordered


class MenuForm(ServiceForm):
    class Meta:
        model = Menu
        fields = ("name", "label")

    def perform(self, data):
        actor = Actor.for_session(self.request.user)
        if not self.instance._state.adding:
            return services.menu_update(actor=actor, menu=self.instance, label=data["label"])
        return services.menu_create(actor=actor, name=data["name"], label=data["label"])


@admin.register(Menu)
class MenuAdmin(ServiceAdminMixin, admin.ModelAdmin):
    form = MenuForm
    list_display = ("name", "label", "updated_at")
    search_fields = ("name", "label")

    def get_readonly_fields(self, request, obj=None):
        return ("name", "items_in_order") if obj else ()

    def get_fields(self, request, obj=None):
        return ("name", "label", "items_in_order") if obj else ("name", "label")

    @admin.display(description="Items")
    def items_in_order(self, menu: Menu):
        items = menu_order(list(menu.items.all()))
        return format_html_join(
            "", "<div>{}{} <small>({})</small></div>", (("— " * i.tree_depth, str(i), i.type) for i in items)
        )

    def delete_with(self, request, obj):
        services.menu_delete(actor=Actor.for_session(request.user), menu=obj)


class MenuItemForm(ServiceForm):
    class Meta:
        model = MenuItem
        fields = (
            "menu",
            "type",
            "label",
            "url",
            "reference_collection",
            "reference_id",
            "parent",
            "sort_order",
        )

    def perform(self, data):
        actor = Actor.for_session(self.request.user)
        values = {
            name: data.get(name)
            for name in ("type", "label", "url", "reference_collection", "reference_id", "sort_order")
        }
        values["parent_id"] = data["parent"].pk if data.get("parent") else None
        if not self.instance._state.adding:
            return services.menu_item_update(actor=actor, item=self.instance, changes=values)
        return services.menu_item_create(actor=actor, menu=data["menu"], values=values)


class MenuOrderChangeList(ChangeList):
    def get_results(self, request):
        super().get_results(request)
        self.result_list = menu_order(list(self.result_list))
        # Each item's target by name (the entry's title, the term's label), resolved for the page at once.
        for node in selectors.resolve(self.result_list, drafts=True):
            node.item.resolved_target = node.target


@admin.register(MenuItem)
class MenuItemAdmin(ServiceAdminMixin, admin.ModelAdmin):
    form = MenuItemForm
    list_display = ("tree_label", "type", "menu", "sort_order", "target")
    list_filter = ("menu", "type")
    list_select_related = ("menu",)
    list_per_page = 500

    def get_changelist(self, request, **kwargs):
        return MenuOrderChangeList

    def get_readonly_fields(self, request, obj=None):
        return ("menu",) if obj else ()

    @admin.display(description="Item")
    def tree_label(self, item: MenuItem) -> str:
        target = getattr(item, "resolved_target", None)
        shown = item.label or (getattr(target, "title", None) or getattr(target, "label", None)) or str(item)
        return "— " * getattr(item, "tree_depth", 0) + shown

    @admin.display(description="Links to")
    def target(self, item: MenuItem) -> str:
        if item.url:
            return item.url
        target = getattr(item, "resolved_target", None)
        if target is None:
            return f"{item.reference_collection}/{item.reference_id} (missing)"
        name = getattr(target, "title", None) or target.label
        trashed = " (trashed)" if getattr(target, "trashed", False) else ""
        return f"{name} ({item.reference_collection}){trashed}"

    def delete_with(self, request, obj):
        services.menu_item_delete(actor=Actor.for_session(request.user), item=obj)
