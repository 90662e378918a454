"""Writes to webhook endpoints (admins only: the ``webhooks.manage`` rule) and manual redelivery.

The secret is generated here and answered once, by the create and rotate operations; reads never show it. A
rotation keeps the old secret signing beside the new one for a grace period, so receivers can switch over without
rejecting deliveries in between.
"""

from __future__ import annotations

import ipaddress
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction

from apps.accounts.permissions import Actor, authorize
from apps.core import safehttp, timefmt
from apps.core.errors import ValidationError
from apps.schema.models import Collection
from apps.webhooks import outbox, signing
from apps.webhooks.catalogue import ALL, pattern_problem
from apps.webhooks.models import Delivery, DeliveryState, Endpoint, PayloadMode

OPERATION = "webhooks.manage"
MAX_GRACE_SECONDS = 7 * 24 * 3600


def _url_problem(url: Any) -> str | None:
    if not isinstance(url, str) or not url.strip():
        return "Required: the receiver's URL, e.g. https://example.com/hooks/cms."
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "An http or https URL with a host, e.g. https://example.com/hooks/cms."
    if parts.username or parts.password:
        return "No user name or password in the URL: put a token in its path or query instead."
    try:
        ipaddress.ip_address(parts.hostname)
    except ValueError:
        return None  # a host name: its addresses are checked at each delivery (they can change)
    try:
        safehttp.check_url(url.strip(), allow=tuple(settings.CMS_WEBHOOK_ALLOWED_HOSTS or ()))
    except safehttp.SafeHttpError as exc:
        return f"{exc} An operator can allow it with CMS_WEBHOOK_ALLOWED_HOSTS."
    return None


def _clean(values: dict[str, Any], problems: dict[str, str]) -> dict[str, Any]:
    """Model attributes from the wire values given; problems collected by wire name."""
    clean: dict[str, Any] = {}
    if "url" in values:
        if problem := _url_problem(values["url"]):
            problems["url"] = problem
        clean["url"] = (values["url"] or "").strip()
    if "description" in values:
        clean["description"] = values["description"] or ""
    if "eventTypes" in values:
        types = list(dict.fromkeys(values["eventTypes"] or []))
        if not types:
            problems["eventTypes"] = (
                "Name at least one event type, a group such as 'entry.*', or '*' for all."
            )
        for index, pattern in enumerate(types):
            if problem := pattern_problem(pattern):
                problems[f"eventTypes.{index}"] = problem
        clean["event_types"] = [ALL] if ALL in types else types
    if "collections" in values:
        slugs = list(dict.fromkeys(values["collections"] or []))
        known = set(Collection.objects.filter(slug__in=slugs).values_list("slug", flat=True))
        for index, slug in enumerate(slugs):
            if slug not in known:
                names = ", ".join(Collection.objects.order_by("slug").values_list("slug", flat=True)[:50])
                problems[f"collections.{index}"] = (
                    f"No collection '{slug}'; collections: {names or 'none yet'}."
                )
        clean["collections"] = slugs
    if "payloadMode" in values:
        clean["payload_mode"] = values["payloadMode"]
    if "active" in values:
        clean["active"] = bool(values["active"])
    return clean


@transaction.atomic
def endpoint_create(*, actor: Actor, values: dict[str, Any]) -> Endpoint:
    """Create an endpoint with a new secret (``endpoint.secret``: show it to its creator once)."""
    authorize(actor, OPERATION)
    problems: dict[str, str] = {}
    values = {
        "eventTypes": [ALL],
        "collections": [],
        "payloadMode": PayloadMode.FULL,
        "active": True,
        **values,
    }
    clean = _clean(values, problems)
    if "url" not in values:
        problems["url"] = "Required: the receiver's URL, e.g. https://example.com/hooks/cms."
    if problems:
        raise ValidationError(details=problems)
    endpoint = Endpoint.objects.create(secret=signing.new_secret(), **clean)
    outbox.subscriptions_changed()
    return endpoint


@transaction.atomic
def endpoint_update(*, actor: Actor, endpoint: Endpoint, values: dict[str, Any]) -> Endpoint:
    """Change what is given. Turning an endpoint on again clears why it was disabled and its run of failures."""
    authorize(actor, OPERATION)
    endpoint = Endpoint.objects.select_for_update().get(pk=endpoint.pk)
    problems: dict[str, str] = {}
    clean = _clean(values, problems)
    if problems:
        raise ValidationError(details=problems)
    if clean.get("active") and not endpoint.active:
        clean.update(disabled_reason="", disabled_at=None, failure_count=0, failing_since=None)
    elif clean.get("active") is False and endpoint.active:
        clean.update(disabled_reason="Turned off by an administrator.", disabled_at=timefmt.now())
    for name, value in clean.items():
        setattr(endpoint, name, value)
    endpoint.save()
    outbox.subscriptions_changed()
    return endpoint


@transaction.atomic
def endpoint_delete(*, actor: Actor, endpoint: Endpoint) -> None:
    """Delete the endpoint with its deliveries and their attempts."""
    authorize(actor, OPERATION)
    endpoint.delete()
    outbox.subscriptions_changed()


@transaction.atomic
def endpoint_rotate_secret(*, actor: Actor, endpoint: Endpoint, grace_seconds: int | None = None) -> Endpoint:
    """A new secret; the current one keeps signing (beside it) for ``grace_seconds`` (default
    CMS_WEBHOOK_SECRET_GRACE_SECONDS; 0: it stops at once)."""
    authorize(actor, OPERATION)
    grace = settings.CMS_WEBHOOK_SECRET_GRACE_SECONDS if grace_seconds is None else grace_seconds
    if not 0 <= grace <= MAX_GRACE_SECONDS:
        raise ValidationError(details={"gracePeriodSeconds": f"From 0 to {MAX_GRACE_SECONDS} (a week)."})
    endpoint = Endpoint.objects.select_for_update().get(pk=endpoint.pk)
    endpoint.previous_secret = endpoint.secret if grace else ""
    endpoint.previous_secret_expires_at = timefmt.now() + timedelta(seconds=grace) if grace else None
    endpoint.secret = signing.new_secret()
    endpoint.save()
    return endpoint


@transaction.atomic
def delivery_redeliver(*, actor: Actor, delivery: Delivery) -> Delivery:
    """Send an event to the endpoint again, as a new delivery due now (its history stays with the old one). The
    endpoint must be active: a disabled one is turned on again first."""
    authorize(actor, OPERATION)
    endpoint = delivery.endpoint
    if not endpoint.active:
        raise ValidationError(
            f"The endpoint {endpoint.pk} is disabled; turn it on again (active: true) to redeliver.",
            details={"endpoint": endpoint.disabled_reason or "Disabled."},
        )
    when = timefmt.now()
    return Delivery.objects.create(
        event_id=delivery.event_id,
        endpoint=endpoint,
        state=DeliveryState.PENDING,
        next_attempt_at=when,
        created_at=when,
    )
