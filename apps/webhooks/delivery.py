"""Sending the outbox: one pass of the ``deliver_webhooks`` task (apps/webhooks/tasks.py, queue ``webhooks``).

A pass claims the deliveries that are due (pending ones whose time has come, and sending ones whose worker's lease
expired: that worker died mid-delivery), sends each once, and records the attempt. Claiming is a write that only
one worker can win for a given row: ``SELECT … FOR UPDATE SKIP LOCKED`` where the database has it (PostgreSQL),
otherwise an UPDATE conditional on the state and lease the claimer read (SQLite serializes writers anyway). So two
workers never send the same delivery at once, and a delivery claimed by a worker that was killed is sent again once
its lease expires: at least once, never lost. Receivers drop duplicates by ``webhook-id``.

A failed attempt (no answer, a timeout, a status outside 2xx, a blocked address) schedules the next after an
exponential backoff with jitter: ``CMS_WEBHOOK_RETRY_BASE_SECONDS`` times 4 to the power n-1, at most
``CMS_WEBHOOK_RETRY_MAX_SECONDS``, times a random factor in [0.8, 1.2]; with the defaults the ten attempts span about
a day (1 min, 4, 16 min, ~1 h, ~4 h, then every 6 h). After ``CMS_WEBHOOK_MAX_ATTEMPTS`` the delivery is ``failed``
(a person can redeliver it). An endpoint whose attempts have all failed for ``CMS_WEBHOOK_DISABLE_AFTER_SECONDS`` and at
least ``CMS_WEBHOOK_DISABLE_AFTER_FAILURES`` times in a row is disabled, with the reason kept on it.
"""

from __future__ import annotations

import json
import logging
import random
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Case, F, Q, TextField, Value, When
from django.db.models.functions import Concat

from apps.core import metrics, safehttp, timefmt
from apps.core.ids import new_id
from apps.webhooks import outbox, signing
from apps.webhooks.models import Attempt, Delivery, DeliveryState, Endpoint, Event

logger = logging.getLogger("cms.webhooks")

USER_AGENT = "CMS-Webhooks/1.0 (Standard Webhooks)"
PRUNE_EVERY_SECONDS = 3600
DISABLED = "The endpoint was disabled."

# The random factor applied to each retry's delay (a seam: tests make it fixed).
jitter: Callable[[], float] = lambda: random.uniform(0.8, 1.2)  # noqa: E731, S311 - spreading retries, not a secret

_last_prune: float = 0.0


def retry_delay(failures: int) -> timedelta:
    """The wait after the ``failures``-th failed attempt, before jitter is applied."""
    base = settings.CMS_WEBHOOK_RETRY_BASE_SECONDS
    return timedelta(seconds=min(base * 4 ** (failures - 1), settings.CMS_WEBHOOK_RETRY_MAX_SECONDS))


def body_of(event: Event, endpoint: Endpoint) -> bytes:
    """The request body: the same bytes on every attempt, for one event and payload mode."""
    data = event.data if endpoint.payload_mode == "full" and event.data is not None else event.ids
    payload = {
        "id": event.pk,
        "type": event.type,
        "timestamp": timefmt.iso(event.created_at),
        "actor": event.actor,
        "data": data,
    }
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"), sort_keys=False).encode("utf-8")


def secrets_in_use(endpoint: Endpoint, when: datetime) -> list[str]:
    found = [endpoint.secret]
    expires = endpoint.previous_secret_expires_at
    if endpoint.previous_secret and expires is not None and expires > when:
        found.append(endpoint.previous_secret)
    return found


# --- claiming --------------------------------------------------------------------------------------------------------


def _due(when: datetime) -> Q:
    cutoff = when - timedelta(seconds=settings.CMS_WEBHOOK_LEASE_SECONDS)
    return Q(endpoint__active=True) & (
        Q(state=DeliveryState.PENDING, next_attempt_at__lte=when)
        | Q(state=DeliveryState.SENDING, leased_at__lte=cutoff)
        | Q(state=DeliveryState.SENDING, leased_at__isnull=True)
    )


