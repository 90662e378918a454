"""`make stress`: the server under sustained load and faults, each scenario ending with a pass/fail verdict.

    python -m bench.stress [--db sqlite,postgres] [--minutes 10] [--only mixed,kill_worker,db_restart,rev_race,fault_tests,backup,publish_during_import,kill_import_worker,kill_import_phases,replica,pgbouncer,two_nodes] [--smoke]

Scenarios (each against a real gunicorn server with the `make run` configuration, on a small seeded database):

- ``mixed``: 16 clients for ``--minutes`` (80% reads, 10% writes with ``_rev``, 10% search): no 5xx, worker memory
  grows less than ``RSS_GROWTH_MB`` between the first and the last quarter, and open database connections stay
  within the workers' count.
- ``kill_worker``: clients create and update entries while a gunicorn worker is killed with SIGKILL every second;
  afterwards every entry whose creation was answered exists, and no partial write is left: every entry has its
  revision, no revision belongs to a missing entry, and (once search is installed) no search document to a missing
  entry. Clients see failures only for requests in flight on the killed worker (connection errors, never a 5xx).
- ``rev_race``: 20 clients PATCH one entry with the same ``_rev`` at once, round after round: exactly one 200 per
  round, 409 for the rest, and no lost update (a counter advanced by every winner equals the rounds).
- ``fault_tests``: the fault scenarios that need to reach inside the process, as tests run on the database (a worker
  killed during an import resumes to the same final state, a full disk or quota during upload and import leaves no
  orphan file or record, concurrent ``_rev`` writers, the XML attack corpus).
- ``backup``: back up a populated instance, restore it into a fresh one, compare every API answer
  (bench/stress_backup.py).
- ``db_restart`` (PostgreSQL only): PostgreSQL is restarted under load; while it is down the API answers 503 in the
  envelope with ``Retry-After``, and afterwards it answers 200 again without restarting the server.
- ``publish_during_import``, ``kill_import_worker`` (bench/stress_tasks.py): entries published on time while a
  5,000-post import runs in a worker; the worker of such an import SIGKILLed again and again.
- ``kill_import_phases`` (bench/stress_import_phases.py): an import with terms, posts, pages, menus and attachments
  downloaded from a local server, its workers SIGKILLed in every phase that does work (terms, items, links, media);
  everything exists exactly once, no file is downloaded again but those a kill interrupted.
- ``replica``, ``pgbouncer`` (PostgreSQL only, bench/stress_replica.py) and ``two_nodes`` (bench/stress_nodes.py).

``--smoke`` runs a few seconds of each on SQLite (``tests/system/test_stress_smoke.py`` runs it in ``make test``).
Results go to bench/results/stress-<timestamp>.json; the exit status is 0 only when every verdict passed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import requests

from bench import stress_import_phases, stress_nodes, stress_replica, stress_tasks
from bench.run import PG_DEFAULT, RESULTS, ROOT, Server, prepare
from bench.stress_backup import scenario_backup

RSS_GROWTH_MB = 64
COLLECTION = "/_cms/api/content/bench"
SEARCH_WORDS = ["river", "stone", "garden", "coffee", "winter"]


@dataclass
class Verdict:
    scenario: str
    database: str
    passed: bool
    facts: dict = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


class Load:
    """Client threads hitting the server until stopped, counting outcomes by kind."""

    def __init__(self, url: str, token: str, ids: list[str], clients: int, mix: dict[str, int]):
        self.url, self.ids, self.clients = url, ids, clients
        self.headers = {"Authorization": f"Bearer {token}"}
        self.kinds = [kind for kind, weight in mix.items() for _ in range(weight)]
        self.outcomes: Counter[str] = Counter()
        self.created: list[str] = []
        self.server_errors: list[str] = []
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.search_available = True

    def _count(self, key: str) -> None:
        with self.lock:
            self.outcomes[key] += 1

    def _one(self, session: requests.Session, rng: random.Random) -> None:
        kind = rng.choice(self.kinds)
        entry_id = rng.choice(self.ids)
        if kind == "search" and not self.search_available:
            kind = "list"
        if kind == "get":
            response = session.get(f"{self.url}{COLLECTION}/{entry_id}", timeout=30)
        elif kind == "list":
            response = session.get(f"{self.url}{COLLECTION}?limit=50&orderBy=updatedAt", timeout=30)
        elif kind == "search":
            response = session.get(f"{self.url}/_cms/api/search?q={rng.choice(SEARCH_WORDS)}", timeout=30)
            if (
                response.status_code == 404
                and "NOT_FOUND" in response.text
                and "No API endpoint" in response.text
            ):
                self.search_available = False
        elif kind == "update":
            current = session.get(f"{self.url}{COLLECTION}/{entry_id}", timeout=30)
            if current.status_code != 200:
                self._count(f"update-read-{current.status_code}")
                return
            rev = current.json()["data"]["_rev"]
            response = session.patch(
                f"{self.url}{COLLECTION}/{entry_id}",
                json={"data": {"price": rng.randint(1, 999)}, "_rev": rev},
                timeout=30,
            )
        else:
            response = session.post(
                f"{self.url}{COLLECTION}",
                json={"data": {"title": f"stress {rng.random():.12f}", "price": 1}},
                timeout=30,
            )
            if response.status_code == 201:
                with self.lock:
                    self.created.append(response.json()["data"]["item"]["id"])
        self._count(f"{kind}-{response.status_code}")
        if response.status_code >= 500:
            with self.lock:
                self.server_errors.append(f"{kind} {response.status_code} {response.text[:200]}")

    def _client(self, seed: int) -> None:
        rng = random.Random(seed)
        session = requests.Session()
        session.headers.update(self.headers)
        while not self.stop.is_set():
            try:
                self._one(session, rng)
            except requests.RequestException as exc:
                # A killed worker drops its connection: the in-flight request fails, the next one gets a fresh one.
                self._count(f"connection-error:{type(exc).__name__}")
                session.close()
                session = requests.Session()
                session.headers.update(self.headers)

    def run(self, seconds: float, during=None) -> None:
        with ThreadPoolExecutor(self.clients) as pool:
            for index in range(self.clients):
                pool.submit(self._client, index)
            try:
                if during is None:
                    time.sleep(seconds)
                else:
                    during(seconds)
            finally:
                self.stop.set()


def worker_pids(server: Server) -> list[int]:
    children = Path(f"/proc/{server.process.pid}/task/{server.process.pid}/children")
    return [int(pid) for pid in children.read_text().split()] if children.exists() else []


def rss_mb(pids: list[int]) -> dict[int, float]:
    sizes = {}
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    sizes[pid] = int(line.split()[1]) / 1024
        except FileNotFoundError:
            continue
    return sizes


def db_connections(url: str) -> int | None:
    if not url.startswith("postgres"):
        return None
    import psycopg

    name = url.rsplit("/", 1)[1]
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        return conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s", [name]).fetchone()[0]


def invariants(env: dict[str, str], since: datetime) -> dict[str, int]:
    """Counts of partial writes, read in a fresh process through Django (the same SQL on both databases)."""
    script = """
