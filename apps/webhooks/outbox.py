"""Writing events to the outbox, inside the transaction of the change they describe.

Most installations have no webhook endpoint, and every content write passes here: the first question, "does any
active endpoint subscribe to this event type?", is answered from the cache (one lookup, no query) holding the
subscriptions of the active endpoints. Only when one may match are the endpoints read (one query, in the writer's
transaction, so a deleted endpoint gets no row) and an ``Event`` with one ``Delivery`` per matching endpoint written.
The resource is presented (the public API's shape) only when a matching endpoint wants full payloads.

The cached subscriptions are dropped when an endpoint changes (now and again on commit); in a deployment whose cache
is not shared between processes (no Redis) another process sees the change within ``SUBSCRIPTIONS_TTL`` seconds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache
from django.db import transaction

from apps.core import timefmt
from apps.core.ids import new_id
from apps.webhooks.catalogue import matches
from apps.webhooks.models import Delivery, Endpoint, Event, PayloadMode

CACHE_KEY = "webhooks:subscriptions:v1"
SUBSCRIPTIONS_TTL = 30


def _load() -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    rows = Endpoint.objects.filter(active=True).values_list("event_types", "collections")
    return [(tuple(types or ()), tuple(collections or ())) for types, collections in rows]


def subscriptions() -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """(event type patterns, collections) of each active endpoint: [] when there is none, the common case."""
    found = cache.get(CACHE_KEY)
    if found is None:
        found = _load()
        cache.set(CACHE_KEY, found, SUBSCRIPTIONS_TTL)
    return found


def subscriptions_changed() -> None:
    cache.delete(CACHE_KEY)
    # Again once the change is visible to others: a reader may have cached the old rows meanwhile.
    transaction.on_commit(lambda: cache.delete(CACHE_KEY))


def _wants(types: Sequence[str], collections: Sequence[str], event_type: str, collection: str | None) -> bool:
    if collection and collections and collection not in collections:
        return False
    return matches(types, event_type)


def wanted(event_type: str, collection: str | None = None) -> bool:
    """Whether an active endpoint may subscribe to this event (from the cache: no query)."""
    return any(_wants(types, cols, event_type, collection) for types, cols in subscriptions())


def actor_of(actor: Any) -> dict[str, Any] | None:
    if actor is None or isinstance(actor, dict):
        return actor
    return {"userId": getattr(actor, "user_id", None), "via": getattr(actor, "via", "system")}


@dataclass(frozen=True)
class Change:
    """One resource an event is about: the ids naming it, and how to present it in full (called only if wanted)."""

    ids: dict[str, Any]
    present: Callable[[], Any] | None = None


def emit(
    event_type: str,
    *,
    actor: Any,
    ids: dict[str, Any],
    present: Callable[[], Any] | None = None,
    collection: str | None = None,
) -> None:
    """Record one event for the endpoints that subscribe to it."""
    if wanted(event_type, collection):
        emit_many(event_type, actor=actor, changes=[Change(ids, present)], collection=collection)


def emit_many(
    event_type: str,
    *,
    actor: Any,
    changes: Sequence[Change] | Callable[[], Sequence[Change]],
    collection: str | None = None,
    present_all: Callable[[], list[Any]] | None = None,
) -> None:
    """Record one event per change (a batch: an import's entries), in bulk. ``present_all`` presents every change at
    once, in order, where that is cheaper than one by one."""
    if not wanted(event_type, collection):
        return
    endpoints = [
        endpoint
        for endpoint in Endpoint.objects.filter(active=True).only("id", "event_types", "collections", "payload_mode")
        if _wants(endpoint.event_types, endpoint.collections, event_type, collection)
    ]
    if not endpoints:
        return
    items = list(changes() if callable(changes) else changes)
    full = any(endpoint.payload_mode == PayloadMode.FULL for endpoint in endpoints)
    if not full:
        presented: list[Any] = [None] * len(items)
    elif present_all is not None:
        presented = present_all()
    else:
        presented = [change.present() if change.present else None for change in items]
    when = timefmt.now()
    who = actor_of(actor)
    events = [
        Event(
            id=new_id(),
            type=event_type,
            created_at=when,
            actor=who,
            collection=collection or "",
            data=data,
            ids=change.ids,
        )
        for change, data in zip(items, presented, strict=True)
    ]
    Event.objects.bulk_create(events)
    Delivery.objects.bulk_create(
        [
            Delivery(id=new_id(), event=event, endpoint=endpoint, next_attempt_at=when, created_at=when)
            for event in events
            for endpoint in endpoints
        ]
    )
