"""Menus: the list (create), and a menu's editor: rename, delete, add an item pointing at an entry, a term or a URL,
delete an item, and order the items.

Ordering has two paths into the same service call (``menu_reorder`` with every item's parent and position, all or
nothing): without JavaScript each Move up / Move down / Indent / Outdent button posts here and the page comes back
reordered; with apps/studio/static/studio/menu-editor.js the moves happen in place and "Save order" posts the whole
tree once, as JSON in the REST reorder's shape (``{"items": [{id, parentId, sortOrder}]}``)."""

from __future__ import annotations

import orjson
from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from apps.accounts.permissions import authorize, can
from apps.core import shapes
from apps.core.errors import CmsError, ValidationError
from apps.menus import selectors, services
from apps.menus.inputs import MenuCreateIn, MenuItemIn, MenuUpdateIn, ReorderIn, item_values
from apps.menus.presenters import present_menu_detail
from apps.menus.selectors import EntryTarget
from apps.schema.selectors import collections_for_read
from apps.studio import menu_tree
from apps.studio.access import studio_page
from apps.studio.rendering import render_studio
from apps.taxonomy import selectors as taxonomy_selectors

SECTION = "menus"
KIND_NAMES = {"content": "Entry", "taxonomy": "Term", "custom": "Link"}


def _errors(exc: CmsError) -> dict[str, str]:
    details = exc.details if isinstance(exc.details, dict) else {}
    return {key: str(message) for key, message in details.items()} or {"form": exc.message}


def _form_error(exc: CmsError) -> dict[str, str]:
    """A refusal is the error page; a form's problem comes back next to its fields."""
    if exc.status not in (400, 409):
        raise exc
    return _errors(exc)


# --- the list ---------------------------------------------------------------------------------------------------------


@studio_page
def menu_list_page(request):
    values, errors, status = {}, {}, 200
    if request.method == "POST":
        values = {"name": request.POST.get("name", "").strip(), "label": request.POST.get("label", "")}
        try:
            body = shapes.validate(MenuCreateIn, values).model_dump()
            menu = services.menu_create(actor=request.actor, **body)
        except CmsError as exc:
            errors, status = _form_error(exc), exc.status
        else:
            messages.success(request, f"Created the menu “{menu.label}”.")
            return redirect("studio:menu", menu.name)
    return render_studio(
        request,
        "studio/menus/list.html",
        {
            "menus": selectors.menu_list(actor=request.actor),
            "may_write": can(request.actor, "menus.write"),
            "values": values,
            "errors": errors,
        },
        section=SECTION,
        status=status,
    )


# --- the editor -------------------------------------------------------------------------------------------------------


def _rows(tree, forest, root=None, depth: int = 1) -> list[dict]:
    """The items as the template nests them: each with its label, what it points at, a badge and its moves (which
    depend on the whole tree, ``root``)."""
    root = forest if root is None else root
    rows = []
    for node, shaped in zip(tree, forest, strict=True):
        item, target = node.item, node.target
        shown = target.title if isinstance(target, EntryTarget) else target.label if target else ""
        label = item.label or shown or item.url or "(no label)"
        if item.type == "custom":
            points_at = item.url
        elif target is None:
            points_at = f"{item.reference_collection} · {item.reference_id}"
        elif isinstance(target, EntryTarget):
            points_at = f"{target.title} ({target.collection})"
        else:
            points_at = f"{target.label} ({target.taxonomy})"
        badge = None
        if item.type != "custom":
            if target is None:
                badge = ("trashed", "missing")
            elif isinstance(target, EntryTarget) and target.trashed:
                badge = ("trashed", "trashed")
            elif isinstance(target, EntryTarget) and target.status != "published":
                badge = ("draft", target.status)
        rows.append(
            {
                "id": item.pk,
                "label": label,
                "kind": KIND_NAMES.get(item.type, item.type),
                "points_at": points_at,
                "badge": badge,
                "depth": depth,
                "moves": menu_tree.possible(root, item.pk),
                "children": _rows(node.children, shaped.children, root, depth + 1),
            }
        )
    return rows


def _term_choices(actor) -> list[dict]:
    """Every term of every taxonomy, grouped by taxonomy (one read per taxonomy)."""
    groups = []
    for taxonomy in taxonomy_selectors.taxonomy_list(actor=actor):
        terms = taxonomy_selectors.taxonomy_terms(actor=actor, taxonomy=taxonomy.name)
        if terms:
            groups.append(
                {
                    "label": taxonomy.label,
                    "terms": [{"value": f"{taxonomy.name}:{term.pk}", "label": term.label} for term in terms],
                }
            )
    return groups


def _editor(request, name: str, *, kind: str = "", values=None, errors=None, status: int = 200):
    menu, tree = selectors.menu_read(actor=request.actor, name=name)
    forest = menu_tree.shape(tree)
    may_write = can(request.actor, "menus.write")
    return render_studio(
        request,
        "studio/menus/editor.html",
        {
            "menu": menu,
            "rows": _rows(tree, forest),
            "may_write": may_write,
            "collections": collections_for_read() if may_write else [],
            "term_groups": _term_choices(request.actor) if may_write else [],
            "kind": kind,
            "values": values or {},
            "errors": errors or {},
        },
        section=SECTION,
        status=status,
    )