import json, os, django
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cms_project.settings")
django.setup()
from django.apps import apps
from datetime import datetime
from django.db.models import Exists, OuterRef, Q
from apps.content.models import Entry, Revision
since = datetime.fromisoformat(os.environ["STRESS_SINCE"])
# Seeded entries were bulk-inserted without revisions; every entry written through the API since has one.
written = Entry.objects.filter(Q(version__gt=1) | Q(created_at__gte=since), collection__slug="bench")
out = {
    "entries_without_revision": written.exclude(Exists(Revision.objects.filter(entry_id=OuterRef("pk")))).count(),
    "revisions_of_missing_entries": Revision.objects.exclude(Exists(Entry.objects.filter(pk=OuterRef("entry_id")))).count(),
    "entries": Entry.objects.filter(collection__slug="bench").count(),
}
if apps.is_installed("apps.search"):
    from apps.search.models import SearchDocument
    out["search_documents_of_missing_entries"] = SearchDocument.objects.exclude(
        Exists(Entry.objects.filter(pk=OuterRef("entry_id")))).count()
print(json.dumps(out))
"""
    completed = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env={**env, "STRESS_SINCE": since.isoformat()},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(completed.stdout.strip().splitlines()[-1])


def existing(env: dict[str, str], ids: list[str]) -> int:
    script = (
        "import json, os, sys, django\n"
        "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'cms_project.settings')\n"
        "django.setup()\n"
        "from apps.content.models import Entry\n"
        "ids = json.load(sys.stdin)\n"
        "print(sum(Entry.objects.filter(pk__in=ids[i:i + 500]).count() for i in range(0, len(ids), 500)))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=env,
        input=json.dumps(ids),
        capture_output=True,
        text=True,
        check=True,
    )
    return int(completed.stdout.strip().splitlines()[-1])


def scenario_mixed(kind, url, env, token, ids, seconds) -> Verdict:
    verdict = Verdict("mixed", kind, True)
    server = Server("cms_project.wsgi", env)
    samples: list[dict[int, float]] = []
    connections: list[int] = []
    try:
        server.wait("/_cms/api/health")
        load = Load(server.url, token, ids, clients=16, mix={"get": 6, "list": 2, "update": 1, "search": 1})

        def watch(total: float) -> None:
            deadline = time.monotonic() + total
            while time.monotonic() < deadline:
                time.sleep(min(2.0, max(0.0, deadline - time.monotonic())))
                samples.append(rss_mb(worker_pids(server)))
                count = db_connections(url)
                if count is not None:
                    connections.append(count)

        load.run(seconds, during=watch)
        workers = len(worker_pids(server))
    finally:
        server.stop()
    quarter = max(1, len(samples) // 4)
    first = [max(sample.values(), default=0) for sample in samples[:quarter]]
    last = [max(sample.values(), default=0) for sample in samples[-quarter:]]
    growth = (max(last, default=0) - max(first, default=0)) if samples else 0.0
    verdict.facts = {
        "seconds": seconds,
        "outcomes": dict(load.outcomes),
        "requests": sum(load.outcomes.values()),
        "worker_rss_growth_mb": round(growth, 1),
        "db_connections_max": max(connections, default=None),
        "workers": workers,
    }
    if load.server_errors:
        verdict.problems.append(f"{len(load.server_errors)} answers were 5xx, first: {load.server_errors[0]}")
    if growth > RSS_GROWTH_MB:
        verdict.problems.append(f"worker memory grew {growth:.0f} MB (bound {RSS_GROWTH_MB} MB)")
    # Each worker holds at most one persistent connection; the watcher's own connection counts too.
    if connections and max(connections) > workers + 2:
        verdict.problems.append(f"{max(connections)} database connections for {workers} workers")
    if any(key.startswith("connection-error") for key in load.outcomes):
        verdict.problems.append("connection errors without any fault injected")
    verdict.passed = not verdict.problems
    return verdict


def scenario_kill_worker(kind, url, env, token, ids, seconds) -> Verdict:
    verdict = Verdict("kill_worker", kind, True)
    started = datetime.now(UTC)
    server = Server("cms_project.wsgi", env)
    killed = 0
    try:
        server.wait("/_cms/api/health")
        load = Load(server.url, token, ids, clients=8, mix={"create": 3, "update": 1})

        def kill_now_and_then(total: float) -> None:
            nonlocal killed
            deadline = time.monotonic() + total
            while time.monotonic() < deadline:
                time.sleep(1.0)
                pids = worker_pids(server)
                if pids:
                    os.kill(random.choice(pids), signal.SIGKILL)
                    killed += 1

        load.run(seconds, during=kill_now_and_then)
    finally:
        server.stop()
    facts = invariants(env, started)
    found = existing(env, load.created)
    verdict.facts = {"workers_killed": killed, "outcomes": dict(load.outcomes), **facts}
    if found != len(load.created):
        verdict.problems.append(f"{len(load.created) - found} entries answered 201 are missing")
    for name in (
        "entries_without_revision",
        "revisions_of_missing_entries",
        "search_documents_of_missing_entries",
    ):
        if facts.get(name):
            verdict.problems.append(f"{name}: {facts[name]}")
    if load.server_errors:
        verdict.problems.append(f"{len(load.server_errors)} answers were 5xx, first: {load.server_errors[0]}")
    if not load.created:
        verdict.problems.append("no create succeeded: the scenario measured nothing")
    verdict.passed = not verdict.problems
    return verdict


def scenario_db_restart(kind, url, env, token, ids, seconds) -> Verdict:
    verdict = Verdict("db_restart", kind, True)
    server = Server("cms_project.wsgi", env)
    statuses: Counter[str] = Counter()
    problems: list[str] = []
    try:
        server.wait("/_cms/api/health")
        headers = {"Authorization": f"Bearer {token}"}

        def probe() -> None:
            try:
                response = requests.get(f"{server.url}{COLLECTION}/{ids[0]}", headers=headers, timeout=10)
            except requests.RequestException as exc:
                statuses[f"connection-error:{type(exc).__name__}"] += 1
                return
            statuses[str(response.status_code)] += 1
            if response.status_code == 503:
                body = response.json()
                if body.get("success") is not False or "Retry-After" not in response.headers:
                    problems.append(f"a 503 without the envelope or Retry-After: {response.text[:200]}")
            elif response.status_code != 200:
                problems.append(f"{response.status_code} while the database restarted: {response.text[:200]}")

        for _ in range(5):
            probe()
        cluster = subprocess.run(["ls", "/etc/postgresql"], capture_output=True, text=True).stdout.split()[0]
        subprocess.run(
            ["pg_ctlcluster", "--skip-systemctl-redirect", cluster, "main", "stop", "-m", "fast"], check=True
        )
        down_until = time.monotonic() + max(3.0, seconds / 3)
        while time.monotonic() < down_until:
            probe()
            time.sleep(0.1)
        subprocess.run(["pg_ctlcluster", "--skip-systemctl-redirect", cluster, "main", "start"], check=True)
        recovered = None
        started = time.monotonic()
        while time.monotonic() - started < 30:
            before = statuses["200"]
            probe()
            if statuses["200"] > before:
                recovered = time.monotonic() - started
                break
            time.sleep(0.2)
        for _ in range(20):
            probe()
    finally:
        server.stop()
    verdict.facts = {"statuses": dict(statuses), "seconds_to_recover": recovered}
    verdict.problems = sorted(set(problems))[:5]
    if not statuses["503"]:
        verdict.problems.append("no 503 was seen while the database was down")
    if recovered is None:
        verdict.problems.append("the API did not answer 200 within 30 s of the database coming back")
    verdict.passed = not verdict.problems
    return verdict


def scenario_rev_race(kind, url, env, token, ids, seconds) -> Verdict:
    """20 clients PATCH one entry at once, all with the same `_rev`, round after round: each round exactly one wins
    (200) and the others get 409; every winner's write is kept (no lost update: the final counter equals the rounds)."""
    verdict = Verdict("rev_race", kind, True)
    server = Server("cms_project.wsgi", env)
    try:
        server.wait("/_cms/api/health")
        data = {"title": f"race {time.time()}"}
        verdict.facts, problems = stress_nodes.rev_race(
            [server.url], token, COLLECTION, "price", seconds, data
        )
    finally:
        server.stop()
    verdict.problems = problems[:5]
    verdict.passed = not problems
    return verdict


