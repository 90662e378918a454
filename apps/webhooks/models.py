"""Webhook endpoints, the outbox of events, and each event's deliveries with their attempts (issue 22).

An ``Event`` is written in the same transaction as the change it describes, naming the endpoints that subscribed to it
at that moment: a rolled-back change leaves none, a committed one leaves it, so the worker finds every event to send
in the database (docs/webhooks.md). The worker turns each new event into one ``Delivery`` per endpoint, in one
transaction with marking the event done. A delivery is ``pending`` until a worker claims it
(``sending``, under a lease renewed in ``leased_at``), then ``delivered``, or back to ``pending`` with a later
``next_attempt_at`` after a failed attempt, or ``failed`` once its retries are spent. Each try is an ``Attempt``.
"""

from __future__ import annotations

from django.db import models

from apps.core.models import TimestampedModel, UlidModel


class PayloadMode(models.TextChoices):
    # The resource as the public API shows it, or only the ids that name it.
    FULL = "full"
    IDS = "ids"


class Endpoint(TimestampedModel):
    url = models.CharField(max_length=2000)
    description = models.TextField(blank=True)
    # whsec_<base64>: the Standard Webhooks form. Kept readable: signing needs it.
    secret = models.CharField(max_length=100)
    # The secret before the last rotation, still signing beside the new one until it expires (the grace period).
    previous_secret = models.CharField(max_length=100, blank=True)
    previous_secret_expires_at = models.DateTimeField(null=True, blank=True)
    # Event names or "<group>.*"; ["*"]: every event.
    event_types = models.JSONField(default=list)
    # Collection slugs that collection-bound events (entries, collections, fields) must belong to; []: all.
    collections = models.JSONField(default=list)
    active = models.BooleanField(default=True)
    payload_mode = models.CharField(max_length=8, choices=PayloadMode.choices, default=PayloadMode.FULL)
    disabled_reason = models.TextField(blank=True)
    disabled_at = models.DateTimeField(null=True, blank=True)
    # The current run of failed attempts (reset by a success): the endpoint is disabled after a long one.
    failure_count = models.IntegerField(default=0)
    failing_since = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return self.url


class Event(UlidModel):
    """One change, as the receivers are told about it. The id is the ``webhook-id`` of every delivery of it."""

    type = models.CharField(max_length=64)
    created_at = models.DateTimeField()
    actor = models.JSONField(null=True)
    collection = models.CharField(max_length=63, blank=True)
    # The resource as the public API shows it (null when no endpoint asked for it), and the ids naming it.
    data = models.JSONField(null=True)
    ids = models.JSONField(default=dict)
    # The endpoints that subscribed when the change was written; the worker turns them into deliveries (those still
    # there and active), then sets ``fanned_out``. Writing only this row keeps the change's own cost to one INSERT.
    endpoints = models.JSONField(default=list)
    fanned_out = models.BooleanField(default=False)

    class Meta:
        indexes = [
            models.Index(
                fields=["created_at", "id"], condition=models.Q(fanned_out=False), name="webhooks_event_new"
            )
        ]

    def __str__(self) -> str:
        return f"{self.type} {self.pk}"


class DeliveryState(models.TextChoices):
    PENDING = "pending"
    SENDING = "sending"
    DELIVERED = "delivered"
    FAILED = "failed"


class Delivery(UlidModel):
    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="deliveries")
    endpoint = models.ForeignKey(Endpoint, on_delete=models.CASCADE, related_name="deliveries")
    state = models.CharField(max_length=16, choices=DeliveryState.choices, default=DeliveryState.PENDING)
    attempts = models.IntegerField(default=0)
    next_attempt_at = models.DateTimeField()
    # The claiming worker's lease: set when claimed; a sending delivery whose lease is older than
    # CMS_WEBHOOK_LEASE_SECONDS belongs to a worker that died, and is claimed again.
    leased_at = models.DateTimeField(null=True, blank=True)
    last_status = models.IntegerField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    created_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["state", "next_attempt_at"], name="webhooks_delivery_due"),
            models.Index(fields=["endpoint", "created_at", "id"], name="webhooks_delivery_endpoint"),
            models.Index(fields=["state", "finished_at"], name="webhooks_delivery_finished"),
        ]

    def __str__(self) -> str:
        return f"{self.event_id} → {self.endpoint_id} ({self.state})"


class Attempt(UlidModel):
    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="attempt_set")
    number = models.IntegerField()
    started_at = models.DateTimeField()
    duration_ms = models.IntegerField()
    # The receiver's HTTP status (null when no answer came: timeout, refused connection, blocked address).
    status = models.IntegerField(null=True, blank=True)
    # The start of the receiver's answer (at most CMS_WEBHOOK_RESPONSE_EXCERPT bytes, as text).
    response = models.TextField(blank=True)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["delivery", "number"]

    def __str__(self) -> str:
        return f"attempt {self.number} of {self.delivery_id}"
