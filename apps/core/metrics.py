"""Prometheus metrics (issue 24): every metric the CMS records, the small API the rest of the code calls to record
them, and the text exposition served at ``GET /_cms/metrics`` (``apps/core/metrics_view.py``).

Code elsewhere never touches prometheus-client: it calls ``observe_publish_lag(seconds)``, ``imported(kind, n)`` and
the like, so names, labels and buckets are decided here, once. Labels are kept bounded: a request is labelled by the
URL pattern it resolved to (``/_cms/api/content/<str:collection>``), never by its raw path.

Under gunicorn every worker process has its own counters. With ``PROMETHEUS_MULTIPROC_DIR`` set (``scripts/serve.sh``
does it when metrics are enabled) prometheus-client writes them to memory-mapped files in that directory and a scrape
adds up the files of every process (``MultiProcessCollector``), the background worker's included; the variable must be
set before the first metric is built, which is why it comes from the environment and not from settings.

Other branches add their own figures in two ways: a metric built with prometheus-client anywhere (multi-process mode
writes it to the same directory; single-process mode registers it in the default registry, which is exposed), or a
collector computed at scrape time (queue depths read from the database) given to ``register_collector``.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from functools import lru_cache, wraps
from typing import Any, TypeVar

from django.conf import settings
from prometheus_client import REGISTRY, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.registry import Collector

logger = logging.getLogger("cms.metrics")
F = TypeVar("F", bound=Callable[..., Any])

MULTIPROC_DIR = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
if MULTIPROC_DIR:
    # A process started without serve.sh (a management command) must not fail on its first counter.
    os.makedirs(MULTIPROC_DIR, exist_ok=True)

# Seconds. Most API answers take milliseconds; the long tail (imports in the request, uploads) takes seconds.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
# Queries per request: a read is 2, a write a dozen; past a hundred is an N+1 to look at.
QUERY_BUCKETS = (0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233)
# Seconds between an entry's scheduled time and its publication: a worker polling every few seconds gives single
# digits; minutes mean the worker is late or stopped.
LAG_BUCKETS = (0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0)

REQUESTS = Counter(
    "cms_http_requests",
    "HTTP requests answered by Django, by method, URL pattern and status.",
    ("method", "route", "status"),
)
REQUEST_SECONDS = Histogram(
    "cms_http_request_duration_seconds",
    "Time Django took to answer, by method, URL pattern and status.",
    ("method", "route", "status"),
    buckets=LATENCY_BUCKETS,
)
REQUEST_QUERIES = Histogram(
    "cms_db_queries_per_request",
    "Database queries run while answering one request, by method and URL pattern.",
    ("method", "route"),
    buckets=QUERY_BUCKETS,
)
SEARCH_SECONDS = Histogram(
    "cms_search_duration_seconds",
    "Time of one full-text search (kind=search) or suggestion (kind=suggest), checks and query included.",
    ("kind",),
    buckets=LATENCY_BUCKETS,
)
WEBHOOK_FAILURES = Counter(
    "cms_webhook_delivery_failures",
    "Failed webhook delivery attempts: outcome=retry (another attempt is scheduled) or failed (given up).",
    ("outcome",),
)
IMPORTED = Counter(
    "cms_import_items",
    "Items committed by imports: kind=item (the export's items: posts, pages, attachments' records …) or media "
    "(files downloaded and stored).",
    ("kind",),
)
PUBLISH_LAG = Histogram(
    "cms_scheduled_publish_lag_seconds",
    "Seconds between an entry's scheduled time and the moment the worker published it.",
    buckets=LAG_BUCKETS,
)

TASK_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 300.0, 1800.0)
TASKS_FINISHED = Counter(
    "cms_tasks_finished",
    "Background tasks finished, by queue, task and outcome (ok or failed; a failed attempt that will be retried "
    "counts as failed).",
    ("queue", "task", "outcome"),
)
TASK_WAIT = Histogram(
    "cms_task_wait_seconds",
    "Seconds between when a task could first run and when a worker started it, by queue.",
    ("queue",),
    buckets=TASK_BUCKETS,
)
TASK_SECONDS = Histogram(
    "cms_task_duration_seconds", "Seconds a task ran, by queue.", ("queue",), buckets=TASK_BUCKETS
)

# Routes of requests no URL pattern matched (unknown paths, answered 404), in one series.
UNMATCHED = "<unmatched>"


# The children of one (method, route, status), looked up once: ``labels()`` takes a lock and builds keys, which was
# most of the middleware's own cost. Bounded like the labels themselves (routes x methods x statuses).
_request_series: dict[tuple[str, str, int], tuple[Any, Any, Any]] = {}


def observe_request(method: str, route: str, status: int, seconds: float, queries: int | None) -> None:
    """One answered request; ``queries`` None for the answers given before Django, whose queries are not counted."""
    key = (method, route, status)
    series = _request_series.get(key)
    if series is None:
        status_text = str(status)
        series = _request_series[key] = (
            REQUESTS.labels(method, route, status_text),
            REQUEST_SECONDS.labels(method, route, status_text),
            REQUEST_QUERIES.labels(method, route),
        )
    count, latency, per_request = series
    count.inc()
    latency.observe(seconds)
    if queries is not None:
        per_request.observe(queries)


# Set in the WSGI environ by a fast path (apps/delivery/fastpath.py, apps/media/fastpath.py) that answers a request
# itself: the URL pattern Django would have matched, so those answers join the same series.
ROUTE_KEY = "cms.metrics.route"


@lru_cache(maxsize=16)
def route_of(example_path: str) -> str:
    """The URL pattern Django matches for ``example_path`` (a fast path names its route by an example of it)."""
    from django.urls import resolve

    return "/" + resolve(example_path).route


class AnswersBeforeDjango:
    """WSGI wrapper outside the fast paths: counts and times the requests they answer, which never reach
    ``MetricsMiddleware``. Django's answers carry no ``ROUTE_KEY`` and are left to the middleware. While metrics are
    off it only passes the request on."""

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        if not settings.CMS_METRICS_TOKEN:
            return self.application(environ, start_response)
        started = time.perf_counter()
        status: list[str] = []

        def capture(line, headers, exc_info=None):
            status.append(line)
            return start_response(line, headers, exc_info) if exc_info else start_response(line, headers)

        body = self.application(environ, capture)
        route = environ.get(ROUTE_KEY)
        if route is not None and status:
            observe_request(
                environ.get("REQUEST_METHOD", "GET"),
                route,
                int(status[-1][:3]),
                time.perf_counter() - started,
                None,
            )
        return body


def observe_search(kind: str) -> Callable[[F], F]:
    """Decorator timing a search selector, also when it raises (a refused query is part of the load)."""

    def wrap(function: F) -> F:
        histogram = SEARCH_SECONDS.labels(kind)

        @wraps(function)
        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                histogram.observe(time.perf_counter() - started)

        return timed  # type: ignore[return-value]

    return wrap


def webhook_delivery_failed(*, final: bool) -> None:
    WEBHOOK_FAILURES.labels("failed" if final else "retry").inc()


def imported(kind: str, count: int) -> None:
    if count > 0:
        IMPORTED.labels(kind).inc(count)


def task_finished(*, queue: str, task: str, ok: bool, waited: float, took: float) -> None:
    TASKS_FINISHED.labels(queue, task, "ok" if ok else "failed").inc()
    TASK_WAIT.labels(queue).observe(waited)
    TASK_SECONDS.labels(queue).observe(took)


def observe_publish_lag(seconds: float) -> None:
    PUBLISH_LAG.observe(max(0.0, seconds))


# --- Collectors computed at scrape time ------------------------------------------------------------------------------

_collectors: list[Collector] = []
_collectors_lock = threading.Lock()


class _Guarded:
    """A registered collector whose failure (its database unreachable) costs its own figures, not the scrape."""

    def __init__(self, collector: Collector):
        self.collector = collector

    def collect(self) -> Iterator[Any]:
        try:
            families = list(self.collector.collect())
        except Exception:
            logger.warning("metrics collector %r failed", self.collector, exc_info=True)
            return iter(())
        return iter(families)

    def describe(self) -> list[Any]:
        # Not described ahead: the registry would otherwise call collect() once at registration.
        return []


def register_collector(collector: Collector) -> None:
    """Add a collector (an object with ``collect()`` yielding metric families) to every scrape of this process.
    Registering the same object twice keeps it once."""
    with _collectors_lock:
        if all(existing is not collector for existing in _collectors):
            _collectors.append(collector)


def unregister_collector(collector: Collector) -> None:
    with _collectors_lock:
        _collectors[:] = [existing for existing in _collectors if existing is not collector]


class _Process:
    """This process's own registry (single-process mode): the metrics above, prometheus-client's process and
    garbage-collector figures, and any metric another module built."""

    def collect(self) -> Iterator[Any]:
        return REGISTRY.collect()

    def describe(self) -> list[Any]:
        return []


def exposition() -> bytes:
    """The text exposition format (version 0.0.4) of everything this node records."""
    registry = CollectorRegistry(auto_describe=False)
    if MULTIPROC_DIR:
        from prometheus_client import multiprocess

        multiprocess.MultiProcessCollector(registry, path=MULTIPROC_DIR)
    else:
        registry.register(_Process())
    with _collectors_lock:
        extra = list(_collectors)
    for collector in extra:
        registry.register(_Guarded(collector))
    return generate_latest(registry)
