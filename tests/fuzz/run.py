"""`make fuzz`: property-based fuzzing of every documented operation with schemathesis, against a real server.

A scratch database (SQLite, or PostgreSQL from FUZZ_DATABASE_URL) is migrated, the first admin and a token created,
a `posts` collection added so content routes have something to find, and gunicorn started with the `make run`
configuration. schemathesis then reads /_cms/api/openapi.json and, authenticated as the admin, sends generated and
mutated requests to every operation, then chains operations along the links it infers from the document (the stateful
phase), checking that none answers 5xx and that every answer matches the documented
status codes, content types and schemas. The exit status is schemathesis's own.

    python -m tests.fuzz.run [--max-examples 15] [--seed N]
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[2]
HOOKS_DIR = Path(__file__).resolve().parent
CHECKS = "not_a_server_error,response_schema_conformance,status_code_conformance,content_type_conformance"
# Logging out ends the session schemathesis authenticates with, deleting the token it uses would end the run, and the
# MCP endpoint is a JSON-RPC protocol fuzzed through its own tests (tests/mcp), not an OpenAPI operation.
EXCLUDED = r"auth/logout|admin/api-tokens/\{|/mcp$"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--max-examples", type=int, default=15)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="cms-fuzz-"))
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": os.environ.get("FUZZ_DATABASE_URL", f"sqlite:///{work / 'fuzz.sqlite3'}"),
        "CMS_VAR_DIR": str(work),
        "MEDIA_ROOT": str(work / "media"),
        "SECRET_KEY": "fuzz-only-not-secret",
        "CMS_BASE_URL": f"http://127.0.0.1:{port}",
        "CMS_RATE_LIMIT_API": "100000000/m",
        "CMS_RATE_LIMIT_AUTH": "100000000/m",
        # The media import fetches whatever URLs it is given; the fuzzer's are unreachable, so fail them fast.
        "CMS_IMPORT_FETCH_TIMEOUT": "2",
        "PORT": str(port),
        "HOST": "127.0.0.1",
        "WEB_CONCURRENCY": "2",
        "PYTHONPATH": str(HOOKS_DIR),
        "SCHEMATHESIS_HOOKS": "schemathesis_hooks",
    }
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)
    setup = subprocess.run(
        [*manage, "cms_setup", "--print-token"], cwd=ROOT, env=env, check=True, capture_output=True, text=True
    )
    token = next(word for word in setup.stdout.split() if word.startswith("ec_pat_"))
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "cms_project.wsgi", "--config", "cms_project/gunicorn.conf.py"],
        cwd=ROOT,
        env=env,
        stdout=open(work / "server.log", "w"),  # noqa: SIM115 (lives as long as the server)
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    headers = {"Authorization": f"Bearer {token}"}
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if requests.get(base + "/_cms/api/health", timeout=2).status_code == 200:
                    break
            except requests.RequestException:
                time.sleep(0.3)
        posts = {"slug": "posts", "label": "Posts", "supports": ["drafts", "revisions", "search"]}
        requests.post(f"{base}/_cms/api/schema/collections", json=posts, headers=headers, timeout=10)
        title = {"slug": "title", "label": "Title", "type": "string"}
        requests.post(
            f"{base}/_cms/api/schema/collections/posts/fields", json=title, headers=headers, timeout=10
        )
        command = [
            sys.executable,
            "-m",
            "schemathesis.cli",
            "run",
            f"{base}/_cms/api/openapi.json",
            "--header",
            f"Authorization: Bearer {token}",
            "--checks",
            CHECKS,
            "--max-examples",
            str(args.max_examples),
            "--phases",
            "examples,coverage,fuzzing,stateful",
            "--workers",
            "2",
            # A media import of many unreachable attachment URLs legitimately takes a while.
            "--request-timeout",
            "120",
            "--exclude-path-regex",
            EXCLUDED,
        ]
        if args.seed is not None:
            command += ["--seed", str(args.seed)]
        print(f"server log: {work / 'server.log'}", flush=True)
        return subprocess.run(command, cwd=ROOT, env=env).returncode
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            # A worker still inside a slow request (a remote fetch the fuzzer asked for) is not waited for.
            server.kill()
            server.wait()


if __name__ == "__main__":
    sys.exit(main())
