"""``/_cms/api/menus…`` (SPEC §4.8): menus, their items, and reordering."""

from __future__ import annotations

from apps.accounts.permissions import actor_from_request
from apps.core.api.views import CmsViewSet, endpoint, ok
from apps.core.httpcache import NOT_MODIFIED, small_answer
from apps.core.presenters import SUCCESS, SuccessFlagOut
from apps.menus import selectors, services
from apps.menus.inputs import MenuCreateIn, MenuItemIn, MenuItemUpdateIn, MenuUpdateIn, ReorderIn, item_values
from apps.menus.presenters import (
    MenuDetailOut,
    MenuItemOut,
    MenuListOut,
    MenuOut,
    present_item,
    present_menu,
    present_menu_detail,
    present_menus,
)


def _detail(request, name: str) -> MenuDetailOut:
    return present_menu_detail(*selectors.menu_read(actor=actor_from_request(request), name=name))


def _one_item(request, item) -> MenuItemOut:
    return present_item(selectors.item_as_seen(actor=actor_from_request(request), item=item))


class MenuViewSet(CmsViewSet):
    @endpoint("menus.read", bodiless=NOT_MODIFIED, response=MenuListOut, summary="List menus")
    def list(self, request):
        actor = actor_from_request(request)
        menus = present_menus(selectors.menu_list(actor=actor))
        return small_answer(request, menus, public=actor.anonymous, keys=("menus",))

    @endpoint(
        "menus.write", body=MenuCreateIn, response=MenuOut, status=201, errors=(409,), summary="Create a menu"
    )
    def create(self, request):
        menu = services.menu_create(actor=actor_from_request(request), **self.body)
        return ok(present_menu(menu), status=201)

    @endpoint(
        "menus.read",
        bodiless=NOT_MODIFIED,
        response=MenuDetailOut,
        summary="Get a menu with its items, ordered and nested",
    )
    def retrieve(self, request, name: str):
        public = actor_from_request(request).anonymous
        return small_answer(request, _detail(request, name), public=public, keys=("menus", f"menu:{name}"))

    @endpoint("menus.write", body=MenuUpdateIn, response=MenuOut, summary="Rename a menu's label")
    def update(self, request, name: str):
        menu = services.menu_update(
            actor=actor_from_request(request),
            menu=selectors.menu_get(name=name),
            label=self.body.get("label"),
        )
        return ok(present_menu(menu))

    @endpoint("menus.write", body=MenuUpdateIn, response=MenuOut, summary="Rename a menu's label (as PUT)")
    def partial_update(self, request, name: str):
        return self.update(request, name)

    @endpoint("menus.write", response=SuccessFlagOut, summary="Delete a menu and its items")
    def destroy(self, request, name: str):
        services.menu_delete(actor=actor_from_request(request), menu=selectors.menu_get(name=name))
        return ok(SUCCESS)

    @endpoint("menus.write", body=ReorderIn, response=MenuDetailOut, summary="Move and reorder items")
    def reorder(self, request, name: str):
        """Every listed item gets its parentId and sortOrder. Ids must be items of this menu; a result in which an
        item would be inside itself is refused and nothing changes."""
        changes = [
            {"id": item["id"], "parent_id": item["parentId"], "sort_order": item["sortOrder"]}
            for item in self.body["items"]
        ]
        services.menu_reorder(
            actor=actor_from_request(request), menu=selectors.menu_get(name=name), items=changes
        )
        return ok(_detail(request, name))


class MenuItemViewSet(CmsViewSet):
    @endpoint("menus.write", body=MenuItemIn, response=MenuItemOut, status=201, summary="Add a menu item")
    def create(self, request, name: str):
        """``custom`` items need ``url`` and ``label``; ``content`` items ``referenceCollection`` (collection slug)
        and ``referenceId`` (entry id); ``taxonomy`` items a taxonomy name and a term id."""
        item = services.menu_item_create(
            actor=actor_from_request(request),
            menu=selectors.menu_get(name=name),
            values=item_values(self.body),
        )
        return ok(_one_item(request, item), status=201)

    @endpoint("menus.write", body=MenuItemUpdateIn, response=MenuItemOut, summary="Update a menu item")
    def update(self, request, name: str, pk: str):
        menu = selectors.menu_get(name=name)
        item = services.menu_item_update(
            actor=actor_from_request(request),
            item=selectors.menu_item_get(menu=menu, item_id=pk),
            changes=item_values(self.body),
        )
        return ok(_one_item(request, item))

    @endpoint(
        "menus.write", body=MenuItemUpdateIn, response=MenuItemOut, summary="Update a menu item (as PUT)"
    )
    def partial_update(self, request, name: str, pk: str):
        return self.update(request, name, pk)

    @endpoint("menus.write", response=SuccessFlagOut, summary="Delete a menu item")
    def destroy(self, request, name: str, pk: str):
        """Its children move up to its parent."""
        menu = selectors.menu_get(name=name)
        services.menu_item_delete(
            actor=actor_from_request(request), item=selectors.menu_item_get(menu=menu, item_id=pk)
        )
        return ok(SUCCESS)
