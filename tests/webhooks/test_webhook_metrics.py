"""Webhook delivery failures in the metrics (issue 24): each failed attempt counts once, as `retry` while another
attempt is scheduled and as `failed` when the delivery is given up."""

from __future__ import annotations

from tests.factories import make_entry
from tests.metrics import scrape, value
from tests.webhooks.conftest import create_endpoint, run_worker

FAILURES = "cms_webhook_delivery_failures_total"


def test_failed_attempts_are_counted_by_outcome(
    metrics_on, admin_api, posts_collection, receiver, clock, fixed_jitter, settings
):
    settings.CMS_WEBHOOK_MAX_ATTEMPTS = 2
    receiver.status = 500
    create_endpoint(admin_api, receiver.url)
    make_entry(posts_collection, {"title": "Refused"})
    before = scrape()

    assert run_worker() == 1
    middle = scrape()
    clock.advance(minutes=1)
    assert run_worker() == 1
    after = scrape()

    assert value(middle, FAILURES, outcome="retry") - value(before, FAILURES, outcome="retry") == 1
    assert value(middle, FAILURES, outcome="failed") == value(before, FAILURES, outcome="failed")
    assert value(after, FAILURES, outcome="retry") == value(middle, FAILURES, outcome="retry")
    assert value(after, FAILURES, outcome="failed") - value(middle, FAILURES, outcome="failed") == 1


def test_a_delivered_attempt_counts_no_failure(metrics_on, admin_api, posts_collection, receiver, clock):
    create_endpoint(admin_api, receiver.url)
    make_entry(posts_collection, {"title": "Taken"})
    before = scrape()

    assert run_worker() == 1

    after = scrape()
    for outcome in ("retry", "failed"):
        assert value(after, FAILURES, outcome=outcome) == value(before, FAILURES, outcome=outcome)
