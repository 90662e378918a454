"""Widget areas and their widgets: every area with its widgets in order (create and delete areas, change an area's
label), a widget's form (type, title, rich-text content) for adding and editing, its delete confirmation, and the
order.

Ordering has two paths into the same service call (``widgets_reorder`` with the area's whole order): without
JavaScript each Move up / Move down button posts here and the page comes back reordered; with
apps/studio/static/studio/widget-order.js the moves happen in place and "Save order" posts the order once, as JSON in
the REST reorder's shape (``{"widgetIds": [...]}``)."""

from __future__ import annotations

import orjson
from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from apps.accounts.permissions import authorize, can
from apps.core import portabletext, shapes
from apps.core.errors import CmsError, ValidationError
from apps.site import selectors, services
from apps.site.inputs import WidgetAreaIn, WidgetAreaUpdateIn, WidgetIn, WidgetReorderIn, WidgetUpdateIn
from apps.site.presenters import present_widget_area
from apps.studio.access import studio_page
from apps.studio.rendering import render_studio
from apps.studio.site_forms import form_errors, portable_text_from, portable_text_shown

SECTION = "widgets"
AREA_FIELDS = ("name", "label", "description")
WIDGET_FIELDS = ("type", "title", "content")
# Names front ends commonly give widgets, offered as suggestions: the service takes any type name, and every type
# keeps its content as Portable Text (what a type shows beyond that is the front end's choice).
SUGGESTED_TYPES = (
    ("content", "Rich text"),
    ("menu", "A menu"),
    ("recent-posts", "Recent posts"),
    ("search", "Search box"),
)


def _areas_page(request, *, values=None, errors=None, status: int = 200):
    areas = [
        {
            "area": area,
            "widgets": [
                {"widget": widget, "text": portabletext.plain_text(widget.content)}
                for widget in area.widgets.all()
            ],
        }
        for area in selectors.widget_area_list(actor=request.actor)
    ]
    return render_studio(
        request,
        "studio/widgets/areas.html",
        {
            "areas": areas,
            "may_write": can(request.actor, "widgets.write"),
            "values": values or {},
            "errors": errors or {},
        },
        section=SECTION,
        status=status,
    )


@studio_page
def widget_areas_page(request):
    if request.method != "POST":
        return _areas_page(request)
    values = {key: request.POST.get(key, "") for key in AREA_FIELDS}
    values["name"] = values["name"].strip()
    try:
        body = shapes.validate(WidgetAreaIn, values).model_dump()
        area = services.widget_area_create(actor=request.actor, **body)
    except CmsError as exc:
        return _areas_page(request, values=values, errors=form_errors(exc, AREA_FIELDS), status=exc.status)
    messages.success(request, f"Created the widget area “{area.label}”.")
    return redirect(f"{reverse('studio:widgets')}#area-{area.name}")


@studio_page
def widget_area_edit(request, name: str):
    area = selectors.widget_area_read(actor=request.actor, name=name)
    authorize(request.actor, "widgets.write")
    values = {"label": area.label, "description": area.description}
    errors, status = {}, 200
    if request.method == "POST":
        values = {key: request.POST.get(key, "") for key in ("label", "description")}
        try:
            changes = shapes.validate(WidgetAreaUpdateIn, values).model_dump(exclude_unset=True)
            services.widget_area_update(actor=request.actor, area=area, changes=changes)
        except CmsError as exc:
            errors, status = form_errors(exc, AREA_FIELDS), exc.status
        else:
            messages.success(request, f"Saved the widget area “{area.label}”.")
            return redirect(f"{reverse('studio:widgets')}#area-{area.name}")
    return render_studio(
        request,
        "studio/widgets/area_form.html",
        {"area": area, "values": values, "errors": errors},
        section=SECTION,
        status=status,
    )


@studio_page
def widget_area_delete(request, name: str):
    area = selectors.widget_area_read(actor=request.actor, name=name)
    authorize(request.actor, "widgets.write")
    if request.method == "POST":
        services.widget_area_delete(actor=request.actor, area=area)
        messages.success(request, f"Deleted the widget area “{area.label}”.")
        return redirect("studio:widgets")
    count = len(area.widgets.all())
    effect = (
        f"Its {count} widget{'s go' if count != 1 else ' goes'} with it." if count else "It has no widgets."
    )
    return render_studio(
        request,
        "studio/widgets/confirm.html",
        {
            "title": f"Delete the widget area {area.label}?",
            "effect": f"{effect} Themes asking for “{area.name}” find no area afterwards.",
            "button": f"Delete {area.label}",
            "back": f"{reverse('studio:widgets')}#area-{area.name}",
        },
        section=SECTION,
    )


# --- a widget's form --------------------------------------------------------------------------------------------------


def _widget_form(request, area, *, widget=None, values, errors=None, status: int = 200):
    return render_studio(
        request,
        "studio/widgets/widget_form.html",
        {
            "area": area,
            "widget": widget,
            "values": values,
            "errors": errors or {},
            "types": SUGGESTED_TYPES,
            "back": f"{reverse('studio:widgets')}#area-{area.name}",
        },
        section=SECTION,
        status=status,
    )


