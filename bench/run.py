"""`make bench`, first part: HTTP throughput and latency of the CMS as ratios to a bare WSGI app, on SQLite and
PostgreSQL (REST, MCP, media download, and the mixed workload at 32 clients).

The machines are shared and noisy, so absolute requests/s mean little; every figure is the ratio of a scenario's
requests/s to the baseline's measured just before it (each scenario paired with its own baseline run). The CMS
and the baselines run under the same gunicorn configuration as `make run` (cms_project/gunicorn.conf.py). Each round
also measures two reference points against the bare WSGI app: the smallest Django project (the framework floor,
bench/hello_django.py) and a bare ASGI app under uvicorn workers (bench/hello_asgi.py). Load comes from wrk (one
thread, 8 connections unless a scenario says otherwise); single-connection latency from wrk with one connection.

    python -m bench.run [--db sqlite,postgres] [--entries 100000] [--rounds 3] [--duration 5] [--only get_one,…]

Results: bench/results/<timestamp>.json, and the table in docs/performance.md between the bench markers.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import requests

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
LUA = ROOT / "bench" / "lua"
PERFORMANCE_DOC = ROOT / "docs" / "performance.md"
PG_DEFAULT = "postgres://postgres@127.0.0.1:5432/cms_bench"
LIST = "/_cms/api/content/bench?limit=50&orderBy="


# How the CMS can be served; `make run` and the Docker image use `sync` (see docs/performance.md for why).
WORKER_CLASSES = {
    "sync": {"app": "cms_project.wsgi", "env": {"GUNICORN_WORKER_CLASS": "sync"}},
    "gthread": {
        "app": "cms_project.wsgi",
        "env": {"GUNICORN_WORKER_CLASS": "gthread", "GUNICORN_THREADS": "4"},
    },
    "asgi": {"app": "cms_project.asgi", "env": {"GUNICORN_WORKER_CLASS": "uvicorn.workers.UvicornWorker"}},
}


@dataclass(frozen=True)
class Scenario:
    name: str
    path: str
    script: str | None = None
    # Target ratio to the baseline (None: reported without a target).
    target: float | None = None
    # Single-connection p50 target in milliseconds.
    p50_target: float | None = None
    # Rewrite the id pool's _revs before each run (the scenario changes them).
    refresh_pool: bool = False
    connections: int = 8
    # p99 target in milliseconds under the scenario's own load; such a scenario must also answer without errors.
    p99_target: float | None = None


SCENARIOS = [
    Scenario("get_one", "/_cms/api/content/bench", "get.lua", target=0.12, p50_target=2.0),
    Scenario("list50_createdAt", LIST + "createdAt", target=0.045, p50_target=5.0),
    Scenario("list50_updatedAt", LIST + "updatedAt", target=0.045),
    Scenario("list50_publishedAt", LIST + "publishedAt", target=0.045),
    Scenario("list50_slug", LIST + "slug&order=asc", target=0.045),
    Scenario("list50_title", LIST + "title&order=asc", target=0.045),
    Scenario("list50_price", LIST + "price", target=0.045),
    # The tool server beside REST (issue 7): MCP content_get at least 0.6x of REST get_one (0.6 x 0.12 of the
    # baseline), single-connection p50 at most 3 ms; content_list beside list50_createdAt.
    Scenario("mcp_get", "/_cms/api/mcp", "mcp_get.lua", target=0.072, p50_target=3.0),
    Scenario("mcp_list50", "/_cms/api/mcp", "mcp_list.lua", target=0.027),
    Scenario("patch_rev", "/_cms/api/content/bench", "patch.lua", refresh_pool=True),
    Scenario("create", "/_cms/api/content/bench", "create.lua"),
    # A 100 KB image through the media file route (a reverse proxy or CDN would usually serve these).
    Scenario("media_download", "/_cms/api/media/file/{media_key}"),
    # 80% reads, 10% creates, 10% searches from 32 clients at once: zero errors and p99 under 250 ms (issue 9).
    Scenario("mixed32", "/_cms/api/content/bench", "mixed.lua", connections=32, p99_target=250.0),
]

# Reference points measured in every round beside the bare WSGI app, reported as their ratio to it.
REFERENCES = {
    "django_hello": ("bench.hello_django:application", {}),
    "asgi_hello": ("bench.hello_asgi:app", {"GUNICORN_WORKER_CLASS": "uvicorn.workers.UvicornWorker"}),
}


@dataclass
class Measurement:
    rps: float
    p50_ms: float
    p99_ms: float
    errors: int
    max_ms: float = 0.0
    requests: int = 0


@dataclass
class Result:
    scenario: str
    database: str
    ratios: list[float] = field(default_factory=list)
    rps: list[float] = field(default_factory=list)
    errors: int = 0
    p50_single_ms: float | None = None
    # Database queries one request of the scenario makes (bench/queries.py).
    queries: int | None = None
    p99_ms: list[float] = field(default_factory=list)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _ms(value: str, unit: str) -> float:
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def wrk(
    url: str, *, connections: int, duration: float, token: str | None, script: str | None, args: list[str]
) -> Measurement:
    command = ["wrk", "-t1", f"-c{connections}", f"-d{int(duration)}s", "--latency", "--timeout", "10s"]
    if token:
        command += ["-H", f"Authorization: Bearer {token}"]
    if script:
        command += ["-s", str(LUA / script)]
    command.append(url)
    if args:
        command += ["--", *args]
    completed = subprocess.run(command, capture_output=True, text=True)
    if completed.returncode != 0:
        raise RuntimeError(
            f"wrk failed ({completed.returncode}): {completed.stderr.strip() or completed.stdout.strip()}"
        )
    output = completed.stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    p50 = re.search(r"50%\s+([\d.]+)(us|ms|s)", output)
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)", output)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    socket_errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    total_errors = int(errors.group(1)) if errors else 0
    if socket_errors:
        total_errors += sum(int(group) for group in socket_errors.groups())
    latency = re.search(r"Latency\s+[\d.]+\w+\s+[\d.]+\w+\s+([\d.]+)(us|ms|s)", output)
    requests = re.search(r"(\d+) requests in", output)
    return Measurement(
        rps,
        _ms(*p50.groups()),
        _ms(*p99.groups()),
        total_errors,
        _ms(*latency.groups()) if latency else 0.0,
        int(requests.group(1)) if requests else 0,
    )


class Server:
    def __init__(self, app: str, env: dict[str, str]):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = open(RESULTS / f"server-{self.port}.log", "w")  # noqa: SIM115 (closed in stop)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", app, "--config", "cms_project/gunicorn.conf.py"],
            cwd=ROOT,
            env={**env, "PORT": str(self.port), "HOST": "127.0.0.1"},
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    def wait(self, path: str) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if requests.get(self.url + path, timeout=2).status_code == 200:
                    return
            except requests.RequestException:
                # Not listening yet, or a worker still importing the application on a busy machine.
                time.sleep(0.2)
        raise RuntimeError(f"server on {self.url} did not start; see {self.log.name}")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)
        self.log.close()


def database_url(kind: str, work: Path) -> str:
    if kind == "sqlite":
        return f"sqlite:///{work / 'bench.sqlite3'}"
    return os.environ.get("BENCH_DATABASE_URL", PG_DEFAULT)


def prepare(kind: str, url: str, work: Path, entries: int, reseed: bool, env: dict[str, str]) -> None:
    marker = work / f"seeded-{kind}-{entries}"
    if marker.exists() and not reseed:
        return
    if kind == "sqlite":
        for suffix in ("", "-wal", "-shm"):
            Path(str(work / "bench.sqlite3") + suffix).unlink(missing_ok=True)
    else:
        import psycopg

        parts = urlsplit(url)
        name = parts.path.lstrip("/")
        with psycopg.connect(urlunsplit(parts._replace(path="/postgres")), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"')
    for stale in work.glob(f"seeded-{kind}-*"):
        stale.unlink()
    print(f"[{kind}] seeding {entries} entries …", flush=True)
    subprocess.run(
        [sys.executable, "-m", "bench.seed", "--entries", str(entries), "--out", str(work / kind)],
        cwd=ROOT,
        env={**env, "DATABASE_URL": url},
        check=True,
    )
    marker.touch()


def run_database(kind: str, args, work: Path) -> list[Result]:
    url = database_url(kind, work)
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "CMS_VAR_DIR": str(work),
        "SECRET_KEY": "bench-only-not-secret",
        # Measure the limiter's cost, never its refusals.
        "CMS_RATE_LIMIT_API": "100000000/m",
        "PYTHONPATH": str(ROOT),
    }
    (work / kind).mkdir(parents=True, exist_ok=True)
    prepare(kind, url, work, args.entries, args.reseed, env)
    # A database seeded by an earlier run keeps its data but may predate migrations added since.
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True
    )

    def refresh_pool() -> None:
        subprocess.run(
            [sys.executable, "-m", "bench.seed", "--out", str(work / kind), "--pool-only"],
            cwd=ROOT,
            env=env,
            check=True,
        )

    token = (work / kind / "token").read_text().strip()
    ids_file = str(work / kind / "ids.txt")
    media_key = (work / kind / "media_key").read_text().strip()
    scenarios = [s for s in SCENARIOS if not args.only or s.name in args.only]
    baseline = Server("bench.hello_wsgi:app", env)
    references = {name: Server(app, {**env, **extra}) for name, (app, extra) in REFERENCES.items()}
    worker = WORKER_CLASSES[args.worker_class]
    cms = Server(worker["app"], {**env, **worker["env"]})
    results = {name: Result(name, kind) for name in references} | {
        s.name: Result(s.name, kind) for s in scenarios
    }

    def path_of(scenario: Scenario) -> str:
        return scenario.path.format(media_key=media_key)

    try:
        baseline.wait("/")
        for server in references.values():
            server.wait("/")
        cms.wait("/_cms/api/health")
        # Warm-up: first requests load code and fill connection pools; they are not measured.
        for scenario in scenarios:
            if scenario.refresh_pool:
                refresh_pool()
            wrk(
                cms.url + path_of(scenario),
                connections=scenario.connections,
                duration=1,
                token=token,
                script=scenario.script,
                args=[ids_file],
            )
        for round_number in range(args.rounds):
            reference = wrk(
                baseline.url + "/", connections=8, duration=args.duration, token=None, script=None, args=[]
            )
            print(f"[{kind}] round {round_number + 1}: baseline {reference.rps:.0f} req/s", flush=True)
            for name, server in references.items():
                measured = wrk(
                    server.url + "/", connections=8, duration=args.duration, token=None, script=None, args=[]
                )
                results[name].ratios.append(measured.rps / reference.rps)
                results[name].rps.append(measured.rps)
                results[name].p99_ms.append(measured.p99_ms)
                results[name].errors += measured.errors
                print(
                    f"[{kind}]   {name:20} {measured.rps:8.0f} req/s  ratio {measured.rps / reference.rps:.3f}"
                )
            for position, scenario in enumerate(scenarios):
                if scenario.refresh_pool:
                    refresh_pool()
                if position:
                    # Each scenario is paired with a baseline measured just before it: the shared machine's speed
                    # drifts within a round by more than the differences the targets judge.
                    reference = wrk(
                        baseline.url + "/",
                        connections=8,
                        duration=args.duration,
                        token=None,
                        script=None,
                        args=[],
                    )
                measured = wrk(
                    cms.url + path_of(scenario),
                    connections=scenario.connections,
                    duration=args.duration,
                    token=token,
                    script=scenario.script,
                    args=[ids_file],
                )
                result = results[scenario.name]
                result.ratios.append(measured.rps / reference.rps)
                result.rps.append(measured.rps)
                result.p99_ms.append(measured.p99_ms)
                result.errors += measured.errors
                print(
                    f"[{kind}]   {scenario.name:20} {measured.rps:8.0f} req/s  ratio {measured.rps / reference.rps:.3f}"
                    f" (baseline {reference.rps:.0f})  p99 {measured.p99_ms:.1f} ms  errors {measured.errors}",
                    flush=True,
                )
        for scenario in scenarios:
            if scenario.p50_target is not None:
                if scenario.refresh_pool:
                    refresh_pool()
                single = wrk(
                    cms.url + path_of(scenario),
                    connections=1,
                    duration=args.duration,
                    token=token,
                    script=scenario.script,
                    args=[ids_file],
                )
                results[scenario.name].p50_single_ms = single.p50_ms
    finally:
        baseline.stop()
        for server in references.values():
            server.stop()
        cms.stop()
    counted = subprocess.run(
        [sys.executable, "-m", "bench.queries", str(work / kind)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    counts = json.loads(counted.stdout.strip().splitlines()[-1])
    for name, result in results.items():
        result.queries = counts.get(name)
    return list(results.values())


def table(results: list[Result]) -> str:
    targets = {s.name: s for s in SCENARIOS}
    lines = [
        "| scenario | database | ratio median (min–max) | target | req/s median | p99 ms | 1-conn p50 ms | p50 target"
        " | queries | errors |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for result in results:
        spec = targets.get(result.scenario, Scenario(result.scenario, "/"))
        ratio = statistics.median(result.ratios)
        verdict = "" if spec.target is None else (" ✅" if ratio >= spec.target else " ❌")
        p99 = statistics.median(result.p99_ms)
        p99_cell = f"{p99:.1f}"
        if spec.p99_target is not None:
            p99_cell += (
                f" {'✅' if p99 < spec.p99_target and result.errors == 0 else '❌'} (< {spec.p99_target:g})"
            )
        p50 = "" if result.p50_single_ms is None else f"{result.p50_single_ms:.2f}"
        p50_verdict = ""
        if spec.p50_target is not None and result.p50_single_ms is not None:
            p50_verdict = " ✅" if result.p50_single_ms <= spec.p50_target else " ❌"
        name = (
            result.scenario
            if spec.connections == 8
            else f"{result.scenario} ({spec.connections} connections)"
        )
        lines.append(
            f"| {name} | {result.database} | {ratio:.3f} ({min(result.ratios):.3f}–{max(result.ratios):.3f}){verdict}"
            f" | {'' if spec.target is None else f'≥ {spec.target}×'} | {statistics.median(result.rps):.0f}"
            f" | {p99_cell} | {p50}{p50_verdict}"
            f" | {'' if spec.p50_target is None else f'≤ {spec.p50_target} ms'}"
            f" | {'' if result.queries is None else result.queries} | {result.errors} |"
        )
    return "\n".join(lines)


def write_block(begin: str, end: str, block: str) -> None:
    """Replace the text between two markers of docs/performance.md (markers included) with ``block``; append it when
    the markers are missing. Each benchmark owns its own pair of markers."""
    text = PERFORMANCE_DOC.read_text() if PERFORMANCE_DOC.exists() else ""
    if begin in text:
        text = text[: text.index(begin)] + block + text[text.index(end) + len(end) :]
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    PERFORMANCE_DOC.write_text(text)


def write_doc(results: list[Result], args, started: datetime) -> None:
    begin, end = "<!-- bench:rest:begin -->", "<!-- bench:rest:end -->"
    machine = f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
    block = (
        f"{begin}\nMeasured {started:%Y-%m-%d %H:%M} UTC on {machine}; {args.entries} entries, "
        f"{args.rounds} rounds of {args.duration} s, wrk 1 thread × 8 connections unless stated; baseline: bare WSGI "
        f"app, same gunicorn settings (django_hello: the smallest Django project; asgi_hello: a bare ASGI app under "
        f"uvicorn workers).\n\n{table(results)}\n{end}"
    )
    write_block(begin, end, block)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--db", default="sqlite,postgres")
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=int, default=5)
    parser.add_argument("--only", type=lambda text: set(text.split(",")), default=None)
    parser.add_argument("--reseed", action="store_true")
    parser.add_argument("--no-doc", action="store_true", help="Do not rewrite docs/performance.md.")
    parser.add_argument(
        "--worker-class",
        choices=sorted(WORKER_CLASSES),
        default="sync",
        help="The CMS server's gunicorn worker class (the baseline always runs sync, as the framework floor).",
    )
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        print("wrk is needed: apt-get install wrk", file=sys.stderr)
        return 1
    RESULTS.mkdir(parents=True, exist_ok=True)
    work = RESULTS / "work"
    work.mkdir(exist_ok=True)
    started = datetime.now(UTC)
    results: list[Result] = []
    for kind in args.db.split(","):
        results += run_database(kind, args, work)
    stamp = started.strftime("%Y%m%dT%H%M%S")
    # Runs of a few scenarios (--only) are kept apart, so the summary of make bench reads the last complete run.
    (RESULTS / f"{'partial-' if args.only else ''}{stamp}.json").write_text(
        json.dumps([result.__dict__ for result in results], indent=2, default=str)
    )
    print("\n" + table(results))
    if not args.no_doc and not args.only:
        write_doc(results, args, started)
        from bench.chart import draw

        targets = {scenario.name: scenario.target for scenario in SCENARIOS}
        draw([result.__dict__ for result in results], targets, f"make bench, {started:%Y-%m-%d %H:%M} UTC")
    return 0


if __name__ == "__main__":
    sys.exit(main())
