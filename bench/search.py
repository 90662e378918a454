"""`make bench-search`: full-text search at 100,000 entries on SQLite and PostgreSQL (GIN and RUM), through HTTP.

For each database (and, on PostgreSQL, each index: GIN, the default, and RUM) it measures
- the ``manage.py reindex`` rate (documents/s) building the whole index from nothing;
- single-connection latency (p50, p99, max) of rare, mid-frequency, frequent and near-universal single words,
  two-word AND queries (mid + mid; frequent + near-universal), phrases (two near-universal words, common; two
  frequent words, rare), and suggest (two-letter and five-letter prefixes), each cycling through 8 queries;
- throughput of a mixed query set with 8 connections, as a ratio to a bare WSGI app measured in the same round;
- create-entry throughput into a searchable collection and into an identical one without search, alternating, as the
  ratio of the two.

The corpus (bench/corpus.py) and the query sets (bench/search_seed.py) are deterministic. Results go to
bench/results/search-<timestamp>.json and to docs/performance.md between the bench:search markers.

    python -m bench.search [--db sqlite,postgres] [--modes gin,rum] [--entries 100000] [--duration 10] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from bench.run import RESULTS, ROOT, Server, write_block, wrk

PG_DEFAULT = "postgres://postgres@127.0.0.1:5432/cms_bench_search"
BEGIN, END = "<!-- bench:search:begin -->", "<!-- bench:search:end -->"


@dataclass(frozen=True)
class Scenario:
    name: str
    label: str
    # p99 target in milliseconds (None: reported only; every query must still stay under a second).
    p99_target: float | None = None


SCENARIOS = [
    Scenario("rare", "rare word (~0.1% of documents)"),
    Scenario("mid", "mid-frequency word (~2%)", 25.0),
    Scenario("frequent", "frequent word (~27%)"),
    Scenario("universal", "near-universal word (~99%)", 150.0),
    Scenario("and_mid", "two mid-frequency words (AND)"),
    Scenario("and_broad", "frequent AND near-universal"),
    Scenario("phrase_common", "phrase of two near-universal words"),
    Scenario("phrase_rare", "phrase of two frequent words (rare as a phrase)"),
    Scenario("suggest_short", "suggest, 2-letter prefix", 20.0),
    Scenario("suggest_word", "suggest, 5-letter prefix", 20.0),
]
# Issue 24's targets at a million entries: a mid-frequency word, a word in about a quarter of the documents, and
# suggest. The other scenarios are reported against the one-second bound only.
MILLION = 1_000_000
MILLION_TARGETS = {"mid": 50.0, "frequent": 300.0, "suggest_short": 20.0, "suggest_word": 20.0}
MAX_MS = 1000.0
KEPT_INDEX = (
    "import json; from apps.content.models import Entry; from apps.search.backends import get_search_backend; "
    "from apps.search.models import SearchDocument; print(json.dumps({'engine': get_search_backend().engine(), "
    "'entries': Entry.objects.count(), 'documents': SearchDocument.objects.count()}))"
)
THROUGHPUT_TARGET = 0.044
WRITE_TARGET = 0.70


@dataclass
class Latency:
    scenario: str
    p50_ms: float
    p99_ms: float
    max_ms: float
    requests: int
    errors: int


@dataclass
class Run:
    database: str
    engine: str = ""
    entries: int = 0
    documents: int = 0
    reindex_seconds: float = 0.0
    reindex_rate: float = 0.0
    latency: list[Latency] = field(default_factory=list)
    search_ratio: list[float] = field(default_factory=list)
    search_rps: list[float] = field(default_factory=list)
    mixed_ratio: list[float] = field(default_factory=list)
    rare_ratio: list[float] = field(default_factory=list)
    # CPU time per request (all gunicorn processes, and PostgreSQL's backends for this database), and the
    # baseline's divided by search's: the throughput ratio on a machine nothing else uses (both are CPU-bound).
    cpu_ms: list[float] = field(default_factory=list)
    cpu_ratio: list[float] = field(default_factory=list)
    write_ratio: list[float] = field(default_factory=list)
    write_rps_search: list[float] = field(default_factory=list)
    write_rps_plain: list[float] = field(default_factory=list)
    errors: int = 0


def cpu_seconds(server: Server) -> float:
    """User and system CPU time used so far by a gunicorn server: its master, its live workers and the workers it
    has reaped (Linux /proc)."""
    master = server.process.pid
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid, parent = int(entry.name), int(fields[1])
        if pid == master:
            # Its own time and that of the workers it has reaped (gunicorn replaces workers after max_requests).
            total += sum(int(value) for value in fields[11:15]) / ticks
        elif parent == master:
            total += (int(fields[11]) + int(fields[12])) / ticks
    return total


def database_cpu_seconds(url: str) -> float:
    """CPU time used so far by the PostgreSQL backends serving the benchmark database (0 for SQLite, which runs
    inside the server's processes). Other databases on the same server are not counted."""
    if not url.startswith("postgres"):
        return 0.0
    import psycopg

    name = urlsplit(url).path.lstrip("/")
    with psycopg.connect(urlunsplit(urlsplit(url)._replace(path="/postgres"))) as conn:
        pids = [row[0] for row in conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s", [name])]
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / ticks
    return total


def database_url(kind: str, work: Path) -> str:
    if kind == "sqlite":
        return f"sqlite:///{work / 'search.sqlite3'}"
    return os.environ.get("BENCH_SEARCH_DATABASE_URL", PG_DEFAULT)


def manage(env: dict, *args: str) -> str:
    completed = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True, capture_output=True, text=True
    )
    return completed.stdout


def prepare(kind: str, url: str, work: Path, entries: int, reseed: bool, env: dict) -> None:
    marker = work / f"search-seeded-{kind}-{entries}"
    if marker.exists() and not reseed:
        # A database seeded by an earlier run keeps its data but may predate migrations added since.
        manage(env, "migrate", "--noinput", "-v0")
        subprocess.run(
            [sys.executable, "-m", "bench.search_seed", "--out", str(work / f"search-{kind}"), "--cleanup"],
            cwd=ROOT,
            env=env,
            check=True,
        )
        return
    if kind == "sqlite":
        for suffix in ("", "-wal", "-shm"):
            Path(str(work / "search.sqlite3") + suffix).unlink(missing_ok=True)
    else:
        import psycopg

        parts = urlsplit(url)
        name = parts.path.lstrip("/")
        with psycopg.connect(urlunsplit(parts._replace(path="/postgres")), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"')
    for stale in work.glob(f"search-seeded-{kind}-*"):
        stale.unlink()
    print(f"[{kind}] seeding {entries} entries …", flush=True)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.search_seed",
            "--entries",
            str(entries),
            "--out",
            str(work / f"search-{kind}"),
        ],
        cwd=ROOT,
        env=env,
        check=True,
    )
    marker.touch()


