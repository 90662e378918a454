"""Gunicorn settings for `make run`, the Docker image and the benchmarks (one configuration, measured in bench/)."""

import multiprocessing
import os

_host = os.environ.get("HOST", "127.0.0.1")
bind = (
    f"[{_host}]:{os.environ.get('PORT', '8000')}"
    if ":" in _host
    else f"{_host}:{os.environ.get('PORT', '8000')}"
)
workers = int(os.environ.get("WEB_CONCURRENCY") or multiprocessing.cpu_count() * 2 + 1)
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
