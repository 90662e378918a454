"""`make run` from a fresh copy of the repository: migrates, creates the admin, prints a working token, serves; and a
second run starts again without creating anything. Runs against the database of the current test pass: its own SQLite
file, or a scratch PostgreSQL database.

The copy reuses this test run's virtualenv (VENV=…), so the test does not reinstall every package; `make test` on a
clean checkout (CI) exercises the install step itself, through the same Makefile target.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
import requests
from django.db import connection

from tests.processes import Served, free_port

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def fresh_copy(destination: Path) -> Path:
    """The files a clone would have: tracked plus new, not ignored."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return destination


@pytest.fixture
def database_url(tmp_path):
    if connection.vendor == "sqlite":
        yield None  # make run's default: a SQLite file under the copy's var/
        return
    name = f"cms_makerun_{os.getpid()}"
    parts = urlsplit(os.environ["DATABASE_URL"])
    admin_url = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    yield urlunsplit(parts._replace(path=f"/{name}"))
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_make_run_serves_prints_a_working_token_and_reruns(tmp_path, database_url):
    copy = fresh_copy(tmp_path / "cms")
    port = free_port()
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DATABASE_URL", "CMS_", "DJANGO_"))
    }
    env.update(
        {"VENV": str(Path(sys.prefix)), "PORT": str(port), "HOST": "127.0.0.1", "WEB_CONCURRENCY": "2"}
    )
    if database_url:
        env["DATABASE_URL"] = database_url
    base = f"http://127.0.0.1:{port}"

    first = Served(["make", "run"], cwd=copy, env=env, merge=True)
    try:
        first.wait_healthy(base, read_timeout=2)
        output = first.output
        token = re.search(r"^\s+(ec_pat_[A-Za-z0-9_-]{43})$", output, re.MULTILINE).group(1)
        listed = requests.get(
            f"{base}/_cms/api/admin/api-tokens", headers={"Authorization": f"Bearer {token}"}, timeout=5
        )
        assert listed.status_code == 200
        assert listed.json()["data"]["items"][0]["user"]["email"] == "admin@localhost"
        anonymous = requests.get(f"{base}/_cms/api/admin/api-tokens", timeout=5)
        assert anonymous.status_code == 401
        assert anonymous.json()["error"]["code"] == "UNAUTHORIZED"
    finally:
        first.stop()

    second = Served(["make", "run"], cwd=copy, env=env, merge=True)
    try:
        second.wait_healthy(base, read_timeout=2)
        output = second.output
        assert "An admin already exists (admin@localhost)" in output
        assert not re.search(r"^\s+ec_pat_", output, re.MULTILINE)
        still = requests.get(
            f"{base}/_cms/api/admin/api-tokens", headers={"Authorization": f"Bearer {token}"}, timeout=5
        )
        assert still.status_code == 200
        assert len(still.json()["data"]["items"]) == 1
    finally:
        second.stop()