def measure(kind: str, mode: str | None, args, work: Path, env: dict) -> Run:
    label = f"{kind}-{mode}" if mode else kind
    run = Run(label)
    out = work / f"search-{kind}"
    if args.keep_index:
        # The last line: the shell may print notices first.
        kept = json.loads(manage(env, "shell", "-c", KEPT_INDEX).strip().splitlines()[-1])
        run.engine, run.entries, run.documents = kept["engine"], kept["entries"], kept["documents"]
        print(f"[{label}] measuring the {run.documents} documents already indexed", flush=True)
    else:
        reindex = ["reindex", "--full", "--json", "--no-progress"]
        if mode:
            reindex += ["--index", mode]
        print(f"[{label}] reindex …", flush=True)
        result = json.loads(manage(env, *reindex))
        run.engine = result["engine"]
        run.entries = result["entries"]
        run.documents = result["documents"]
        run.reindex_seconds = result["seconds"]
        run.reindex_rate = result["documentsPerSecond"]
        print(
            f"[{label}] {run.documents} documents in {run.reindex_seconds:.1f} s ({run.reindex_rate:.0f}/s)",
            flush=True,
        )

    if kind == "postgres" and not args.keep_index:
        # A full reindex rewrites every document: autovacuum then starts on the table in the middle of the
        # measurements (p99s several times the steady state's). A server in service is past that point.
        import psycopg

        with psycopg.connect(env["DATABASE_URL"], autocommit=True) as conn:
            conn.execute("VACUUM (ANALYZE) search_searchdocument")
            conn.execute("VACUUM (ANALYZE) content_entry")

    reader = (out / "reader-token").read_text().strip()
    admin = (out / "token").read_text().strip()
    bodies = str(out / "create-bodies.txt")
    baseline = Server("bench.hello_wsgi:app", env)
    cms = Server("cms_project.wsgi", env)
    try:
        baseline.wait("/")
        cms.wait("/_cms/api/health")
        only = set(filter(None, args.only.split(",")))
        for scenario in SCENARIOS:
            if only and scenario.name not in only:
                continue
            paths = str(out / "paths" / f"{scenario.name}.txt")
            # Warm-up on 8 connections: gunicorn's sync workers take turns only under concurrent load, and a worker
            # whose first requests fell inside the one-connection measurement put second-long cold starts in its p99.
            wrk(cms.url, connections=8, duration=2, token=reader, script="paths.lua", args=[paths])
            measured = wrk(
                cms.url, connections=1, duration=args.duration, token=reader, script="paths.lua", args=[paths]
            )
            run.latency.append(
                Latency(
                    scenario.name,
                    measured.p50_ms,
                    measured.p99_ms,
                    measured.max_ms,
                    measured.requests,
                    measured.errors,
                )
            )
            run.errors += measured.errors
            print(
                f"[{label}]   {scenario.name:15} p50 {measured.p50_ms:7.2f} ms  p99 {measured.p99_ms:7.2f} ms  "
                f"max {measured.max_ms:7.1f} ms  ({measured.requests} requests, {measured.errors} errors)",
                flush=True,
            )

        def load(url: str, token: str | None, script: str | None, data: str | None):
            return wrk(
                url,
                connections=8,
                duration=args.throughput_duration,
                token=token,
                script=script,
                args=[data] if data else [],
            )

        for number in range(args.rounds):
            before = cpu_seconds(baseline)
            reference = load(baseline.url + "/", None, None, None)
            reference_cpu = (cpu_seconds(baseline) - before) / max(reference.requests, 1)
            before = cpu_seconds(cms) + database_cpu_seconds(env["DATABASE_URL"])
            typical = load(cms.url, reader, "paths.lua", str(out / "paths" / "mid.txt"))
            used = cpu_seconds(cms) + database_cpu_seconds(env["DATABASE_URL"]) - before
            typical_cpu = used / max(typical.requests, 1)
            rare = load(cms.url, reader, "paths.lua", str(out / "paths" / "rare.txt"))
            mixed = load(cms.url, reader, "paths.lua", str(out / "paths" / "mixed.txt"))
            run.rare_ratio.append(rare.rps / reference.rps)
            run.cpu_ms.append(typical_cpu * 1000)
            run.cpu_ratio.append(reference_cpu / typical_cpu if typical_cpu else 0.0)
            plain = load(cms.url + "/_cms/api/content/plain", admin, "create_bodies.lua", bodies)
            indexed = load(cms.url + "/_cms/api/content/articles", admin, "create_bodies.lua", bodies)
            run.search_ratio.append(typical.rps / reference.rps)
            run.search_rps.append(typical.rps)
            run.mixed_ratio.append(mixed.rps / reference.rps)
            run.write_rps_plain.append(plain.rps)
            run.write_rps_search.append(indexed.rps)
            run.write_ratio.append(indexed.rps / plain.rps)
            run.errors += typical.errors + rare.errors + mixed.errors + plain.errors + indexed.errors
            print(
                f"[{label}] round {number + 1}: baseline {reference.rps:.0f} req/s, search: mid {typical.rps:.0f} "
                f"({typical.rps / reference.rps:.3f}×; CPU {typical_cpu * 1000:.2f} ms vs {reference_cpu * 1000:.3f} ms), "
                f"rare {rare.rps:.0f} ({rare.rps / reference.rps:.3f}×), mixed {mixed.rps:.0f} ({mixed.rps / reference.rps:.3f}×); "
                f"create {indexed.rps:.1f} with search vs {plain.rps:.1f} without ({indexed.rps / plain.rps:.2f})",
                flush=True,
            )
    finally:
        baseline.stop()
        cms.stop()
    return run


