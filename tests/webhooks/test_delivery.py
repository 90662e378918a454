"""Delivery to a real receiver: signatures checked by hand, retries on a schedule read from a clock the test moves,
receivers that are down, fail or hang, a worker killed mid-delivery, the SSRF guard, disabling and retention."""

from __future__ import annotations

from datetime import timedelta

import pytest

from apps.webhooks import delivery
from apps.webhooks.models import Attempt, Delivery, Event
from tests.factories import make_entry
from tests.webhooks.conftest import create_endpoint, run_worker, run_worker_command, signature_valid


def deliveries(api, endpoint_id: str) -> list[dict]:
    return api.get(f"/_cms/api/webhooks/{endpoint_id}/deliveries").json()["data"]["items"]


def test_a_delivery_is_signed_the_standard_webhooks_way(admin_api, posts_collection, receiver, clock):
    hook = create_endpoint(admin_api, receiver.url)
    entry = make_entry(posts_collection, {"title": "Signed"})
    assert run_worker() == 1

    [(headers, body)] = receiver.requests
    event = Event.objects.get()
    assert headers["webhook-id"] == event.pk
    assert headers["webhook-timestamp"] == str(int(clock.now.timestamp()))
    assert headers["content-type"] == "application/json"
    assert signature_valid(hook["secret"], headers, body)
    assert not signature_valid("whsec_" + "A" * 44, headers, body)
    assert receiver.payloads()[0]["data"]["id"] == entry.pk
    [item] = deliveries(admin_api, hook["id"])
    assert item["state"] == "delivered"
    assert item["attempts"] == [
        {
            "number": 1,
            "startedAt": item["attempts"][0]["startedAt"],
            "durationMs": item["attempts"][0]["durationMs"],
            "status": 204,
            "response": "",
            "error": "",
        }
    ]
    # Nothing is sent twice.
    assert run_worker() == 0
    assert len(receiver.requests) == 1


def test_one_pass_keeps_its_connection_to_a_receiver_open(admin_api, posts_collection, receiver, settings):
    settings.CMS_WEBHOOK_CONCURRENCY = 1
    create_endpoint(admin_api, receiver.url)
    for n in range(5):
        make_entry(posts_collection, {"title": f"Kept {n}"})
    assert run_worker() == 5
    assert len(receiver.requests) == 5
    # Five deliveries over one TCP connection (keep-alive), each still signed and recorded.
    assert len(set(receiver.connections)) == 1
    assert Delivery.objects.filter(state="delivered").count() == 5


def test_an_answer_longer_than_the_excerpt_closes_its_connection_and_the_next_delivery_still_goes(
    admin_api, posts_collection, receiver, settings
):
    settings.CMS_WEBHOOK_CONCURRENCY = 1
    settings.CMS_WEBHOOK_RESPONSE_EXCERPT = 16
    receiver.status = 200
    receiver.answer = b"x" * 100_000
    create_endpoint(admin_api, receiver.url)
    for n in range(3):
        make_entry(posts_collection, {"title": f"Long answer {n}"})
    assert run_worker() == 3
    # Unread answers are not left on a kept connection (the next request would read them): one connection each.
    assert len(set(receiver.connections)) == 3
    assert [a.response for a in Attempt.objects.order_by("started_at", "id")] == ["x" * 16] * 3
    assert Delivery.objects.filter(state="delivered").count() == 3


