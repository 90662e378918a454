"""`make stress` in miniature, on the database of the current test pass: a few seconds of mixed load, of gunicorn
workers killed during writes and of 20 clients racing on one `_rev` must end with every verdict passed
(bench/stress.py has the scenarios and their checks).
PostgreSQL's restart scenario only runs in `make stress`: restarting the server would break the parallel tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def test_stress_smoke_passes_every_verdict(tmp_path):
    env = {**os.environ}
    database = "sqlite"
    scratch = None
    if connection.vendor == "postgresql":
        database = "postgres"
        parts = urlsplit(os.environ["DATABASE_URL"])
        scratch = f"cms_stress_smoke_{os.getpid()}"
        env["STRESS_DATABASE_URL"] = urlunsplit(parts._replace(path=f"/{scratch}"))
    env.pop("DATABASE_URL", None)
    try:
        completed = subprocess.run(
            [sys.executable, "-m", "bench.stress", "--smoke", "--db", database, "--work", str(tmp_path)],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        if scratch:
            admin = urlunsplit(urlsplit(os.environ["DATABASE_URL"])._replace(path="/postgres"))
            with psycopg.connect(admin, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{scratch}" WITH (FORCE)')
    assert completed.returncode == 0, completed.stdout + completed.stderr
    verdicts = [
        line.split(" {")[0] for line in completed.stdout.splitlines() if line.startswith(f"[{database}] ")
    ]
    verdicts = [line for line in verdicts if line.endswith(("PASS", "FAIL"))]
    assert verdicts == [
        f"[{database}] mixed: PASS",
        f"[{database}] kill_worker: PASS",
        f"[{database}] rev_race: PASS",
    ], completed.stdout
