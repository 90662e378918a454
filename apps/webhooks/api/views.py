"""``/_cms/api/webhooks…`` (issue 22): endpoints, secret rotation, deliveries and redelivery. Admins only."""

from __future__ import annotations

from apps.accounts.permissions import actor_from_request
from apps.core.api.views import CmsViewSet, endpoint, ok
from apps.core.presenters import SUCCESS, SuccessFlagOut
from apps.core.shapes import paged
from apps.webhooks import selectors, services
from apps.webhooks.inputs import DeliveryListIn, RotateIn, WebhookIn, WebhookListIn, WebhookUpdateIn
from apps.webhooks.presenters import (
    DeliveryOut,
    WebhookCreatedOut,
    WebhookOut,
    present_delivery,
    present_webhook,
    present_webhook_created,
)

OPERATION = "webhooks.manage"


class WebhookViewSet(CmsViewSet):
    @endpoint(OPERATION, query=WebhookListIn, response=paged(WebhookOut), summary="List webhook endpoints")
    def list(self, request):
        page = selectors.endpoint_list(
            actor=actor_from_request(request), cursor=self.query.get("cursor"), limit=self.query["limit"]
        )
        return ok(page.to_data(present_webhook))

    @endpoint(
        OPERATION, body=WebhookIn, response=WebhookCreatedOut, status=201, summary="Create a webhook endpoint"
    )
    def create(self, request):
        """The answer holds the endpoint's ``secret``, shown this once: keep it to verify signatures."""
        created = services.endpoint_create(actor=actor_from_request(request), values=self.body)
        return ok(present_webhook_created(created), status=201)

    @endpoint(OPERATION, response=WebhookOut, summary="Get a webhook endpoint")
    def retrieve(self, request, pk: str):
        return ok(present_webhook(selectors.endpoint_read(actor=actor_from_request(request), endpoint_id=pk)))

    @endpoint(OPERATION, body=WebhookUpdateIn, response=WebhookOut, summary="Update a webhook endpoint")
    def update(self, request, pk: str):
        """Only the keys sent change. ``active: true`` turns a disabled endpoint on again."""
        changed = services.endpoint_update(
            actor=actor_from_request(request),
            endpoint=selectors.endpoint_get(endpoint_id=pk),
            values=self.body,
        )
        return ok(present_webhook(changed))

    @endpoint(
        OPERATION, body=WebhookUpdateIn, response=WebhookOut, summary="Update a webhook endpoint (as PUT)"
    )
    def partial_update(self, request, pk: str):
        return self.update(request, pk)

    @endpoint(OPERATION, response=SuccessFlagOut, summary="Delete a webhook endpoint and its deliveries")
    def destroy(self, request, pk: str):
        services.endpoint_delete(
            actor=actor_from_request(request), endpoint=selectors.endpoint_get(endpoint_id=pk)
        )
        return ok(SUCCESS)

    @endpoint(
        OPERATION, body=RotateIn, response=WebhookCreatedOut, summary="Give a webhook endpoint a new secret"
    )
    def rotate_secret(self, request, pk: str):
        """The answer holds the new ``secret``, shown this once. The old one keeps signing beside it (a second
        signature in ``webhook-signature``) until ``previousSecretExpiresAt``."""
        rotated = services.endpoint_rotate_secret(
            actor=actor_from_request(request),
            endpoint=selectors.endpoint_get(endpoint_id=pk),
            grace_seconds=self.body.get("gracePeriodSeconds"),
        )
        return ok(present_webhook_created(rotated))

    @endpoint(
        OPERATION,
        query=DeliveryListIn,
        response=paged(DeliveryOut),
        summary="List a webhook endpoint's deliveries",
    )
    def deliveries(self, request, pk: str):
        """Newest first, each with the payload sent and every attempt: status, the start of the answer, duration."""
        actor = actor_from_request(request)
        page = selectors.delivery_list(
            actor=actor,
            endpoint=selectors.endpoint_read(actor=actor, endpoint_id=pk),
            state=self.query.get("state"),
            cursor=self.query.get("cursor"),
            limit=self.query["limit"],
        )
        return ok(page.to_data(present_delivery))


class DeliveryViewSet(CmsViewSet):
    @endpoint(OPERATION, response=DeliveryOut, status=201, summary="Send a webhook delivery's event again")
    def redeliver(self, request, pk: str):
        """A new delivery of the same event (same ``webhook-id``) to the same endpoint, due at once."""
        actor = actor_from_request(request)
        created = services.delivery_redeliver(
            actor=actor, delivery=selectors.delivery_get(actor=actor, delivery_id=pk)
        )
        return ok(present_delivery(created), status=201)