def test_failed_attempts_are_retried_with_exponential_backoff(
    admin_api, posts_collection, receiver, clock, fixed_jitter, settings
):
    settings.CMS_WEBHOOK_MAX_ATTEMPTS = 4
    receiver.status = 500
    receiver.answer = b'{"error": "database down"}'
    hook = create_endpoint(admin_api, receiver.url)
    make_entry(posts_collection, {"title": "Retry me"})
    start = clock.now
    waits = [timedelta(minutes=1), timedelta(minutes=4), timedelta(minutes=16)]
    assert run_worker() == 1
    for wait in waits:
        [item] = deliveries(admin_api, hook["id"])
        assert item["state"] == "pending"
        due = clock.now + wait
        assert item["nextAttemptAt"] == due.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        clock.advance(seconds=wait.total_seconds() - 1)
        assert run_worker() == 0  # not due yet
        clock.advance(seconds=1)
        assert run_worker() == 1
    [item] = deliveries(admin_api, hook["id"])
    assert item["state"] == "failed"
    assert [(a["number"], a["status"], a["response"], a["error"]) for a in item["attempts"]] == [
        (n, 500, '{"error": "database down"}', "The receiver answered 500.") for n in range(1, 5)
    ]
    assert clock.now - start == sum(waits, timedelta())
    # The same message every time: one webhook-id, so the receiver can drop duplicates.
    assert len({headers["webhook-id"] for headers, _ in receiver.requests}) == 1


def test_the_default_schedule_spans_about_a_day(settings):
    waits = [delivery.retry_delay(n) for n in range(1, settings.CMS_WEBHOOK_MAX_ATTEMPTS)]
    assert waits == sorted(waits)
    assert timedelta(hours=20) <= sum(waits, timedelta()) <= timedelta(hours=30)


def test_jitter_spreads_retries_within_a_fifth(admin_api, posts_collection, receiver, clock, monkeypatch):
    receiver.status = 503
    hook = create_endpoint(admin_api, receiver.url)
    monkeypatch.setattr(delivery, "jitter", lambda: 1.2)
    make_entry(posts_collection, {"title": "Spread"})
    run_worker()
    [item] = deliveries(admin_api, hook["id"])
    due = clock.now + timedelta(seconds=72)
    assert item["nextAttemptAt"] == due.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def test_a_receiver_that_is_down_gets_the_event_once_it_is_up(
    admin_api, posts_collection, receiver, clock, fixed_jitter
):
    hook = create_endpoint(admin_api, receiver.url)
    receiver.stop()
    make_entry(posts_collection, {"title": "Wait for me"})
    assert run_worker() == 1
    [item] = deliveries(admin_api, hook["id"])
    assert item["state"] == "pending"
    assert item["attempts"][0]["status"] is None
    assert item["attempts"][0]["error"].startswith("Could not connect to 127.0.0.1")
    receiver.start()
    clock.advance(minutes=1)
    assert run_worker() == 1
    [item] = deliveries(admin_api, hook["id"])
    assert item["state"] == "delivered"
    assert [a["status"] for a in item["attempts"]] == [None, 204]
    assert len(receiver.requests) == 1


def test_a_receiver_that_hangs_times_out_and_is_retried(
    admin_api, posts_collection, receiver, clock, fixed_jitter, settings
):
    settings.CMS_WEBHOOK_TIMEOUT_SECONDS = 0.3
    hook = create_endpoint(admin_api, receiver.url)
    receiver.hang()
    make_entry(posts_collection, {"title": "Slow"})
    assert run_worker() == 1
    [item] = deliveries(admin_api, hook["id"])
    assert item["state"] == "pending"
    assert item["attempts"][0]["error"] == "127.0.0.1 did not answer in time."
    receiver.release()
    clock.advance(minutes=1)
    assert run_worker() == 1
    [item] = deliveries(admin_api, hook["id"])
    assert item["state"] == "delivered"


def test_a_delivery_whose_worker_died_is_sent_again_after_its_lease(
    admin_api, posts_collection, receiver, clock, settings
):
    settings.CMS_WEBHOOK_LEASE_SECONDS = 120
    hook = create_endpoint(admin_api, receiver.url)
    make_entry(posts_collection, {"title": "Survivor"})
    # A worker claims the delivery and is killed before it records anything (as `kill -9` mid-request would).
    delivery.fan_out(10)
    claimed, _stamp = delivery.claim(10)
    assert len(claimed) == 1
    assert Delivery.objects.get().state == "sending"
    # While its lease runs, no other worker sends it: never two at once.
    clock.advance(seconds=119)
    assert run_worker() == 0
    clock.advance(seconds=2)
    assert run_worker() == 1
    [item] = deliveries(admin_api, hook["id"])
    assert item["state"] == "delivered"
    assert len(receiver.requests) == 1


