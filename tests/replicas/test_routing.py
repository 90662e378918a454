"""Read-replica routing through HTTP (apps/core/replicas.py), run in a subprocess with ``DATABASE_REPLICA_URL`` set.

Settings are built from the environment at import, so the replica alias, its router and middleware exist only in a
process started with the variable: ``cases.py`` runs in one, on a test database of its own (another name, so it never
meets this run's). The same cases run on SQLite and PostgreSQL, whichever this run uses.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_replica_routing_cases(tmp_path):
    primary = settings.DATABASES["default"]
    if primary["ENGINE"].endswith("sqlite3"):
        url = f"sqlite:///{tmp_path / 'cms.sqlite3'}"
    else:
        url = f"postgres://{primary['USER']}@{primary['HOST']}:{primary['PORT']}/{primary['NAME']}_replicas"
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "DATABASE_REPLICA_URL": url,
        "CMS_VAR_DIR": str(tmp_path),
        "CMS_REPLICA_PIN_SECONDS": "5",
    }
    env.pop("PYTEST_XDIST_WORKER", None)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "--create-db", "tests/replicas/cases.py"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "\n13 passed" in result.stdout
