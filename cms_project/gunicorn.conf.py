"""Gunicorn settings for `make run`, the Docker image and the benchmarks (one configuration, measured in bench/)."""

import multiprocessing
import os
import shutil
import tempfile
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
# Gunicorn's own lines in the application's JSON format (cms_project/gunicorn_logging.py). The application already
# logs every request it answers, with its request id; gunicorn's access log, off by default, would repeat those and add
# the answers given before Django (GUNICORN_ACCESS_LOG=1; its lines go to standard output, the rest to standard error).
logger_class = "cms_project.gunicorn_logging.JsonLogger"
accesslog = "-" if os.environ.get("GUNICORN_ACCESS_LOG", "").lower() in {"1", "true", "yes", "on"} else None
errorlog = "-"


def _metrics_dir() -> tuple[str | None, bool]:
    """Prometheus multi-process mode while metrics are on (CMS_METRICS_TOKEN; apps/core/metrics.py): every process
    writes its figures to files in PROMETHEUS_MULTIPROC_DIR and a scrape adds them up. scripts/serve.sh prepares
    the directory for gunicorn and the background worker alike; gunicorn started by itself makes a fresh one, which
    it removes on exit. The variable must be in the environment before a worker imports the application."""
    if not os.environ.get("CMS_METRICS_TOKEN"):
        return None, False
    given = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if given:
        os.makedirs(given, exist_ok=True)
        return given, False
    made = tempfile.mkdtemp(prefix="cms-metrics-")
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = made
    return made, True


_metrics_path, _metrics_path_ours = _metrics_dir()


def child_exit(server, worker):
    """A worker has exited (recycled, killed, timed out): its live gauges leave the scrape; its counters stay."""
    if _metrics_path:
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid, _metrics_path)


def on_exit(server):
    if _metrics_path and _metrics_path_ours:
        shutil.rmtree(_metrics_path, ignore_errors=True)


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