def test_a_slow_worker_that_lost_its_lease_does_not_overwrite_the_new_owner(
    admin_api, posts_collection, receiver, clock
):
    create_endpoint(admin_api, receiver.url)
    make_entry(posts_collection, {"title": "Contested"})
    delivery.fan_out(10)
    [first], stale = delivery.claim(10)
    clock.advance(seconds=600)
    [second], fresh = delivery.claim(10)
    assert first == second
    assert delivery.send(second, fresh) is True
    receiver.status = 500
    delivery.send(first, stale)  # the old owner finishes late: its outcome is not recorded over the new one
    row = Delivery.objects.get()
    assert (row.state, row.last_status) == ("delivered", 204)
    assert Attempt.objects.count() == 2  # both attempts happened and are kept


def test_private_addresses_are_refused_without_the_setting(admin_api, posts_collection, receiver, settings):
    settings.CMS_WEBHOOK_ALLOWED_HOSTS = []
    response = admin_api.post("/_cms/api/webhooks", {"url": receiver.url}, format="json")
    assert response.status_code == 400
    message = response.json()["error"]["details"]["url"]
    assert message == (
        "127.0.0.1 is not fetched: it resolves to a loopback address (127.0.0.1). "
        "An operator can allow it with CMS_WEBHOOK_ALLOWED_HOSTS."
    )
    # A host name is checked when sending (its addresses can change): localhost is refused then.
    hook = create_endpoint(admin_api, f"http://localhost:{receiver.port}/hooks")
    make_entry(posts_collection, {"title": "Not for you"})
    run_worker()
    [item] = deliveries(admin_api, hook["id"])
    assert item["attempts"][0]["error"].startswith(
        "localhost is not fetched: it resolves to a loopback address"
    )
    assert receiver.requests == []


def test_the_setting_can_allow_one_port_only(admin_api, receiver, settings):
    settings.CMS_WEBHOOK_ALLOWED_HOSTS = [f"127.0.0.1:{receiver.port}"]
    assert admin_api.post("/_cms/api/webhooks", {"url": receiver.url}, format="json").status_code == 201
    other = f"http://127.0.0.1:{receiver.port + 1}/hooks"
    assert admin_api.post("/_cms/api/webhooks", {"url": other}, format="json").status_code == 400


def test_an_endpoint_failing_for_long_is_disabled_with_the_reason(
    admin_api, posts_collection, receiver, clock, fixed_jitter, settings
):
    settings.CMS_WEBHOOK_DISABLE_AFTER_FAILURES = 3
    settings.CMS_WEBHOOK_DISABLE_AFTER_SECONDS = 3600
    receiver.status = 410
    hook = create_endpoint(admin_api, receiver.url)
    for title in ("One", "Two", "Three"):
        make_entry(posts_collection, {"title": title})
    assert run_worker() == 3  # three failures in a row, but within the hour: still on
    assert admin_api.get(f"/_cms/api/webhooks/{hook['id']}").json()["data"]["active"] is True
    clock.advance(hours=2)
    make_entry(posts_collection, {"title": "Four"})
    run_worker()
    answer = admin_api.get(f"/_cms/api/webhooks/{hook['id']}").json()["data"]
    assert answer["active"] is False
    assert answer["failureCount"] == 4
    assert answer["disabledReason"] == (
        "Disabled automatically after 4 failed attempts in a row since 2026-03-01T12:00:00.000Z; "
        "the last: The receiver answered 410."
    )
    items = deliveries(admin_api, hook["id"])
    assert {item["state"] for item in items} == {"failed"}
    # Sent in the same pass as the one that disabled it: kept, and given up.
    assert (
        sorted(item["lastError"] for item in items)[-1]
        == "The receiver answered 410. The endpoint was disabled."
    )
    # A disabled endpoint gets no new events; turning it on again clears the reason.
    make_entry(posts_collection, {"title": "Five"})
    assert len(deliveries(admin_api, hook["id"])) == 4
    answer = admin_api.patch(f"/_cms/api/webhooks/{hook['id']}", {"active": True}, format="json").json()[
        "data"
    ]
    assert (answer["active"], answer["disabledReason"], answer["failureCount"]) == (True, None, 0)


