"""What each webhook operation takes (issue 22): one model per operation, read by REST and MCP alike."""

from __future__ import annotations

from typing import Annotated

from apps.core.shapes import Field, Input, Str, Text, choice, cursor_param, limit_param
from apps.webhooks.models import DeliveryState, PayloadMode

EVENT_TYPES_HELP = "Event names (entry.published, media.created, …: docs/webhooks.md), groups such as 'entry.*', or ['*'] for all."
COLLECTIONS_HELP = "Collection slugs: events about entries, collections and fields of other collections are not sent. Empty: all."
PAYLOAD_HELP = "full: the resource as the public API shows it; ids: only the ids naming it."


class WebhookIn(Input):
    url: Str = Field(max_length=2000, description="Where events are POSTed (http or https).")
    description: Text = Field(None, max_length=2000)
    eventTypes: list[Annotated[Str, Field(max_length=64)]] = Field(
        None, max_length=100, description=EVENT_TYPES_HELP
    )
    collections: list[Annotated[Str, Field(max_length=63)]] = Field(
        None, max_length=200, description=COLLECTIONS_HELP
    )
    active: bool = Field(
        None, description="false: nothing is sent (and no event recorded) until it is true again."
    )
    payloadMode: choice(*PayloadMode.values) = Field(None, description=PAYLOAD_HELP)


class WebhookUpdateIn(WebhookIn):
    """Only the keys sent change."""

    url: Str = Field(None, max_length=2000, description="Where events are POSTed (http or https).")


class WebhookIdIn(Input):
    id: Str = Field(max_length=26, description="The endpoint's id.")


class WebhookToolUpdateIn(WebhookUpdateIn):
    id: Str = Field(max_length=26, description="The endpoint's id.")


class WebhookListIn(Input):
    limit: int = limit_param(50)
    cursor: Str = cursor_param()


class RotateIn(Input):
    gracePeriodSeconds: int = Field(
        None,
        ge=0,
        le=7 * 24 * 3600,
        description="How long the old secret still signs beside the new one (default: a day; 0: not at all).",
    )


class RotateToolIn(RotateIn):
    id: Str = Field(max_length=26, description="The endpoint's id.")


class DeliveryListIn(Input):
    state: choice(*DeliveryState.values) = Field(None, description="Only deliveries in this state.")
    limit: int = limit_param(20)
    cursor: Str = cursor_param()


class DeliveryListToolIn(DeliveryListIn):
    id: Str = Field(max_length=26, description="The endpoint's id.")


class DeliveryIdIn(Input):
    deliveryId: Str = Field(max_length=26, description="The delivery's id (from webhook_deliveries).")
