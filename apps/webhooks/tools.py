"""MCP tools for webhook endpoints (issue 22): the webhook selectors and services, the webhook shapes. Admins only."""

from __future__ import annotations

from apps.core.presenters import SuccessFlagOut
from apps.core.shapes import paged
from apps.mcp.registry import tool
from apps.webhooks import selectors, services
from apps.webhooks.inputs import (
    DeliveryIdIn,
    DeliveryListToolIn,
    RotateToolIn,
    WebhookIdIn,
    WebhookIn,
    WebhookListIn,
    WebhookToolUpdateIn,
)
from apps.webhooks.presenters import (
    DeliveryOut,
    WebhookCreatedOut,
    WebhookOut,
    present_delivery,
    present_webhook,
    present_webhook_created,
)

OPERATION = "webhooks.manage"


@tool(
    "webhook_list",
    title="List webhook endpoints",
    operation=OPERATION,
    input=WebhookListIn,
    read_only=True,
    output=paged(WebhookOut),
)
def webhook_list(actor, args: WebhookListIn) -> dict:
    """List webhook endpoints: url, subscribed eventTypes, collections filter, active, payloadMode, disabledReason.

    Returns {items, nextCursor}. Secrets are never listed.
    """
    page = selectors.endpoint_list(actor=actor, cursor=args.cursor, limit=args.limit)
    return page.to_data(present_webhook)


@tool(
    "webhook_get",
    title="Get a webhook endpoint",
    operation=OPERATION,
    input=WebhookIdIn,
    read_only=True,
    output=WebhookOut,
)
def webhook_get(actor, args: WebhookIdIn) -> WebhookOut:
    """Get one webhook endpoint by id: url, eventTypes, collections, active, payloadMode, failureCount and why it
    was disabled. The secret is never shown again after webhook_create and webhook_rotate_secret."""
    return present_webhook(selectors.endpoint_read(actor=actor, endpoint_id=args.id))


@tool(
    "webhook_create",
    title="Create a webhook endpoint",
    operation=OPERATION,
    input=WebhookIn,
    output=WebhookCreatedOut,
)
def webhook_create(actor, args: WebhookIn) -> WebhookCreatedOut:
    """Create a webhook endpoint: changes are POSTed to url, signed the Standard Webhooks way.

    eventTypes: names such as entry.published, groups such as entry.*, or ["*"] (the default). Returns the endpoint
    with its secret (whsec_...), shown this once.
    """
    return present_webhook_created(services.endpoint_create(actor=actor, values=args.values()))


@tool(
    "webhook_update",
    title="Change a webhook endpoint",
    operation=OPERATION,
    input=WebhookToolUpdateIn,
    idempotent=True,
    output=WebhookOut,
)
def webhook_update(actor, args: WebhookToolUpdateIn) -> WebhookOut:
    """Change a webhook endpoint; the keys not sent keep their values. active: true turns a disabled one on again."""
    values = {key: value for key, value in args.sent().items() if key != "id"}
    endpoint = selectors.endpoint_get(endpoint_id=args.id)
    return present_webhook(services.endpoint_update(actor=actor, endpoint=endpoint, values=values))


@tool(
    "webhook_delete",
    title="Delete a webhook endpoint",
    operation=OPERATION,
    input=WebhookIdIn,
    destructive=True,
    idempotent=True,
    output=SuccessFlagOut,
)
def webhook_delete(actor, args: WebhookIdIn) -> SuccessFlagOut:
    """Delete a webhook endpoint with its deliveries. Returns {success: true}."""
    services.endpoint_delete(actor=actor, endpoint=selectors.endpoint_get(endpoint_id=args.id))
    return {"success": True}


@tool(
    "webhook_rotate_secret",
    title="Rotate a webhook secret",
    operation=OPERATION,
    input=RotateToolIn,
    output=WebhookCreatedOut,
)
def webhook_rotate_secret(actor, args: RotateToolIn) -> WebhookCreatedOut:
    """Give a webhook endpoint a new secret, returned this once. The old secret keeps signing beside it for
    gracePeriodSeconds (default a day), so the receiver can switch without rejecting deliveries."""
    endpoint = selectors.endpoint_get(endpoint_id=args.id)
    rotated = services.endpoint_rotate_secret(
        actor=actor, endpoint=endpoint, grace_seconds=args.gracePeriodSeconds
    )
    return present_webhook_created(rotated)


@tool(
    "webhook_deliveries",
    title="List a webhook endpoint's deliveries",
    operation=OPERATION,
    input=DeliveryListToolIn,
    read_only=True,
    output=paged(DeliveryOut),
)
def webhook_deliveries(actor, args: DeliveryListToolIn) -> dict:
    """List an endpoint's deliveries, newest first: state (pending, sending, delivered, failed), the payload sent
    and each attempt with the receiver's status, the start of its answer and the error. Returns {items, nextCursor}.
    """
    endpoint = selectors.endpoint_read(actor=actor, endpoint_id=args.id)
    page = selectors.delivery_list(
        actor=actor, endpoint=endpoint, state=args.state, cursor=args.cursor, limit=args.limit
    )
    return page.to_data(present_delivery)


@tool(
    "webhook_redeliver",
    title="Redeliver a webhook event",
    operation=OPERATION,
    input=DeliveryIdIn,
    output=DeliveryOut,
)
def webhook_redeliver(actor, args: DeliveryIdIn) -> DeliveryOut:
    """Send a delivery's event again to its endpoint (a new delivery, due at once, same webhook-id)."""
    delivery = selectors.delivery_get(actor=actor, delivery_id=args.deliveryId)
    return present_delivery(services.delivery_redeliver(actor=actor, delivery=delivery))
