"""Processes the system tests start beside themselves: a server (``make run``, ``scripts/serve.sh``) in its own
process group with its output kept line by line, and ``manage.py worker`` on the test database."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import requests

from tests.factories import database_url

ROOT = Path(__file__).resolve().parents[1]
HEALTH = "/_cms/api/health"


def wait_for(check, *, seconds: float = 120, every: float = 0.1):
    """Poll ``check`` until it answers something true, and return that; fail after ``seconds`` (a bound against
    hanging, not a measurement)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if value := check():
            return value
        time.sleep(every)
    raise AssertionError(f"still waiting after {seconds} s")


def redis_or_skip(url: str, variable: str):
    """A client of the Redis at ``url``, for tests that need a real one: skipped when none answers, except under CI
    (CI=true), which always has one and must not pass without testing."""
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=1)
    try:
        client.ping()
    except redis.ConnectionError:
        if os.environ.get("CI") == "true":
            raise
        pytest.skip(f"Redis is not reachable (set {variable}); CI always runs this")
    return client


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Served:
    """A command serving HTTP, in its own session so that stopping it reaches every process it started (gunicorn's
    workers, the background worker). ``out`` and ``err`` fill as it writes; with ``merge`` both go to ``out``."""

    def __init__(self, command: list[str], *, cwd: Path = ROOT, env: dict[str, str], merge: bool = False):
        self.out: list[str] = []
        self.err: list[str] = []
        self.process = subprocess.Popen(
            command,
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT if merge else subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        streams = [(self.process.stdout, self.out)]
        if not merge:
            streams.append((self.process.stderr, self.err))
        self._readers = [
            threading.Thread(target=self._read, args=(stream, lines), daemon=True)
            for stream, lines in streams
        ]
        for reader in self._readers:
            reader.start()

    @staticmethod
    def _read(stream, lines: list[str]) -> None:
        for line in stream:
            lines.append(line)

    @property
    def output(self) -> str:
        return "".join(self.out + self.err)

    def wait_healthy(self, base: str, *, timeout: float = 120, read_timeout: float = 60) -> None:
        """Until the liveness check answers 200. A long read timeout by default: a request given up while a worker
        boots would still be answered (and counted by the metrics) after the caller moved on."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"{self.process.args} exited:\n{self.output}")
            try:
                if requests.get(base + HEALTH, timeout=read_timeout).status_code == 200:
                    return
            except (requests.ConnectionError, requests.Timeout):
                pass  # not listening yet, or its workers still booting Django
            time.sleep(0.2)
        raise AssertionError(f"server did not become healthy:\n{self.output}")

    def stop(self) -> None:
        """SIGTERM to the whole group, SIGKILL after 30 s; returns once the output is read to its end."""
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        for reader in self._readers:
            reader.join(timeout=5)


def start_worker(*, import_dir: Path, batch_size: int, interval: float = 0.2) -> subprocess.Popen:
    """``manage.py worker`` serving every queue on the test database, with small import slices."""
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "CMS_IMPORT_DIR": str(import_dir),
        "CMS_IMPORT_BATCH_SIZE": str(batch_size),
        "CMS_REQUEST_LOG": "false",
        "CMS_LOG_LEVEL": "WARNING",
    }
    return subprocess.Popen(
        [sys.executable, "manage.py", "worker", "--interval", str(interval)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