@studio_page
def menu_page(request, name: str):
    return _editor(request, name)


@studio_page
@require_POST
def menu_rename(request, name: str):
    menu = selectors.menu_get(name=name)
    values = {"label": request.POST.get("label", "")}
    try:
        services.menu_update(
            actor=request.actor, menu=menu, label=shapes.validate(MenuUpdateIn, values).label
        )
    except CmsError as exc:
        return _editor(
            request, name, kind="rename", values=values, errors=_form_error(exc), status=exc.status
        )
    messages.success(request, f"Renamed the menu “{menu.label}”.")
    return redirect("studio:menu", name)


@studio_page
def menu_delete(request, name: str):
    menu, tree = selectors.menu_read(actor=request.actor, name=name)
    authorize(request.actor, "menus.write")
    if request.method == "POST":
        services.menu_delete(actor=request.actor, menu=menu)
        messages.success(request, f"Deleted the menu “{menu.label}”.")
        return redirect("studio:menus")
    count = len(menu_tree.positions(menu_tree.shape(tree)))
    return render_studio(request, "studio/menus/delete.html", {"menu": menu, "count": count}, section=SECTION)


def _item_body(post) -> dict:
    kind = post.get("type", "")
    body = {"type": kind, "label": post.get("label", "")}
    if kind == "custom":
        body["url"] = post.get("url", "").strip()
    elif kind == "content":
        body["referenceCollection"] = post.get("collection", "")
        body["referenceId"] = post.get("entry", "").strip().upper()
    elif kind == "taxonomy":
        taxonomy, _, term = post.get("term", "").partition(":")
        if not term:
            raise ValidationError(details={"referenceId": "Choose a term."})
        body["referenceCollection"], body["referenceId"] = taxonomy, term
    return item_values(shapes.validate(MenuItemIn, body).model_dump(exclude_unset=True))


@studio_page
@require_POST
def menu_item_add(request, name: str):
    menu = selectors.menu_get(name=name)
    try:
        item = services.menu_item_create(actor=request.actor, menu=menu, values=_item_body(request.POST))
    except CmsError as exc:
        kind = request.POST.get("type", "")
        return _editor(
            request, name, kind=kind, values=request.POST, errors=_form_error(exc), status=exc.status
        )
    shown = selectors.item_as_seen(actor=request.actor, item=item)
    label = item.label or getattr(shown.target, "title", None) or getattr(shown.target, "label", "")
    messages.success(request, f"Added “{label}” to the menu.")
    return redirect("studio:menu", name)


@studio_page
@require_POST
def menu_item_delete(request, name: str, item_id: str):
    menu = selectors.menu_get(name=name)
    item = selectors.menu_item_get(menu=menu, item_id=item_id)
    services.menu_item_delete(actor=request.actor, item=item)
    messages.success(request, "Removed the item; its sub-items moved up.")
    return redirect("studio:menu", name)


@studio_page
@require_POST
def menu_item_move(request, name: str):
    """One keyboard move without JavaScript: the whole resulting order goes to the service in one call."""
    menu, tree = selectors.menu_read(actor=request.actor, name=name)
    how, item_id = request.POST.get("move", ""), request.POST.get("item", "")
    if how not in menu_tree.MOVES:
        raise ValidationError(details={"move": f"One of: {', '.join(menu_tree.MOVES)}."})
    forest = menu_tree.shape(tree)
    selectors.menu_item_get(menu=menu, item_id=item_id)
    if menu_tree.move(forest, item_id, how):
        services.menu_reorder(actor=request.actor, menu=menu, items=menu_tree.positions(forest))
        messages.success(request, "Moved.")
    else:
        messages.info(request, "That item cannot move that way.")
    return redirect(f"{reverse('studio:menu', args=[name])}#item-{item_id}")


def _json(payload, status: int = 200) -> HttpResponse:
    return HttpResponse(orjson.dumps(payload), status=status, content_type="application/json")


@studio_page
@require_POST
def menu_order(request, name: str):
    """The whole order from menu-editor.js in one request: ``{"items": [{id, parentId, sortOrder}]}`` (JSON, the REST
    reorder's body), answered with the menu as REST shows it."""
    try:
        menu = selectors.menu_get(name=name)
        try:
            data = orjson.loads(request.body or b"null")
        except orjson.JSONDecodeError:
            raise ValidationError("The body must be JSON.", details={"body": "Expected JSON."}) from None
        body = shapes.validate(ReorderIn, data)
        changes = [
            {"id": item.id, "parent_id": item.parentId, "sort_order": item.sortOrder} for item in body.items
        ]
        services.menu_reorder(actor=request.actor, menu=menu, items=changes)
        detail = present_menu_detail(*selectors.menu_as_seen(actor=request.actor, menu=menu))
    except CmsError as exc:
        return _json({"error": exc.as_dict()}, status=exc.status)
    return _json({"data": detail})
