"""Gunicorn settings for `make run`, the Docker image and the benchmarks (one configuration, measured in bench/)."""

import multiprocessing
import os
from urllib.parse import urlsplit

_host = os.environ.get("HOST", "127.0.0.1")
bind = (
    f"[{_host}]:{os.environ.get('PORT', '8000')}"
    if ":" in _host
    else f"{_host}:{os.environ.get('PORT', '8000')}"
)


def _default_workers() -> int:
    """Sync workers by where the database does its work (measured on two cores: docs/performance.md, worker count).

    Every worker past the cores only adds context switches while the work is CPU-bound. With PostgreSQL on this
    machine its backends need the same cores, so one worker per core served the most requests with the shortest
    tails (2 workers: 725-816 GET/s; 3: 536-742; 5: 451-596). SQLite works inside the worker: one more covers the
    moments a worker waits on a write lock or fsync. A database elsewhere leaves workers waiting on the network,
    where gunicorn's rule (2 x cores + 1) keeps the cores busy."""
    cores = multiprocessing.cpu_count()
    database = urlsplit(os.environ.get("DATABASE_URL", ""))
    if not database.scheme.startswith("postgres"):
        return cores + 1
    if database.hostname in (None, "", "localhost", "127.0.0.1", "::1"):
        return cores
    return cores * 2 + 1


workers = int(os.environ.get("WEB_CONCURRENCY") or _default_workers())
worker_class = os.environ.get("GUNICORN_WORKER_CLASS", "sync")
threads = int(os.environ.get("GUNICORN_THREADS", "1"))
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "60"))
graceful_timeout = 30
keepalive = 5
# Recycle workers now and then so a slow leak in any library cannot grow without bound.
max_requests = 20000
max_requests_jitter = 2000
# The application logs every request as JSON with its request id; gunicorn's access log would repeat it.
accesslog = None
errorlog = "-"


def post_worker_init(worker):
    """Load every view module now rather than on the first request, then move everything loaded so far out of the
    garbage collector's reach (``gc.freeze``): a full collection otherwise walks the 200,000 objects of the loaded
    code and took about 130 ms every few dozen list pages, a tenth of their time (issue 21)."""
    import gc

    from django.conf import settings

    if settings.configured:
        from django.urls import get_resolver

        get_resolver().url_patterns  # noqa: B018 (the attribute imports the URL configuration and its views)
    gc.collect()
    gc.freeze()