def _posted_widget(post) -> dict:
    return {key: post.get(key, "") for key in WIDGET_FIELDS}


def _widget_body(values: dict, model) -> dict:
    body = {
        "type": values["type"].strip(),
        "title": values["title"],
        "content": portable_text_from(values["content"]),
    }
    return shapes.validate(model, body).model_dump(exclude_unset=True)


@studio_page
def widget_new(request, name: str):
    area = selectors.widget_area_read(actor=request.actor, name=name)
    authorize(request.actor, "widgets.write")
    if request.method != "POST":
        values = {"type": request.GET.get("type", "content"), "title": "", "content": "[]"}
        return _widget_form(request, area, values=values)
    values = _posted_widget(request.POST)
    try:
        body = _widget_body(values, WidgetIn)
        widget = services.widget_create(actor=request.actor, area=area, **body)
    except CmsError as exc:
        errors = form_errors(exc, WIDGET_FIELDS)
        return _widget_form(request, area, values=values, errors=errors, status=exc.status)
    messages.success(request, f"Added “{widget}” to {area.label}.")
    return redirect(f"{reverse('studio:widgets')}#widget-{widget.pk}")


@studio_page
def widget_edit(request, name: str, widget_id: str):
    area = selectors.widget_area_read(actor=request.actor, name=name)
    widget = selectors.widget_get(area=area, widget_id=widget_id)
    authorize(request.actor, "widgets.write")
    if request.method != "POST":
        values = {
            "type": widget.type,
            "title": widget.title,
            "content": portable_text_shown(widget.content),
        }
        return _widget_form(request, area, widget=widget, values=values)
    values = _posted_widget(request.POST)
    try:
        changes = _widget_body(values, WidgetUpdateIn)
        widget = services.widget_update(actor=request.actor, widget=widget, changes=changes)
    except CmsError as exc:
        errors = form_errors(exc, WIDGET_FIELDS)
        return _widget_form(request, area, widget=widget, values=values, errors=errors, status=exc.status)
    messages.success(request, f"Saved “{widget}”.")
    return redirect(f"{reverse('studio:widgets')}#widget-{widget.pk}")


@studio_page
def widget_delete(request, name: str, widget_id: str):
    area = selectors.widget_area_read(actor=request.actor, name=name)
    widget = selectors.widget_get(area=area, widget_id=widget_id)
    authorize(request.actor, "widgets.write")
    if request.method == "POST":
        services.widget_delete(actor=request.actor, widget=widget)
        messages.success(request, f"Deleted “{widget}” from {area.label}.")
        return redirect(f"{reverse('studio:widgets')}#area-{area.name}")
    return render_studio(
        request,
        "studio/widgets/confirm.html",
        {
            "title": f"Delete the widget {widget}?",
            "effect": f"It leaves the area {area.label}; the other widgets keep their order.",
            "button": f"Delete {widget}",
            "back": f"{reverse('studio:widgets')}#widget-{widget.pk}",
        },
        section=SECTION,
    )


# --- the order --------------------------------------------------------------------------------------------------------


@studio_page
@require_POST
def widget_move(request, name: str):
    """One Move up / Move down without JavaScript: the area's whole resulting order goes to the service at once."""
    area = selectors.widget_area_read(actor=request.actor, name=name)
    how, widget_id = request.POST.get("move", ""), request.POST.get("widget", "")
    if how not in ("up", "down"):
        raise ValidationError(details={"move": "One of: up, down."})
    order = [widget.pk for widget in area.widgets.all()]
    selectors.widget_get(area=area, widget_id=widget_id)
    index = order.index(widget_id)
    other = index - 1 if how == "up" else index + 1
    if 0 <= other < len(order):
        order[index], order[other] = order[other], order[index]
        services.widgets_reorder(actor=request.actor, area=area, widget_ids=order)
        messages.success(request, "Moved.")
    else:
        messages.info(request, "That widget cannot move that way.")
    return redirect(f"{reverse('studio:widgets')}#widget-{widget_id}")


def _json(payload, status: int = 200) -> HttpResponse:
    return HttpResponse(orjson.dumps(payload), status=status, content_type="application/json")


@studio_page
@require_POST
def widget_order(request, name: str):
    """The area's order from widget-order.js in one request: ``{"widgetIds": [...]}`` (the REST reorder's body),
    answered with the area as REST shows it."""
    try:
        area = selectors.widget_area_read(actor=request.actor, name=name)
        try:
            data = orjson.loads(request.body or b"null")
        except orjson.JSONDecodeError:
            raise ValidationError("The body must be JSON.", details={"body": "Expected JSON."}) from None
        body = shapes.validate(WidgetReorderIn, data)
        services.widgets_reorder(actor=request.actor, area=area, widget_ids=body.widgetIds)
        shown = present_widget_area(selectors.widget_area_get(name=name))
    except CmsError as exc:
        return _json({"error": exc.as_dict()}, status=exc.status)
    return _json({"data": shown})