def fan_out(limit: int) -> int:
    """Turn new events into one pending delivery per endpoint they name that is still there and active. One
    transaction for the batch: each event is taken by an UPDATE conditional on it not being done yet (of two workers
    one gets it), then the deliveries of all the events taken are written together."""
    new = Event.objects.filter(fanned_out=False).order_by("created_at", "id")
    candidates = list(new.values_list("pk", "endpoints", "created_at")[:limit])
    if not candidates:
        return 0
    with transaction.atomic():
        taken = [
            (event_id, endpoint_ids, created)
            for event_id, endpoint_ids, created in candidates
            if Event.objects.filter(pk=event_id, fanned_out=False).update(fanned_out=True)
        ]
        wanted = {pk for _, endpoint_ids, _ in taken for pk in endpoint_ids}
        live = set(Endpoint.objects.filter(pk__in=wanted, active=True).values_list("pk", flat=True))
        Delivery.objects.bulk_create(
            [
                Delivery(
                    id=new_id(),
                    event_id=event_id,
                    endpoint_id=pk,
                    next_attempt_at=created,
                    created_at=created,
                )
                for event_id, endpoint_ids, created in taken
                for pk in endpoint_ids
                if pk in live
            ]
        )
    return len(taken)


def claim(limit: int) -> tuple[list[str], datetime]:
    """Take up to ``limit`` due deliveries for this worker; answers their ids and the lease's timestamp."""
    stamp = timefmt.now()
    due = Delivery.objects.filter(_due(stamp)).order_by("next_attempt_at", "id")
    if connection.features.has_select_for_update_skip_locked:
        # PostgreSQL: rows another worker is claiming right now are skipped rather than waited for.
        with transaction.atomic():
            ids = list(
                due.select_for_update(skip_locked=True, of=("self",)).values_list("pk", flat=True)[:limit]
            )
            Delivery.objects.filter(pk__in=ids).update(state=DeliveryState.SENDING, leased_at=stamp)
        return ids, stamp
    # Elsewhere (SQLite, whose writers take turns anyway): one UPDATE that still requires each row to be due, so a
    # row another worker took in between is left alone; the rows now holding this worker's stamp are its own.
    candidates = list(due.values_list("pk", flat=True)[:limit])
    Delivery.objects.filter(_due(stamp), pk__in=candidates).update(
        state=DeliveryState.SENDING, leased_at=stamp
    )
    taken = Delivery.objects.filter(pk__in=candidates, state=DeliveryState.SENDING, leased_at=stamp)
    return list(taken.order_by("next_attempt_at", "id").values_list("pk", flat=True)), stamp


# --- sending ---------------------------------------------------------------------------------------------------------


def _allowed_hosts() -> tuple[str, ...]:
    return tuple(settings.CMS_WEBHOOK_ALLOWED_HOSTS or ())


def post(
    url: str, body: bytes, headers: dict[str, str], kept: safehttp.KeptConnections | None = None
) -> tuple[int | None, str, str]:
    """POST once through the SSRF-safe client: (status or None, the answer's start, error or ""). With ``kept``,
    over a connection kept open from an earlier delivery to the same receiver."""
    timeout = settings.CMS_WEBHOOK_TIMEOUT_SECONDS
    limit = settings.CMS_WEBHOOK_RESPONSE_EXCERPT
    try:
        with safehttp.open_stream(
            url,
            method="POST",
            body=body,
            headers={"Content-Type": "application/json", "User-Agent": USER_AGENT, **headers},
            connect_timeout=timeout,
            read_timeout=timeout,
            total_timeout=timeout * 2,
            max_redirects=0,
            retries=0,
            allow=_allowed_hosts(),
            kept=kept,
        ) as response:
            excerpt = b""
            try:
                for chunk in response.iter_bytes(limit):
                    excerpt += chunk
                    if len(excerpt) >= limit:
                        break
            except safehttp.SafeHttpError:
                pass  # the status is the answer; a body cut short or too slow does not change it
            status = response.status
            error = "" if 200 <= status < 300 else f"The receiver answered {status}."
            return status, excerpt[:limit].decode("utf-8", errors="replace"), error
    except safehttp.SafeHttpError as exc:
        return None, "", str(exc)


