"""Reads of webhook endpoints and their deliveries, for admins (the ``webhooks.manage`` rule)."""

from __future__ import annotations

from django.db.models import Prefetch

from apps.accounts.permissions import Actor, authorize
from apps.core.errors import NotFound
from apps.core.pagination import Page, SortKey, keyset_page
from apps.webhooks.models import Attempt, Delivery, Endpoint

OPERATION = "webhooks.manage"
ENDPOINT_ORDER = (SortKey("created_at", kind="datetime"), SortKey("id"))
DELIVERY_ORDER = (SortKey("created_at", descending=True, kind="datetime"), SortKey("id", descending=True))


def endpoint_list(*, actor: Actor | None, cursor: str | None = None, limit: int = 50) -> Page[Endpoint]:
    authorize(actor, OPERATION)
    return keyset_page(
        Endpoint.objects.all(), keys=ENDPOINT_ORDER, cursor=cursor, limit=limit, scope="webhook-endpoints"
    )


def endpoint_read(*, actor: Actor | None, endpoint_id: str) -> Endpoint:
    authorize(actor, OPERATION)
    return endpoint_get(endpoint_id=endpoint_id)


def endpoint_get(*, endpoint_id: str) -> Endpoint:
    endpoint = Endpoint.objects.filter(pk=endpoint_id).first()
    if endpoint is None:
        raise NotFound(f"No webhook endpoint {endpoint_id}; GET /_cms/api/webhooks lists them.")
    return endpoint


def delivery_list(
    *,
    actor: Actor | None,
    endpoint: Endpoint,
    state: str | None = None,
    cursor: str | None = None,
    limit: int = 20,
) -> Page[Delivery]:
    """An endpoint's deliveries, newest first, each with its event and its attempts in order."""
    authorize(actor, OPERATION)
    deliveries = (
        Delivery.objects.filter(endpoint=endpoint)
        .select_related("event", "endpoint")
        .prefetch_related(Prefetch("attempt_set", queryset=Attempt.objects.order_by("number", "started_at")))
    )
    if state:
        deliveries = deliveries.filter(state=state)
    return keyset_page(
        deliveries,
        keys=DELIVERY_ORDER,
        cursor=cursor,
        limit=limit,
        scope=f"webhook-deliveries:{endpoint.pk}:{state}",
    )


def delivery_get(*, actor: Actor | None, delivery_id: str) -> Delivery:
    authorize(actor, OPERATION)
    delivery = Delivery.objects.select_related("event", "endpoint").filter(pk=delivery_id).first()
    if delivery is None:
        raise NotFound(f"No webhook delivery {delivery_id}.")
    return delivery