def p99_target(scenario: Scenario, entries: int) -> float | None:
    if entries >= MILLION:
        return MILLION_TARGETS.get(scenario.name)
    return scenario.p99_target


def table(runs: list[Run], entries: int) -> str:
    measured = {item.scenario for run in runs for item in run.latency}
    lines = [
        "| scenario | " + " | ".join(f"{run.database} p50 / p99 / max ms" for run in runs) + " | target |",
        "|---|" + "---|" * len(runs) + "---|",
    ]
    for scenario in SCENARIOS:
        if scenario.name not in measured:
            continue
        goal = p99_target(scenario, entries)
        cells = []
        for run in runs:
            found = next(item for item in run.latency if item.scenario == scenario.name)
            ok = found.max_ms < MAX_MS and (goal is None or found.p99_ms < goal)
            cells.append(
                f"{found.p50_ms:.1f} / {found.p99_ms:.1f} / {found.max_ms:.0f} {'✅' if ok else '❌'}"
            )
        target = f"p99 < {goal:g} ms" if goal else "max < 1 s"
        lines.append(f"| {scenario.label} | " + " | ".join(cells) + f" | {target} |")

    def median(values):
        return statistics.median(values) if values else 0.0

    def spread(values):
        return f"{median(values):.3f} ({min(values):.3f}–{max(values):.3f})" if values else "-"

    measured_throughput = (
        throughput_rows(runs, median, spread) if any(run.search_ratio for run in runs) else []
    )
    rows = [
        ("index engine", [run.engine for run in runs], ""),
        ("documents indexed", [f"{run.documents:,}" for run in runs], ""),
        (
            "`reindex` rate, documents/s",
            [
                f"{run.reindex_rate:,.0f} ({run.reindex_seconds:.0f} s)" if run.reindex_seconds else "kept"
                for run in runs
            ],
            "",
        ),
        *measured_throughput,
        ("non-2xx or socket errors", [str(run.errors) for run in runs], "0"),
    ]
    lines += [f"| {name} | " + " | ".join(cells) + f" | {target} |" for name, cells, target in rows]
    return "\n".join(lines)