# Fault scenarios that need to reach inside the process (a full disk, a worker killed between an import's batches)
# are tests; make stress runs them on each database and turns their outcome into a verdict.
FAULT_TESTS = [
    "tests/importer/test_import_command_and_worker.py",
    "tests/media/test_storage_full.py",
    "tests/importer/test_import_storage_full.py",
    "tests/content/test_concurrency.py",
    "tests/core/test_xml_attacks.py",
    # Issue 24: a stopped or hung Redis and object storage, readiness, and the task engine's workers.
    "tests/core/test_redis_faults.py",
    "tests/media/test_storage_outage.py",
    "tests/core/test_readiness.py",
    "tests/background/test_worker.py",
]


def scenario_fault_tests(kind, url, env, token, ids, seconds) -> Verdict:
    verdict = Verdict("fault_tests", kind, True)
    test_url = (
        url
        if kind == "postgres"
        else f"sqlite:///{Path(url.removeprefix('sqlite:///')).parent / 'faults.sqlite3'}"
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", *FAULT_TESTS],
        cwd=ROOT,
        env={**env, "DATABASE_URL": test_url},
        capture_output=True,
        text=True,
    )
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-300:]
    verdict.facts = {"files": FAULT_TESTS, "summary": summary}
    if done.returncode != 0:
        verdict.problems.append(summary)
    verdict.passed = not verdict.problems
    return verdict


