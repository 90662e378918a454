"""The schema builder's field pages: a collection's fields in order (reordered in one request), the field form with
the options of each type, and the confirm steps before anything destroys or converts stored values.

A type change is shown first ("converts the values of N entries") and sent only once confirmed; a change the stored
values cannot take is refused by the service inside its transaction, and its message (with the entries it names) is
shown on the form, which keeps what was typed."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponseNotAllowed
from django.shortcuts import redirect

from apps.content import overviews
from apps.core.errors import CmsError
from apps.schema import selectors, services
from apps.studio import schema_forms as forms
from apps.studio.access import studio_page
from apps.studio.rendering import render_studio
from apps.studio.views.schema import SECTION, admin_only


def _collection(request, slug: str):
    return selectors.collection_read(actor=request.actor, slug=slug, with_fields=True)


@studio_page
def collection_page(request, collection: str):
    admin_only(request)
    target = _collection(request, collection)
    fields = list(target.fields.all())
    count = overviews.entry_counts(actor=request.actor).get(target.pk, 0)
    context = {"collection": target, "fields": fields, "entries": count}
    return render_studio(request, "studio/schema/collection.html", context, section=SECTION)


@studio_page
def fields_reorder(request, collection: str):
    """The whole order in one request. Without JavaScript a Move up/down button posts the order shown plus the move,
    applied here to the list the page sent; with it, the page sends the order it rearranged."""
    admin_only(request)
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    target = _collection(request, collection)
    order = request.POST.getlist("order")
    move = request.POST.get("move", "")
    if move:
        slug, _, direction = move.rpartition(":")
        if slug in order:
            index = order.index(slug)
            other = index - 1 if direction == "up" else index + 1
            if 0 <= other < len(order):
                order[index], order[other] = order[other], order[index]
    services.fields_reorder(actor=request.actor, collection=target, field_slugs=order)
    messages.success(request, "Saved the order of the fields.")
    response = redirect("studio:schema-collection", target.slug)
    if move:
        response["Location"] += f"#move-{move.replace(':', '-')}"
    return response


def _field_form(request, target, form: forms.FieldForm, *, field=None, status=200):
    context = {
        "collection": target,
        "field": field,
        "form": form,
        "types": forms.type_choices(),
        "slug_rules": forms.slug_rules(),
        "taken": [item.slug for item in target.fields.all()],
        "targets": selectors.collection_list(actor=request.actor),
    }
    return render_studio(request, "studio/schema/field_form.html", context, section=SECTION, status=status)


def _refused(request, target, exc: CmsError, values, *, field=None):
    errors, others = forms.split_errors(exc, forms.field_control_names())
    form = forms.FieldForm(values=values, errors=errors, message=exc.message, others=others)
    return _field_form(request, target, form, field=field, status=exc.status)


@studio_page
def field_new(request, collection: str):
    admin_only(request)
    target = _collection(request, collection)
    if request.method != "POST":
        return _field_form(request, target, forms.FieldForm(values={"type": "string", "translatable": True}))
    definition, values, problems = forms.read_field_form(request.POST, creating=True)
    if problems:
        form = forms.FieldForm(values=values, errors=problems, message="Some values could not be read.")
        return _field_form(request, target, form, status=400)
    try:
        field = services.field_create(actor=request.actor, collection=target, definition=definition)
    except CmsError as exc:
        return _refused(request, target, exc, values)
    messages.success(request, f"Added the field {field.label}.")
    return redirect("studio:schema-collection", target.slug)


@studio_page
def field_edit(request, collection: str, field: str):
    admin_only(request)
    target = _collection(request, collection)
    current = selectors.field_get(collection=target, slug=field)
    if request.method != "POST":
        return _field_form(
            request, target, forms.FieldForm(values=forms.field_values(current)), field=current
        )
    definition, values, problems = forms.read_field_form(request.POST, creating=False)
    values["slug"] = current.slug
    if problems:
        form = forms.FieldForm(values=values, errors=problems, message="Some values could not be read.")
        return _field_form(request, target, form, field=current, status=400)
    if definition["type"] != current.type and request.POST.get("confirmed") != "yes":
        holding = overviews.entries_holding(actor=request.actor, collection=target, key=current.slug)
        context = {
            "collection": target,
            "field": current,
            "new_type": definition["type"],
            "entries": holding,
            "posted": [
                (name, value)
                for name, items in request.POST.lists()
                if name not in ("csrfmiddlewaretoken", "confirmed")
                for value in items
            ],
        }
        return render_studio(request, "studio/schema/field_type_confirm.html", context, section=SECTION)
    try:
        services.field_update(actor=request.actor, field=current, changes=definition)
    except CmsError as exc:
        return _refused(request, target, exc, values, field=current)
    messages.success(request, f"Saved the field {definition['label'] or current.slug}.")
    return redirect("studio:schema-collection", target.slug)


@studio_page
def field_remove(request, collection: str, field: str):
    admin_only(request)
    target = _collection(request, collection)
    current = selectors.field_get(collection=target, slug=field)
    if request.method == "POST":
        services.field_delete(actor=request.actor, field=current)
        messages.success(request, f"Removed the field {current.label} and its data.")
        return redirect("studio:schema-collection", target.slug)
    holding = overviews.entries_holding(actor=request.actor, collection=target, key=current.slug)
    context = {"collection": target, "field": current, "entries": holding}
    return render_studio(request, "studio/schema/field_remove.html", context, section=SECTION)