def throughput_rows(runs: list[Run], median, spread) -> list:
    return [
        (
            "search req/s ÷ bare WSGI req/s (mid-frequency words, 8 connections)",
            [
                f"{spread(run.search_ratio)} {'✅' if median(run.search_ratio) >= THROUGHPUT_TARGET else '❌'}"
                for run in runs
            ],
            f"≥ {THROUGHPUT_TARGET}×",
        ),
        (
            "search req/s ÷ bare WSGI req/s (rare words)",
            [
                f"{spread(run.rare_ratio)} {'✅' if median(run.rare_ratio) >= THROUGHPUT_TARGET else '❌'}"
                for run in runs
            ],
            f"≥ {THROUGHPUT_TARGET}×",
        ),
        (
            "CPU per mid-frequency search (server and database), ms (bare WSGI's ÷ search's)",
            # A round where a worker exited unreaped during the measurement reads wrong; such rounds are left out.
            [
                f"{median(run.cpu_ms):.2f} ({spread([ratio for ratio in run.cpu_ratio if ratio > 0])})"
                for run in runs
            ],
            f"≥ {THROUGHPUT_TARGET}×",
        ),
        (
            "search req/s ÷ bare WSGI req/s (every query kind in turn)",
            [spread(run.mixed_ratio) for run in runs],
            "",
        ),
        (
            "create req/s with search ÷ without",
            [
                f"{spread(run.write_ratio)} ({median(run.write_rps_search):.0f} vs {median(run.write_rps_plain):.0f}) "
                f"{'✅' if median(run.write_ratio) >= WRITE_TARGET else '❌'}"
                for run in runs
            ],
            f"≥ {WRITE_TARGET}",
        ),
    ]


def write_doc(runs: list[Run], args, started: datetime) -> None:
    machine = f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
    block = (
        f"{BEGIN}\nMeasured {started:%Y-%m-%d %H:%M} UTC on {machine}; {args.entries:,} entries (90% published), "
        f"latency with one connection for {args.duration} s per scenario, throughput {args.rounds} rounds of "
        f"{args.throughput_duration} s with 8 connections.\n\n{table(runs, args.entries)}\n{END}"
    )
    write_block(BEGIN, END, block)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--db", default="sqlite,postgres")
    parser.add_argument("--modes", default="gin,rum", help="PostgreSQL indexes to measure.")
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument(
        "--duration", type=int, default=10, help="Seconds of single-connection latency per scenario."
    )
    parser.add_argument("--throughput-duration", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--reseed", action="store_true")
    parser.add_argument(
        "--only", default="", help="Comma-separated latency scenarios to measure (default: all of them)."
    )
    parser.add_argument(
        "--keep-index",
        action="store_true",
        help="Measure the documents an earlier run indexed instead of rebuilding them (a million take half an hour).",
    )
    parser.add_argument("--no-doc", action="store_true", help="Do not rewrite docs/performance.md.")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        print("wrk is needed: apt-get install wrk", file=sys.stderr)
        return 1
    # Stopped with SIGTERM: unwind, so the servers started here are stopped too.
    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(143))
    RESULTS.mkdir(parents=True, exist_ok=True)
    work = RESULTS / "work"
    work.mkdir(exist_ok=True)
    started = datetime.now(UTC)
    runs: list[Run] = []
    for kind in args.db.split(","):
        url = database_url(kind, work)
        env = {
            **os.environ,
            "DATABASE_URL": url,
            "CMS_VAR_DIR": str(work),
            "SECRET_KEY": "bench-only-not-secret",
            "CMS_RATE_LIMIT_API": "100000000/m",
            "PYTHONPATH": str(ROOT),
        }
        # Its own directory: the REST benchmark keeps its token and id pool in work/<kind>.
        (work / f"search-{kind}").mkdir(parents=True, exist_ok=True)
        prepare(kind, url, work, args.entries, args.reseed, env)
        modes = args.modes.split(",") if kind == "postgres" else [None]
        for mode in modes:
            runs.append(measure(kind, mode, args, work, env))
    stamp = started.strftime("%Y%m%dT%H%M%S")
    (RESULTS / f"search-{stamp}.json").write_text(json.dumps([asdict(run) for run in runs], indent=2))
    print("\n" + table(runs, args.entries))
    if not args.no_doc:
        write_doc(runs, args, started)
    return 0


if __name__ == "__main__":
    sys.exit(main())
