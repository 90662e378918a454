"""Webhook endpoints under Administration (issue 22): the list, the form for creating and editing (URL, description,
event types, collection filter, payload mode, on/off), the new secret shown once after creating or rotating, the
deliveries with each attempt's answer, redelivery, and deletion.

Reads go through apps.webhooks.selectors, writes through apps.webhooks.services; the form is parsed with the REST
inputs, so the page refuses what ``/_cms/api/webhooks`` refuses, with the same messages next to the fields."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.shortcuts import redirect
from django.urls import reverse

from apps.accounts.permissions import authorize
from apps.core import shapes
from apps.core.errors import CmsError
from apps.schema.selectors import collections_for_read
from apps.studio.access import studio_page
from apps.studio.rendering import render_studio
from apps.studio.site_forms import form_errors
from apps.webhooks import selectors, services
from apps.webhooks.catalogue import EVENT_TYPES, GROUPS
from apps.webhooks.inputs import WebhookIn, WebhookUpdateIn
from apps.webhooks.presenters import present_delivery

SECTION = "webhooks"
OPERATION = "webhooks.manage"
FIELDS = ("url", "description", "eventTypes", "collections", "payloadMode", "active")
PAGE_SIZE = 20


def _split(text: str) -> list[str]:
    return [part.strip() for part in text.replace("\n", ",").split(",") if part.strip()]


def _posted(post) -> dict:
    return {
        "url": post.get("url", ""),
        "description": post.get("description", ""),
        "eventTypes": post.get("eventTypes", ""),
        "collections": post.getlist("collections"),
        "payloadMode": post.get("payloadMode", "full"),
        "active": post.get("active") == "on",
    }


def _body(values: dict, model) -> dict:
    body = {**values, "eventTypes": _split(values["eventTypes"])}
    return shapes.validate(model, body).model_dump(exclude_unset=True)


def _form(request, *, endpoint=None, values, errors=None, status: int = 200):
    context = {
        "endpoint": endpoint,
        "values": values,
        "errors": errors or {},
        "collections": [collection.slug for collection in collections_for_read()],
        "event_types": sorted(EVENT_TYPES.items()),
        "groups": sorted(f"{group}.*" for group in GROUPS),
    }
    return render_studio(request, "studio/webhooks/form.html", context, section=SECTION, status=status)


def _secret_page(request, endpoint, *, rotated: bool):
    context = {"endpoint": endpoint, "rotated": rotated}
    return render_studio(request, "studio/webhooks/secret.html", context, section=SECTION)


@studio_page
def webhook_list_page(request):
    page = selectors.endpoint_list(
        actor=request.actor, cursor=request.GET.get("cursor") or None, limit=PAGE_SIZE
    )
    base = reverse("studio:webhooks")
    context = {
        "endpoints": page.items,
        "next_url": f"{base}?{urlencode({'cursor': page.next_cursor})}" if page.next_cursor else None,
    }
    return render_studio(request, "studio/webhooks/list.html", context, section=SECTION)


@studio_page
def webhook_new(request):
    authorize(request.actor, OPERATION)
    if request.method != "POST":
        values = {"url": "", "description": "", "eventTypes": "*", "collections": [], "payloadMode": "full"}
        return _form(request, values={**values, "active": True})
    values = _posted(request.POST)
    try:
        endpoint = services.endpoint_create(actor=request.actor, values=_body(values, WebhookIn))
    except CmsError as exc:
        return _form(request, values=values, errors=form_errors(exc, FIELDS), status=exc.status)
    # The secret is shown on this answer only: no redirect, nothing stored to show it again.
    return _secret_page(request, endpoint, rotated=False)


@studio_page
def webhook_edit(request, endpoint_id: str):
    endpoint = selectors.endpoint_read(actor=request.actor, endpoint_id=endpoint_id)
    if request.method != "POST":
        values = {
            "url": endpoint.url,
            "description": endpoint.description,
            "eventTypes": ", ".join(endpoint.event_types),
            "collections": list(endpoint.collections),
            "payloadMode": endpoint.payload_mode,
            "active": endpoint.active,
        }
        return _form(request, endpoint=endpoint, values=values)
    values = _posted(request.POST)
    try:
        endpoint = services.endpoint_update(
            actor=request.actor, endpoint=endpoint, values=_body(values, WebhookUpdateIn)
        )
    except CmsError as exc:
        errors = form_errors(exc, FIELDS)
        return _form(request, endpoint=endpoint, values=values, errors=errors, status=exc.status)
    messages.success(request, f"Saved the webhook endpoint {endpoint.url}.")
    return redirect("studio:webhook", endpoint.pk)


@studio_page
def webhook_rotate(request, endpoint_id: str):
    endpoint = selectors.endpoint_read(actor=request.actor, endpoint_id=endpoint_id)
    if request.method != "POST":
        return redirect("studio:webhook", endpoint.pk)
    endpoint = services.endpoint_rotate_secret(actor=request.actor, endpoint=endpoint)
    return _secret_page(request, endpoint, rotated=True)


@studio_page
def webhook_delete(request, endpoint_id: str):
    endpoint = selectors.endpoint_read(actor=request.actor, endpoint_id=endpoint_id)
    if request.method == "POST":
        services.endpoint_delete(actor=request.actor, endpoint=endpoint)
        messages.success(request, f"Deleted the webhook endpoint {endpoint.url}.")
        return redirect("studio:webhooks")
    context = {
        "title": "Delete this webhook endpoint?",
        "effect": f"{endpoint.url} receives no more events; its deliveries and their history are deleted too.",
        "button": "Delete the endpoint",
        "back": reverse("studio:webhook", args=[endpoint.pk]),
    }
    return render_studio(request, "studio/widgets/confirm.html", context, section=SECTION)


@studio_page
def webhook_deliveries(request, endpoint_id: str):
    endpoint = selectors.endpoint_read(actor=request.actor, endpoint_id=endpoint_id)
    page = selectors.delivery_list(
        actor=request.actor, endpoint=endpoint, cursor=request.GET.get("cursor") or None, limit=PAGE_SIZE
    )
    base = reverse("studio:webhook-deliveries", args=[endpoint.pk])
    context = {
        "endpoint": endpoint,
        "deliveries": [present_delivery(item) for item in page.items],
        "next_url": f"{base}?{urlencode({'cursor': page.next_cursor})}" if page.next_cursor else None,
    }
    return render_studio(request, "studio/webhooks/deliveries.html", context, section=SECTION)


@studio_page
def webhook_redeliver(request, delivery_id: str):
    delivery = selectors.delivery_get(actor=request.actor, delivery_id=delivery_id)
    if request.method == "POST":
        try:
            services.delivery_redeliver(actor=request.actor, delivery=delivery)
        except CmsError as exc:
            if exc.status != 400:
                raise
            messages.error(request, exc.message)
        else:
            messages.success(request, f"Queued the event {delivery.event.type} to be sent again.")
    return redirect("studio:webhook-deliveries", delivery.endpoint_id)
