"""Writing events to the outbox, inside the transaction of the change they describe.

Most installations have no webhook endpoint, and every content write passes here: "does any active endpoint subscribe
to this event?" is answered from the cache (one lookup, no query) holding the subscriptions of the active endpoints.
When one does, the change costs one INSERT: an ``Event`` naming the endpoints that subscribed, with the resource
presented (the public API's shape) only when one of them wants full payloads. The worker turns it into deliveries.

The cached subscriptions are dropped when an endpoint changes (now and again on commit); in a deployment whose cache
is not shared between processes (no Redis) another process sees the change within ``SUBSCRIPTIONS_TTL`` seconds. A
stale entry is harmless the other way: an endpoint deleted or turned off meanwhile gets no delivery at fan-out.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache
from django.db import connection, transaction

from apps.core import timefmt
from apps.core.db.backends import get_db_backend
from apps.core.ids import new_id
from apps.webhooks.catalogue import matches
from apps.webhooks.models import Endpoint, Event, PayloadMode

CACHE_KEY = "webhooks:subscriptions:v2"
SUBSCRIPTIONS_TTL = 30


@dataclass(frozen=True)
class Subscription:
    endpoint_id: str
    types: tuple[str, ...]
    collections: tuple[str, ...]
    full: bool

    def wants(self, event_type: str, collection: str | None) -> bool:
        if collection and self.collections and collection not in self.collections:
            return False
        return matches(self.types, event_type)


def _load() -> tuple[Subscription, ...]:
    rows = Endpoint.objects.filter(active=True).values_list(
        "pk", "event_types", "collections", "payload_mode"
    )
    return tuple(
        Subscription(pk, tuple(types or ()), tuple(collections or ()), mode == PayloadMode.FULL)
        for pk, types, collections, mode in rows
    )


def subscriptions() -> tuple[Subscription, ...]:
    """The active endpoints' subscriptions: () when there is none, the common case."""
    found = cache.get(CACHE_KEY)
    if found is None:
        found = _load()
        cache.set(CACHE_KEY, found, SUBSCRIPTIONS_TTL)
    return found


def subscriptions_changed() -> None:
    cache.delete(CACHE_KEY)
    # Again once the change is visible to others: a reader may have cached the old rows meanwhile.
    transaction.on_commit(lambda: cache.delete(CACHE_KEY))


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
    found: tuple[Subscription, ...],
    event_type: str,
    *,
    actor: Any,
    ids: dict[str, Any],
    present: Callable[[], Any] | None = None,
    collection: str | None = None,
) -> None:
    """Record one event for the endpoints of ``found`` (``subscriptions()``) that subscribe to it."""
    emit_many(found, event_type, actor=actor, changes=lambda: [Change(ids, present)], collection=collection)


def emit_many(
    found: tuple[Subscription, ...],
    event_type: str,
    *,
    actor: Any,
    changes: Sequence[Change] | Callable[[], Sequence[Change]],
    collection: str | None = None,
    present_all: Callable[[], list[Any]] | None = None,
) -> None:
    """Record one event per change (a batch: an import's entries), in one INSERT. ``present_all`` presents every
    change at once, in order, where that is cheaper than one by one."""
    wanting = [each for each in found if each.wants(event_type, collection)]
    if not wanting:
        return
    items = list(changes() if callable(changes) else changes)
    if not any(each.full for each in wanting):
        presented: list[Any] = [None] * len(items)
    elif present_all is not None:
        presented = present_all()
    else:
        presented = [change.present() if change.present else None for change in items]
    when = timefmt.now()
    who = actor_of(actor)
    endpoints = [each.endpoint_id for each in wanting]
    rows = [
        (new_id(), event_type, when, who, collection or "", data, change.ids, endpoints, False)
        for change, data in zip(items, presented, strict=True)
    ]
    _insert(rows)


_COLUMNS = ("id", "type", "created_at", "actor", "collection", "data", "ids", "endpoints", "fanned_out")
_JSON_COLUMNS = frozenset({"actor", "data", "ids", "endpoints"})


@functools.cache
def _insert_sql(vendor: str) -> tuple[str, tuple[Any, ...]]:
    """The events' INSERT, built once from the model's fields (``bulk_create`` compiled the same statement anew on
    every content write, most of the outbox's cost), and each column's preparation."""
    fields = [Event._meta.get_field(name) for name in _COLUMNS]
    quote = connection.ops.quote_name
    sql = (
        f"INSERT INTO {quote(Event._meta.db_table)} ({', '.join(quote(field.column) for field in fields)}) "  # noqa: S608 - names from the model
        f"VALUES ({', '.join(['%s'] * len(fields))})"
    )
    backend = get_db_backend()
    # JSON columns through orjson (the field's own preparation runs json.dumps with Django's encoder), the others as
    # their field prepares them.
    prepare = tuple(
        backend.json_param
        if field.name in _JSON_COLUMNS
        else (lambda value, field=field: field.get_db_prep_save(value, connection))
        for field in fields
    )
    return sql, prepare


def _insert(rows: list[tuple]) -> None:
    sql, prepare = _insert_sql(connection.vendor)
    params = [[each(value) for each, value in zip(prepare, row, strict=True)] for row in rows]
    with connection.cursor() as cursor:
        cursor.executemany(sql, params)
