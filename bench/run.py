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

from bench.imported import SEARCH_WORD

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
    # Which server answers: the CMS, or the raw-SQL floor (bench/floor.py) on the same database.
    server: str = "cms"
    # The id pool its Lua script cycles through (in the database's work directory), and further script arguments.
    ids: str = "ids.txt"
    lua_args: tuple[str, ...] = ()
    # The floor scenario doing the same read: the table shows this one's rate as a share of it, and with
    # ``p50_floor_factor`` its single-connection p50 must stay within that factor of the floor's.
    floor: str | None = None
    p50_floor_factor: float | None = None
    # Measure the single-connection p50 even without a p50 target (a floor scenario, for its CMS counterpart).
    single: bool = False
    # Read as a front end reads a public collection: no token (issue 22).
    anonymous: bool = False
    # Ask again with the ETag of the first answer (If-None-Match): every answer is a 304.
    conditional: bool = False


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
    # What users store (issue 21): WordPress posts imported through the real pipeline (bench/imported.py), each read
    # beside the raw-SQL floor's same read on the same database.
    Scenario("posts_get_one", "/_cms/api/content/posts", "get.lua", target=0.12, ids="posts_ids.txt",
             floor="floor_get_one", p50_floor_factor=2.5),
    Scenario("posts_list50", "/_cms/api/content/posts?limit=50", target=0.045, floor="floor_list50",
             p50_floor_factor=2.5),
    # The same page with the fields a front end's index shows (title, excerpt, image): the REST list's ``fields=``.
    Scenario("posts_list50_fields", "/_cms/api/content/posts?limit=50&fields=title,excerpt,featured_image"),
    Scenario("posts_search", f"/_cms/api/search?collections=posts&limit=20&q={SEARCH_WORD}", target=0.08,
             floor="floor_search", single=True),
    Scenario("posts_mcp_get", "/_cms/api/mcp", "mcp_get.lua", ids="posts_ids.txt", lua_args=("posts",),
             single=True),
    # Delivery to front ends (issue 22): the same posts without a token (public, cacheable answers), and a
    # conditional GET answered 304 from the entry's version without building the body.
    Scenario("posts_public_get_one", "/_cms/api/content/posts", "get.lua", target=0.15, ids="posts_ids.txt",
             anonymous=True),
    Scenario("posts_public_304", "/_cms/api/content/posts/{first_post}", target=0.5, anonymous=True,
             conditional=True),
    Scenario("posts_public_list50", "/_cms/api/content/posts?limit=50", target=0.05, anonymous=True),
    Scenario("floor_get_one", "/one", "get.lua", server="floor", ids="posts_ids.txt", single=True),
    Scenario("floor_list50", "/list", server="floor", single=True),
    Scenario("floor_search", f"/search?q={SEARCH_WORD}", server="floor", single=True),
]  # fmt: skip
IMPORTED = {scenario.name for scenario in SCENARIOS if scenario.ids == "posts_ids.txt" or "posts" in scenario.path
            or scenario.server == "floor"}  # fmt: skip

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
    # The answer's size, and the most memory Python allocated while making it (tracemalloc, bench/queries.py).
    bytes: int | None = None
    peak_kb: int | None = None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _ms(value: str, unit: str) -> float:
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def wrk(
    url: str,
    *,
    connections: int,
    duration: float,
    token: str | None,
    script: str | None,
    args: list[str],
    headers: dict[str, str] | None = None,
) -> Measurement:
    command = ["wrk", "-t1", f"-c{connections}", f"-d{int(duration)}s", "--latency", "--timeout", "10s"]
    if token:
        command += ["-H", f"Authorization: Bearer {token}"]
    for name, value in (headers or {}).items():
        command += ["-H", f"{name}: {value}"]
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
    for stale in [*work.glob(f"seeded-{kind}-*"), *work.glob(f"imported-{kind}-*")]:
        stale.unlink()
    print(f"[{kind}] seeding {entries} entries …", flush=True)
    subprocess.run(
        [sys.executable, "-m", "bench.seed", "--entries", str(entries), "--out", str(work / kind)],
        cwd=ROOT,
        env={**env, "DATABASE_URL": url},
        check=True,
    )
    marker.touch()


