"""Webhook endpoints and deliveries as every face shows them (issue 22): each shape once, with its builder.

The secret appears only in ``WebhookCreatedOut`` (create, rotate-secret): reads never show it.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import Field

from apps.core.shapes import Timestamp, TypedDict
from apps.core.timefmt import iso
from apps.webhooks.delivery import body_of
from apps.webhooks.models import Attempt, Delivery, DeliveryState, Endpoint, PayloadMode

PayloadModeName = Literal[tuple(PayloadMode.values)]  # type: ignore[valid-type]
DeliveryStateName = Literal[tuple(DeliveryState.values)]  # type: ignore[valid-type]


class WebhookOut(TypedDict):
    id: str
    url: str
    description: str
    eventTypes: list[str]
    collections: list[str]
    active: bool
    payloadMode: PayloadModeName
    disabledReason: Annotated[
        str | None, Field(description="Why the endpoint is off (set when it was disabled).")
    ]
    disabledAt: Timestamp | None
    failureCount: Annotated[int, Field(description="Failed attempts in a row (a success resets it).")]
    previousSecretExpiresAt: Annotated[
        Timestamp | None, Field(description="Until then the secret before the last rotation still signs too.")
    ]
    createdAt: Timestamp
    updatedAt: Timestamp


class WebhookCreatedOut(WebhookOut):
    secret: Annotated[
        str, Field(description="whsec_<base64>: shown this once; keep it to verify signatures.")
    ]


class AttemptOut(TypedDict):
    number: int
    startedAt: Timestamp
    durationMs: int
    status: Annotated[int | None, Field(description="The receiver's HTTP status; null when it gave none.")]
    response: Annotated[str, Field(description="The start of the receiver's answer.")]
    error: str


class DeliveryOut(TypedDict):
    id: str
    eventId: Annotated[str, Field(description="The event's id: the webhook-id header of every attempt.")]
    eventType: str
    endpointId: str
    state: DeliveryStateName
    attemptCount: int
    nextAttemptAt: Annotated[Timestamp | None, Field(description="When the next attempt is due (pending).")]
    lastStatus: int | None
    lastError: str
    createdAt: Timestamp
    finishedAt: Timestamp | None
    payload: Annotated[dict[str, Any], Field(description="The body sent (as JSON).")]
    attempts: Annotated[list[AttemptOut], Field(description="Each attempt, oldest first.")]


def present_webhook(endpoint: Endpoint) -> WebhookOut:
    expires = endpoint.previous_secret_expires_at if endpoint.previous_secret else None
    return {
        "id": endpoint.pk,
        "url": endpoint.url,
        "description": endpoint.description,
        "eventTypes": list(endpoint.event_types),
        "collections": list(endpoint.collections),
        "active": endpoint.active,
        "payloadMode": endpoint.payload_mode,
        "disabledReason": endpoint.disabled_reason or None,
        "disabledAt": iso(endpoint.disabled_at),
        "failureCount": endpoint.failure_count,
        "previousSecretExpiresAt": iso(expires),
        "createdAt": iso(endpoint.created_at),
        "updatedAt": iso(endpoint.updated_at),
    }


def present_webhook_created(endpoint: Endpoint) -> WebhookCreatedOut:
    return {**present_webhook(endpoint), "secret": endpoint.secret}  # type: ignore[typeddict-item]


def present_attempt(attempt: Attempt) -> AttemptOut:
    return {
        "number": attempt.number,
        "startedAt": iso(attempt.started_at),
        "durationMs": attempt.duration_ms,
        "status": attempt.status,
        "response": attempt.response,
        "error": attempt.error,
    }


def present_delivery(delivery: Delivery) -> DeliveryOut:
    pending = delivery.state == DeliveryState.PENDING
    return {
        "id": delivery.pk,
        "eventId": delivery.event_id,
        "eventType": delivery.event.type,
        "endpointId": delivery.endpoint_id,
        "state": delivery.state,
        "attemptCount": delivery.attempts,
        "nextAttemptAt": iso(delivery.next_attempt_at) if pending else None,
        "lastStatus": delivery.last_status,
        "lastError": delivery.last_error,
        "createdAt": iso(delivery.created_at),
        "finishedAt": iso(delivery.finished_at),
        "payload": json.loads(body_of(delivery.event, delivery.endpoint)),
        "attempts": [present_attempt(attempt) for attempt in delivery.attempt_set.all()],
    }