def test_a_failed_delivery_can_be_redelivered(admin_api, posts_collection, receiver, clock, settings):
    settings.CMS_WEBHOOK_MAX_ATTEMPTS = 1
    receiver.status = 500
    hook = create_endpoint(admin_api, receiver.url)
    make_entry(posts_collection, {"title": "Again"})
    run_worker()
    [failed] = deliveries(admin_api, hook["id"])
    assert failed["state"] == "failed"
    receiver.status = 200
    response = admin_api.post(f"/_cms/api/webhooks/deliveries/{failed['id']}/redeliver")
    assert response.status_code == 201
    again = response.json()["data"]
    assert (again["state"], again["eventId"], again["attempts"]) == ("pending", failed["eventId"], [])
    run_worker()
    states = {item["id"]: item["state"] for item in deliveries(admin_api, hook["id"])}
    assert states == {failed["id"]: "failed", again["id"]: "delivered"}
    assert [headers["webhook-id"] for headers, _ in receiver.requests] == [failed["eventId"]] * 2


def test_rotation_keeps_the_old_secret_signing_during_the_grace_period(
    admin_api, posts_collection, receiver, clock
):
    hook = create_endpoint(admin_api, receiver.url)
    response = admin_api.post(
        f"/_cms/api/webhooks/{hook['id']}/rotate-secret", {"gracePeriodSeconds": 3600}, format="json"
    )
    assert response.status_code == 200
    rotated = response.json()["data"]
    assert rotated["secret"].startswith("whsec_") and rotated["secret"] != hook["secret"]
    expires = clock.now + timedelta(hours=1)
    assert rotated["previousSecretExpiresAt"] == expires.isoformat(timespec="milliseconds").replace(
        "+00:00", "Z"
    )
    make_entry(posts_collection, {"title": "During"})
    run_worker()
    headers, body = receiver.requests[-1]
    assert len(headers["webhook-signature"].split(" ")) == 2
    assert signature_valid(hook["secret"], headers, body)
    assert signature_valid(rotated["secret"], headers, body)
    clock.advance(hours=1, seconds=1)
    make_entry(posts_collection, {"title": "After"})
    run_worker()
    headers, body = receiver.requests[-1]
    assert signature_valid(rotated["secret"], headers, body)
    assert not signature_valid(hook["secret"], headers, body)


def test_old_finished_deliveries_are_pruned(admin_api, posts_collection, receiver, clock, settings):
    settings.CMS_WEBHOOK_RETENTION_DAYS = 7
    create_endpoint(admin_api, receiver.url)
    make_entry(posts_collection, {"title": "Old"})
    run_worker()
    clock.advance(days=8)
    make_entry(posts_collection, {"title": "New"})
    assert delivery.prune() == 1
    assert [(event.type, event.fanned_out) for event in Event.objects.all()] == [("entry.created", False)]
    assert Delivery.objects.count() == 0
    run_worker()
    assert Delivery.objects.get().state == "delivered"


@pytest.mark.django_db(transaction=True)
def test_the_worker_command_sends_the_outbox(admin_api, posts_collection, receiver):
    hook = create_endpoint(admin_api, receiver.url)
    make_entry(posts_collection, {"title": "Via the command"})
    assert "webhooks: 1" in run_worker_command()
    assert signature_valid(hook["secret"], *receiver.requests[0])
