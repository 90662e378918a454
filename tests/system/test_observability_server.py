"""Metrics and logs under the real server (issue 24): ``scripts/serve.sh`` with metrics on runs gunicorn's workers
and the background worker in Prometheus multi-process mode (the directory emptied at start, every worker's requests
in one scrape), and every line gunicorn writes is JSON like the application's, its access lines carrying the
request id. Runs against the database of the current test pass."""

from __future__ import annotations

import json
import os
import sys

import pytest
import requests

from tests.factories import database_url
from tests.metrics import METRICS, TOKEN, parse, value
from tests.processes import HEALTH, Served, free_port

pytestmark = pytest.mark.slow


def scrape(base: str):
    response = requests.get(base + METRICS, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10)
    assert response.status_code == 200, response.text
    return parse(response.text)


def test_gunicorn_workers_are_scraped_together_and_every_line_is_json(tmp_path):
    metrics_dir = tmp_path / "prometheus"
    metrics_dir.mkdir()
    # Left by a previous run: unreadable, it would break every scrape were it not removed at start.
    (metrics_dir / "counter_1.db").write_bytes(b"not a metrics file")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {
        **{key: value for key, value in os.environ.items() if not key.startswith(("CMS_", "PROMETHEUS_"))},
        "PY": sys.executable,
        "DATABASE_URL": database_url(),
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "WEB_CONCURRENCY": "2",
        "CMS_METRICS_TOKEN": TOKEN,
        "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir),
        "GUNICORN_ACCESS_LOG": "1",
        "CMS_RATE_LIMIT_ENABLED": "false",
    }
    server = Served(["bash", "scripts/serve.sh"], env=env)
    try:
        server.wait_healthy(base)
        assert not (metrics_dir / "counter_1.db").exists()
        route = {"method": "GET", "route": HEALTH, "status": "200"}
        before = value(scrape(base), "cms_http_requests_total", **route)

        # A new connection each: gunicorn's two workers take turns accepting them.
        for number in range(20):
            response = requests.get(base + HEALTH, headers={"X-Request-ID": f"obs-{number}"}, timeout=10)
            assert response.status_code == 200
            assert response.headers["X-Request-ID"] == f"obs-{number}"
        unauthorized = requests.get(base + METRICS, timeout=10)

        after = scrape(base)
        assert value(after, "cms_http_requests_total", **route) - before == 20
        assert unauthorized.status_code == 401
        # Files of several processes: both gunicorn workers and the background worker.
        assert len({path.stem.rsplit("_", 1)[-1] for path in metrics_dir.glob("*.db")}) >= 2
    finally:
        server.stop()

    errors = [json.loads(line) for line in server.err if line.strip()]
    access = [json.loads(line) for line in server.out if line.strip()]
    gunicorn_lines = [line for line in errors if line["logger"] == "gunicorn.error"]
    assert any(line["msg"].startswith("Starting gunicorn") for line in gunicorn_lines)
    assert sum(line["msg"].startswith("Booting worker with pid") for line in gunicorn_lines) >= 2
    assert all({"ts", "level", "logger", "msg"} <= set(line) for line in errors + access)
    ours = [line for line in access if str(line.get("request_id", "")).startswith("obs-")]
    assert sorted(line["request_id"] for line in ours) == sorted(f"obs-{number}" for number in range(20))
    first = next(line for line in ours if line["request_id"] == "obs-0")
    assert first["logger"] == "gunicorn.access"
    assert first["level"] == "INFO"
    assert first["msg"] == f"GET {HEALTH} 200"
    assert (first["method"], first["path"], first["status"]) == ("GET", HEALTH, 200)
    assert isinstance(first["duration_ms"], float)
    # The application's own line for the same request, in the same format, with the same id.
    assert any(line["logger"] == "cms.request" and line.get("request_id") == "obs-0" for line in errors)