SCENARIOS = {
    "mixed": scenario_mixed,
    "kill_worker": scenario_kill_worker,
    "db_restart": scenario_db_restart,
    "rev_race": scenario_rev_race,
    "fault_tests": scenario_fault_tests,
    "backup": scenario_backup,  # bench/stress_backup.py
    # Background work (bench/stress_tasks.py).
    "publish_during_import": stress_tasks.scenario_publish_during_import,
    "kill_import_worker": stress_tasks.scenario_kill_import_worker,
    "kill_import_phases": stress_import_phases.scenario_kill_import_phases,  # bench/stress_import_phases.py
    **stress_replica.SCENARIOS,  # replica, pgbouncer (issue 24)
    "two_nodes": stress_nodes.scenario_two_nodes,  # bench/stress_nodes.py
}
# Long, or needing PostgreSQL, or already in make test: not in --smoke.
SLOW = (
    "db_restart",
    "fault_tests",
    "backup",
    "publish_during_import",
    "kill_import_worker",
    "kill_import_phases",
    "two_nodes",
    *stress_replica.SCENARIOS,
)
POSTGRES_ONLY = {"db_restart", "two_nodes", *stress_replica.SCENARIOS}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--db", default=None, help="sqlite,postgres (default); --smoke: sqlite unless given.")
    parser.add_argument("--minutes", type=float, default=10.0, help="Duration of the sustained mixed load.")
    parser.add_argument("--only", type=lambda text: text.split(","), default=list(SCENARIOS))
    parser.add_argument("--entries", type=int, default=2000)
    parser.add_argument("--smoke", action="store_true", help="A few seconds of each scenario but db_restart.")
    parser.add_argument(
        "--work", type=Path, default=None, help="Directory for the databases and server logs."
    )
    args = parser.parse_args()
    if args.smoke:
        args.db, args.minutes, args.entries = args.db or "sqlite", 0.1, 200
        # The restart needs PostgreSQL, and the fault tests already run in make test.
        args.only = [name for name in args.only if name not in SLOW]
    args.db = args.db or "sqlite,postgres"
    RESULTS.mkdir(parents=True, exist_ok=True)
    work = args.work or RESULTS / ("stress-smoke-work" if args.smoke else "stress-work")
    work.mkdir(parents=True, exist_ok=True)
    verdicts: list[Verdict] = []
    for kind in args.db.split(","):
        url = (
            f"sqlite:///{work / 'bench.sqlite3'}"
            if kind == "sqlite"
            else os.environ.get("STRESS_DATABASE_URL", PG_DEFAULT.rsplit("/", 1)[0] + "/cms_stress")
        )
        env = {
            **os.environ,
            "DATABASE_URL": url,
            "CMS_VAR_DIR": str(work),
            "SECRET_KEY": "stress-only-not-secret",
            "CMS_RATE_LIMIT_API": "100000000/m",
            "PYTHONPATH": str(ROOT),
            "WEB_CONCURRENCY": "3",
        }
        (work / kind).mkdir(exist_ok=True)
        os.environ["BENCH_DATABASE_URL"] = url
        prepare(kind, url, work, args.entries, False, env)
        # A database seeded by an earlier run may predate migrations added since (health answers 503 until applied).
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True
        )
        token = (work / kind / "token").read_text().strip()
        ids = (work / kind / "pool.txt").read_text().split()
        for name in args.only:
            if name in POSTGRES_ONLY and kind != "postgres":
                continue
            seconds = args.minutes * 60 if name == "mixed" else (4 if args.smoke else 20)
            print(f"[{kind}] {name} for {seconds:.0f} s …", flush=True)
            verdict = SCENARIOS[name](kind, url, env, token, ids, seconds)
            verdicts.append(verdict)
            print(
                f"[{kind}] {name}: {'PASS' if verdict.passed else 'FAIL'} {json.dumps(verdict.facts)}"
                + "".join(f"\n    - {problem}" for problem in verdict.problems),
                flush=True,
            )
    out = RESULTS / f"stress-{datetime.now(UTC):%Y%m%dT%H%M%S}.json"
    out.write_text(json.dumps([verdict.__dict__ for verdict in verdicts], indent=2))
    print(f"results: {out.relative_to(ROOT)}")
    return 0 if verdicts and all(verdict.passed for verdict in verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