def send(delivery_id: str, stamp: datetime) -> bool:
    """One attempt of a claimed delivery; True when the receiver took it."""
    return send_batch([delivery_id], stamp).get(delivery_id, False)


def _timed_post(
    job: tuple[Delivery, datetime, bytes, dict[str, str]], kept: safehttp.KeptConnections
) -> tuple[int | None, str, str, int]:
    delivery, _, body, headers = job
    clock = time.monotonic()
    status, excerpt, error = post(delivery.endpoint.url, body, headers, kept)
    return status, excerpt, error, int((time.monotonic() - clock) * 1000)


def send_batch(ids: list[str], stamp: datetime) -> dict[str, bool]:
    """One attempt of each claimed delivery: read and sign them here, POST them from up to
    CMS_WEBHOOK_CONCURRENCY threads (network only: a slow receiver does not hold up the others), then record the
    outcomes here, where the database connection is. Answers, by delivery, whether the receiver took it."""
    jobs = []
    for delivery in (
        Delivery.objects.select_related("event", "endpoint")
        .filter(pk__in=ids)
        .order_by("next_attempt_at", "id")
    ):
        if not delivery.endpoint.active:
            # Disabled since the claim: given up like its other waiting deliveries.
            _held(delivery, stamp).update(
                state=DeliveryState.FAILED, finished_at=timefmt.now(), leased_at=None, last_error=DISABLED
            )
            continue
        started = timefmt.now()
        body = body_of(delivery.event, delivery.endpoint)
        headers = signing.headers(
            message_id=delivery.event_id,
            when=started,
            body=body,
            secrets_in_use=secrets_in_use(delivery.endpoint, started),
        )
        jobs.append((delivery, started, body, headers))
    if not jobs:
        return {}
    threads = max(1, min(settings.CMS_WEBHOOK_CONCURRENCY, len(jobs)))
    # A batch goes mostly to a few receivers: each thread reuses its connection to one (keep-alive) instead of a
    # new TCP (and TLS) handshake per delivery. Kept for the batch only: nothing stays open between passes.
    with safehttp.KeptConnections(per_host=threads) as kept:
        if threads == 1:
            results = [_timed_post(job, kept) for job in jobs]
        else:
            with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="webhooks") as pool:
                results = list(pool.map(lambda job: _timed_post(job, kept), jobs))
    outcomes: dict[str, bool] = {}
    disabled: set[str] = set()
    # One transaction for the batch's attempts (a commit per delivery was most of a pass's time); the endpoints'
    # runs of failures after it, in order, since one of them may disable an endpoint for the rest.
    with transaction.atomic():
        Attempt.objects.bulk_create(
            [
                Attempt(
                    id=new_id(),
                    delivery=delivery,
                    number=delivery.attempts + 1,
                    started_at=started,
                    duration_ms=duration,
                    status=status,
                    response=excerpt,
                    error=error,
                )
                for (delivery, started, _, _), (status, excerpt, error, duration) in zip(
                    jobs, results, strict=True
                )
            ]
        )
        finished = [
            (delivery, error, status)
            for (delivery, *_), (status, _, error, _) in zip(jobs, results, strict=True)
        ]
        for delivery, error, status in finished:
            _settle(delivery, stamp, status, error)
    for delivery, error, _ in finished:
        ok = not error
        outcomes[delivery.pk] = ok
        endpoint = delivery.endpoint
        if endpoint.pk not in disabled and _record_outcome(endpoint, ok, timefmt.now(), error):
            disabled.add(endpoint.pk)
    return outcomes


def _held(delivery: Delivery, stamp: datetime):
    return Delivery.objects.filter(pk=delivery.pk, state=DeliveryState.SENDING, leased_at=stamp)


def _settle(delivery: Delivery, stamp: datetime, status: int | None, error: str) -> None:
    """The delivery's state after its attempt: delivered, failed for good, or pending its next try."""
    number = delivery.attempts + 1
    finished = timefmt.now()
    if not error:
        changes = {"state": DeliveryState.DELIVERED, "finished_at": finished}
    elif number >= settings.CMS_WEBHOOK_MAX_ATTEMPTS:
        changes = {"state": DeliveryState.FAILED, "finished_at": finished}
    else:
        wait = retry_delay(number) * jitter()
        changes = {"state": DeliveryState.PENDING, "next_attempt_at": finished + wait}
    if error:
        metrics.webhook_delivery_failed(final=changes["state"] == DeliveryState.FAILED)
    held = _held(delivery, stamp)
    if not held.update(attempts=number, last_status=status, last_error=error, leased_at=None, **changes):
        # Another worker took it over (this one was too slow for its lease): its outcome stands.
        logger.warning("webhook delivery lease lost", extra={"delivery": delivery.pk})


