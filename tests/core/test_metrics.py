"""Prometheus metrics (issue 24): ``GET /_cms/metrics`` is the 404 of any unknown path while ``CMS_METRICS_TOKEN`` is
unset, 401 in the envelope without that bearer token, and the text format with it; requests are counted and timed by
the URL pattern they matched (never the raw path), with their queries; searches and scheduled publications are timed;
a collector registered by other code is scraped with the rest."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from prometheus_client.core import GaugeMetricFamily

from apps.content.services import lifecycle
from apps.core import metrics
from apps.core.timefmt import now
from tests.factories import make_collection, make_entry
from tests.metrics import METRICS, TOKEN, parse, scrape, value
from tests.wsgi import wsgi_call

UNAUTHORIZED = {
    "success": False,
    "error": {
        "code": "UNAUTHORIZED",
        "message": "Send 'Authorization: Bearer <CMS_METRICS_TOKEN>' to read the metrics.",
        "details": {},
    },
}


def test_metrics_are_the_404_of_any_unknown_path_while_no_token_is_set(settings):
    settings.CMS_METRICS_TOKEN = None
    client = Client()

    response = client.get(METRICS, HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    unknown = client.get("/_cms/no-such-thing")

    assert response.status_code == 404
    assert unknown.status_code == 404
    assert response.content == unknown.content.replace(b"/_cms/no-such-thing", b"/_cms/metrics")
    assert response["Content-Type"] == unknown["Content-Type"]


@pytest.mark.parametrize(
    "authorization",
    [None, "Bearer wrong-token", f"Basic {TOKEN}", f"Bearer {TOKEN}x", "Bearer"],
    ids=["none", "wrong", "basic", "longer", "empty"],
)
def test_metrics_without_the_token_are_401_in_the_envelope(metrics_on, authorization):
    headers = {"HTTP_AUTHORIZATION": authorization} if authorization else {}

    response = Client().get(METRICS, **headers)

    assert response.status_code == 401
    assert response.json() == UNAUTHORIZED
    assert response["WWW-Authenticate"] == 'Bearer realm="cms"'
    assert response["Cache-Control"] == "no-store"


def test_metrics_with_the_token_are_the_text_format(metrics_on, db):
    # A request counted first: a fresh process has no request series yet, whichever test ran before.
    assert Client().get("/_cms/api/health").status_code == 200
    response = Client().get(METRICS, HTTP_AUTHORIZATION=f"Bearer {TOKEN}")

    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; version=1.0.0; charset=utf-8"
    assert response["Cache-Control"] == "no-store"
    families = {name for name, _ in parse(response.content.decode())}
    assert {"cms_http_requests_total", "cms_http_request_duration_seconds_bucket"} <= families


def test_metrics_answer_only_get_and_head(metrics_on):
    response = Client().post(METRICS, HTTP_AUTHORIZATION=f"Bearer {TOKEN}")

    assert response.status_code == 405


def test_a_request_is_counted_and_timed_by_its_route_and_status(metrics_on, api):
    route = {"method": "GET", "route": "/_cms/api/health", "status": "200"}
    api.get("/_cms/api/health")  # the process's first also reads the applied migrations
    before = scrape()

    assert api.get("/_cms/api/health").status_code == 200
    assert api.get("/_cms/api/health").status_code == 200

    after = scrape()
    assert (
        value(after, "cms_http_requests_total", **route) - value(before, "cms_http_requests_total", **route)
        == 2
    )
    count = "cms_http_request_duration_seconds_count"
    assert value(after, count, **route) - value(before, count, **route) == 2
    # The health check's SELECT 1 runs on a connection of its own (so that a hung database cannot hold the
    # request: apps/core/readiness.py), once migrations were seen applied: the request itself runs none.
    queries = {"method": "GET", "route": "/_cms/api/health"}
    for bucket, expected in (("0.0", 2), ("+Inf", 2)):
        name = "cms_db_queries_per_request_bucket"
        moved = value(after, name, le=bucket, **queries) - value(before, name, le=bucket, **queries)
        assert moved == expected, bucket


def test_the_queries_a_request_runs_are_observed(metrics_on, admin_api):
    entry = make_entry(make_collection("notes", fields=[{"slug": "title", "type": "string"}]), {"title": "A"})
    path = f"/_cms/api/content/notes/{entry.pk}"
    queries = {"method": "GET", "route": "/_cms/api/content/<str:collection>/<str:ref>"}
    admin_api.get(path)  # the process's first request warms caches a second one would not query again
    before = scrape()

    assert admin_api.get(path).status_code == 200

    after = scrape()
    # An entry read with a bearer token costs two queries (tests/content/test_schema_cache.py).
    total = "cms_db_queries_per_request_sum"
    assert value(after, total, **queries) - value(before, total, **queries) == 2
    count = "cms_db_queries_per_request_count"
    assert value(after, count, **queries) - value(before, count, **queries) == 1


def test_routes_with_parameters_are_labelled_by_their_pattern_not_their_path(metrics_on, admin_api):
    assert admin_api.get("/_cms/api/content/some-collection/some-entry").status_code == 404
    assert admin_api.get("/_cms/api/definitely/not/a/route").status_code == 404

    samples = scrape()
    text = repr(samples)
    assert "some-entry" not in text
    assert "definitely" not in text
    pattern = "/_cms/api/content/<str:collection>/<str:ref>"
    assert value(samples, "cms_http_requests_total", method="GET", route=pattern, status="404") >= 1
    assert value(samples, "cms_http_requests_total", method="GET", route="<unmatched>", status="404") >= 1


def test_searches_are_timed(metrics_on, admin_api):
    make_collection("posts", fields=[{"slug": "title"}])
    before = scrape()

    assert admin_api.get("/_cms/api/search", {"q": "hello"}).status_code == 200

    count = "cms_search_duration_seconds_count"
    assert value(scrape(), count, kind="search") - value(before, count, kind="search") == 1


def test_scheduled_publication_lag_is_observed(metrics_on):
    posts = make_collection(
        "posts", supports=["drafts", "scheduling"], fields=[{"slug": "title", "required": True}]
    )
    entry = make_entry(posts, {"title": "Late"}, status="draft")
    # Scheduled two minutes ago: the worker that publishes it now is two minutes late.
    type(entry).objects.filter(pk=entry.pk).update(
        status="scheduled", scheduled_at=now() - timedelta(minutes=2)
    )
    before = scrape()

    assert [published.pk for published in lifecycle.publish_due()] == [entry.pk]

    after = scrape()
    lag = "cms_scheduled_publish_lag_seconds"
    assert value(after, f"{lag}_count") - value(before, f"{lag}_count") == 1
    assert 120 <= value(after, f"{lag}_sum") - value(before, f"{lag}_sum") < 3600
    assert value(after, f"{lag}_bucket", le="60.0") == value(before, f"{lag}_bucket", le="60.0")
    assert value(after, f"{lag}_bucket", le="300.0") - value(before, f"{lag}_bucket", le="300.0") == 1


def test_a_registered_collector_is_scraped_and_its_failure_costs_only_its_figures(metrics_on):
    class Queues:
        def collect(self):
            family = GaugeMetricFamily("cms_test_queue_depth", "Waiting tasks.", labels=["queue"])
            family.add_metric(["default"], 7)
            yield family

    class Broken:
        def collect(self):
            raise RuntimeError("database down")

    queues, broken = Queues(), Broken()
    metrics.register_collector(queues)
    metrics.register_collector(queues)
    metrics.register_collector(broken)
    try:
        samples = scrape()
    finally:
        metrics.unregister_collector(queues)
        metrics.unregister_collector(broken)

    assert value(samples, "cms_test_queue_depth", queue="default") == 7
    assert ("cms_test_queue_depth", (("queue", "default"),)) in samples
    assert value(scrape(), "cms_test_queue_depth", queue="default") == 0


def test_answers_given_before_django_are_counted_by_the_route_django_would_match(metrics_on, admin_api):
    posts = make_collection("posts", fields=[{"slug": "title"}], public=True)
    entry = make_entry(posts, {"title": "Kept"}, status="published")
    path = f"/_cms/api/content/posts/{entry.pk}"
    etag = Client().get(path)["ETag"]
    route = {"method": "GET", "route": "/_cms/api/content/<str:collection>/<str:ref>", "status": "304"}
    before = scrape()

    status, _headers, _body = wsgi_call(path, HTTP_IF_NONE_MATCH=etag)

    assert status == "304 Not Modified"
    after = scrape()
    assert (
        value(after, "cms_http_requests_total", **route) - value(before, "cms_http_requests_total", **route)
        == 1
    )
    count = "cms_http_request_duration_seconds_count"
    assert value(after, count, **route) - value(before, count, **route) == 1
    # Answered by the fast path, not by Django's middleware, which would have counted its queries.
    queries = {"method": "GET", "route": route["route"]}
    name = "cms_db_queries_per_request_count"
    assert value(after, name, **queries) == value(before, name, **queries)