def prepare_imported(kind: str, work: Path, posts: int, env: dict[str, str]) -> None:
    """Import ``posts`` WordPress posts into the benchmark database once (bench/imported.py); a database seeded anew
    is imported anew."""
    marker = work / f"imported-{kind}-{posts}"
    if marker.exists():
        return
    print(f"[{kind}] importing {posts} WordPress posts through import_wxr …", flush=True)
    from bench.imported import import_corpus

    import_corpus(posts, work / kind, work / f"corpus-{posts}", env)
    marker.touch()


def response_bytes(url: str, scenario: Scenario, token: str | None, ids: Path) -> int | None:
    """The size of one answer of a read scenario (what its Lua script would ask first); None for writes."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    first = ids.read_text().split()[0] if ids.exists() else ""
    if scenario.script is None:
        return len(requests.get(url, headers=headers, timeout=30).content)
    if scenario.script == "get.lua":
        return len(requests.get(f"{url}/{first}", headers=headers, timeout=30).content)
    if scenario.script == "mcp_get.lua":
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "content_get", "arguments": {"collection": (scenario.lua_args or ("bench",))[0],
                                                                "id": first}}}  # fmt: skip
        headers |= {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}
        return len(requests.post(url, json=body, headers=headers, timeout=30).content)
    return None


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
    scenarios = [s for s in SCENARIOS if not args.only or s.name in args.only]
    if not args.imported:
        scenarios = [s for s in scenarios if s.name not in IMPORTED]
    else:
        prepare_imported(kind, work, args.imported, env)

    def refresh_pool() -> None:
        subprocess.run(
            [sys.executable, "-m", "bench.seed", "--out", str(work / kind), "--pool-only"],
            cwd=ROOT,
            env=env,
            check=True,
        )

    token = (work / kind / "token").read_text().strip()
    media_key = (work / kind / "media_key").read_text().strip()
    posts_pool = work / kind / "posts_ids.txt"
    first_post = posts_pool.read_text().split()[0] if posts_pool.exists() else ""
    # The ETag each conditional scenario sends, read from the first answer once the server is up.
    etags: dict[str, str] = {}
    baseline = Server("bench.hello_wsgi:app", env)
    references = {name: Server(app, {**env, **extra}) for name, (app, extra) in REFERENCES.items()}
    worker = WORKER_CLASSES[args.worker_class]
    cms = Server(worker["app"], {**env, **worker["env"]})
    servers = {"cms": cms}
    if any(scenario.server == "floor" for scenario in scenarios):
        servers["floor"] = Server("bench.floor:application", env)
    results = {name: Result(name, kind) for name in references} | {
        s.name: Result(s.name, kind) for s in scenarios
    }

    def path_of(scenario: Scenario) -> str:
        return scenario.path.format(media_key=media_key, first_post=first_post)

    def token_of(scenario: Scenario) -> str | None:
        return None if scenario.anonymous else token

    def etag_of(scenario: Scenario) -> str:
        answer = requests.get(servers[scenario.server].url + path_of(scenario), timeout=30)
        if answer.status_code != 200 or not answer.headers.get("ETag"):
            raise RuntimeError(f"{scenario.name}: no ETag to ask again with ({answer.status_code})")
        again = requests.get(
            servers[scenario.server].url + path_of(scenario),
            headers={"If-None-Match": answer.headers["ETag"]},
            timeout=30,
        )
        # wrk counts a 200 as a success too: make sure what is measured is the 304.
        if again.status_code != 304:
            raise RuntimeError(f"{scenario.name}: asked again with its ETag, answered {again.status_code}")
        return answer.headers["ETag"]

    def load(scenario: Scenario, duration: float, connections: int | None = None) -> Measurement:
        return wrk(
            servers[scenario.server].url + path_of(scenario),
            connections=connections or scenario.connections,
            duration=duration,
            token=token_of(scenario),
            script=scenario.script,
            args=[str(work / kind / scenario.ids), *scenario.lua_args],
            headers={"If-None-Match": etags[scenario.name]} if scenario.name in etags else None,
        )

    try:
        baseline.wait("/")
        for server in references.values():
            server.wait("/")
        cms.wait("/_cms/api/health")
        if "floor" in servers:
            servers["floor"].wait("/list")
        # Warm-up: first requests load code and fill connection pools; they are not measured.
        for scenario in scenarios:
            if scenario.refresh_pool:
                refresh_pool()
            if scenario.conditional:
                etags[scenario.name] = etag_of(scenario)
            load(scenario, 1)
            results[scenario.name].bytes = (
                0
                if scenario.conditional
                else response_bytes(
                    servers[scenario.server].url + path_of(scenario),
                    scenario,
                    token_of(scenario),
                    work / kind / scenario.ids,
                )
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
                measured = load(scenario, args.duration)
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
            if scenario.p50_target is not None or scenario.p50_floor_factor is not None or scenario.single:
                if scenario.refresh_pool:
                    refresh_pool()
                results[scenario.name].p50_single_ms = load(scenario, args.duration, connections=1).p50_ms
    finally:
        baseline.stop()
        for server in [*references.values(), *servers.values()]:
            server.stop()
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
        result.queries = counts["queries"].get(name)
        result.peak_kb = counts["peakKB"].get(name)
    return list(results.values())


def _of_floor(result: Result, by_name: dict[tuple[str, str], Result], spec: Scenario) -> str:
    """This scenario's rate as a share of its floor's, paired by round (each ratio is to its own baseline)."""
    floor = by_name.get((spec.floor, result.database)) if spec.floor else None
    if floor is None or not floor.ratios:
        return ""
    shares = [mine / theirs for mine, theirs in zip(result.ratios, floor.ratios, strict=False) if theirs]
    return f"{statistics.median(shares):.0%}" if shares else ""


def _p50_cell(result: Result, by_name: dict[tuple[str, str], Result], spec: Scenario) -> tuple[str, str]:
    """The single-connection p50 with its verdict, and the target it was judged by."""
    if result.p50_single_ms is None:
        return "", ""
    cell = f"{result.p50_single_ms:.2f}"
    if spec.p50_target is not None:
        return cell + (" ✅" if result.p50_single_ms <= spec.p50_target else " ❌"), f"≤ {spec.p50_target} ms"
    floor = by_name.get((spec.floor, result.database)) if spec.floor else None
    if spec.p50_floor_factor is not None and floor is not None and floor.p50_single_ms:
        limit = spec.p50_floor_factor * floor.p50_single_ms
        verdict = " ✅" if result.p50_single_ms <= limit else " ❌"
        return cell + verdict, f"≤ {spec.p50_floor_factor:g}× floor ({limit:.2f} ms)"
    return cell, ""


def table(results: list[Result]) -> str:
    targets = {s.name: s for s in SCENARIOS}
    by_name = {(result.scenario, result.database): result for result in results}
    lines = [
        "| scenario | database | ratio median (min–max) | target | of floor | req/s median | p99 ms | 1-conn p50 ms"
        " | p50 target | bytes | peak KB | queries | errors |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
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
        p50, p50_target = _p50_cell(result, by_name, spec)
        name = (
            result.scenario
            if spec.connections == 8
            else f"{result.scenario} ({spec.connections} connections)"
        )
        size = getattr(result, "bytes", None)
        peak = getattr(result, "peak_kb", None)
        lines.append(
            f"| {name} | {result.database} | {ratio:.3f} ({min(result.ratios):.3f}–{max(result.ratios):.3f}){verdict}"
            f" | {'' if spec.target is None else f'≥ {spec.target}×'} | {_of_floor(result, by_name, spec)}"
            f" | {statistics.median(result.rps):.0f} | {p99_cell} | {p50} | {p50_target}"
            f" | {'' if size is None else f'{size:,}'} | {'' if peak is None else f'{peak:,}'}"
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
    parser.add_argument(
        "--imported",
        type=int,
        default=10_000,
        help="WordPress posts imported beside the seeded entries (bench/imported.py); 0 skips those scenarios.",
    )
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