def _record_outcome(endpoint: Endpoint, ok: bool, when: datetime, error: str) -> bool:
    """Keep the endpoint's run of failures; True when this one made it long enough to disable the endpoint."""
    rows = Endpoint.objects.filter(pk=endpoint.pk)
    if ok:
        if endpoint.failure_count:
            rows.update(failure_count=0, failing_since=None)
        return False
    rows.filter(failing_since__isnull=True).update(failing_since=when)
    rows.update(failure_count=F("failure_count") + 1)
    current = rows.values("failure_count", "failing_since", "active").first()
    if not current or not current["active"]:
        return False
    long_enough = current["failing_since"] <= when - timedelta(
        seconds=settings.CMS_WEBHOOK_DISABLE_AFTER_SECONDS
    )
    if current["failure_count"] < settings.CMS_WEBHOOK_DISABLE_AFTER_FAILURES or not long_enough:
        return False
    disable(
        endpoint,
        reason=(
            f"Disabled automatically after {current['failure_count']} failed attempts in a row since "
            f"{timefmt.iso(current['failing_since'])}; the last: {error}"
        ),
    )
    return True


def disable(endpoint: Endpoint, *, reason: str) -> None:
    """Stop sending to an endpoint; its deliveries still waiting are given up (each can be redelivered)."""
    when = timefmt.now()
    with transaction.atomic():
        Endpoint.objects.filter(pk=endpoint.pk).update(active=False, disabled_reason=reason, disabled_at=when)
        # A delivery that failed before keeps its own error, followed by why it will not be tried again.
        Delivery.objects.filter(endpoint_id=endpoint.pk, state=DeliveryState.PENDING).update(
            state=DeliveryState.FAILED,
            finished_at=when,
            last_error=Case(
                When(last_error="", then=Value(DISABLED)),
                default=Concat(F("last_error"), Value(f" {DISABLED}"), output_field=TextField()),
                output_field=TextField(),
            ),
        )
        outbox.subscriptions_changed()
    logger.warning("webhook endpoint disabled", extra={"endpoint": endpoint.pk, "reason": reason})


# --- the worker's task -----------------------------------------------------------------------------------------------


def prune(*, before: datetime | None = None) -> int:
    """Delete finished deliveries older than the retention (CMS_WEBHOOK_RETENTION_DAYS), then events left without
    any delivery. Answers how many deliveries went."""
    cutoff = before or timefmt.now() - timedelta(days=settings.CMS_WEBHOOK_RETENTION_DAYS)
    finished = Delivery.objects.filter(
        state__in=(DeliveryState.DELIVERED, DeliveryState.FAILED), finished_at__lt=cutoff
    )
    _, deleted = finished.delete()
    Event.objects.filter(created_at__lt=cutoff, fanned_out=True, deliveries__isnull=True).delete()
    return deleted.get(Delivery._meta.label, 0)


def work_waiting() -> bool:
    """Whether a pass has anything to do: an event not yet fanned out, or a delivery due."""
    return (
        Event.objects.filter(fanned_out=False).exists()
        or Delivery.objects.filter(_due(timefmt.now())).exists()
    )


def run_pass() -> int:
    """Turn new events into deliveries, send what is due now (one batch), prune old rows about once an hour.
    Answers how many deliveries were attempted."""
    global _last_prune
    fan_out(settings.CMS_WEBHOOK_BATCH_SIZE * 4)
    ids, stamp = claim(settings.CMS_WEBHOOK_BATCH_SIZE)
    if ids:
        send_batch(ids, stamp)
    if time.monotonic() - _last_prune > PRUNE_EVERY_SECONDS:
        _last_prune = time.monotonic()
        prune()
    return len(ids)
