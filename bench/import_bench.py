"""`make bench-import`: WordPress import throughput and memory, on SQLite and PostgreSQL.

For each database: a fresh schema, then ``manage.py import_wxr`` of a deterministic generated export (posts with
realistic block markup, categories, tags, authors, attachments; ``tests/importer/wxr_factory.py``) in its own
process, timed end to end (copy of the upload, parse, convert, create entries with their revisions and credits,
terms, search index through the entry events) with its peak resident memory. Beside it, in the same run, the bare
parse-and-convert rate of the same file (the reader alone), and the peak memory of reading a larger file, which
shows whether memory stays bounded whatever the file's size.

With ``--worker`` the same file is also imported the way an upload over ``CMS_IMPORT_SYNC_MAX_BYTES`` is: a queued
job that ``manage.py worker`` runs in slices of ``--slice`` seconds (``CMS_IMPORT_WORKER_SLICE_SECONDS``), its row
read every quarter second; the run reports how long the job showed no progress (neither its cursor nor its phase
moved for more than two seconds). A slice shorter than the default stands in for a slower machine: what matters is
how many slices the import takes.

    python -m bench.import_bench [--posts 10000] [--large 100000] [--db sqlite,postgres] [--pg URL]
                                 [--worker] [--slice 60]

The machine is shared: absolute numbers vary from run to run; compare posts/s with the bare rate of the same run.
Results: bench/results/import-<timestamp>.json and the table in docs/performance.md between the import markers.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.importer.wxr_factory import write_wxr  # noqa: E402

RESULTS = ROOT / "bench" / "results"
PERFORMANCE_DOC = ROOT / "docs" / "performance.md"
# Its own database: the import flushes it, and `make bench` keeps its seeded REST database between runs.
PG_DEFAULT = "postgres://postgres@127.0.0.1:5432/cms_bench_import"
TIME = "/usr/bin/time"

READER = """
import sys, time
sys.path.insert(0, {root!r})
from apps.importer.sources.wxr import read_wxr
from apps.importer.items import ImportItem
started = time.perf_counter()
items = sum(1 for record in read_wxr({path!r}, convert={convert}) if isinstance(record, ImportItem))
print(items, time.perf_counter() - started)
"""


def _peak_kb(stderr: str) -> int:
    match = re.search(r"PEAK_KB=(\d+)", stderr)
    return int(match.group(1)) if match else 0


def _timed(command: list[str], env: dict[str, str]) -> tuple[float, int, str]:
    """Wall seconds, peak resident kB and output of a command run in its own process."""
    started = time.perf_counter()
    done = subprocess.run(
        [TIME, "-f", "PEAK_KB=%M", *command], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr[-3000:]}")
    return elapsed, _peak_kb(done.stderr), done.stdout


def reader_rate(path: Path, *, convert: bool) -> dict:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "cms_project.settings"}
    script = "import django; django.setup()\n" + READER.format(
        root=str(ROOT), path=str(path), convert=convert
    )
    _, peak, out = _timed([sys.executable, "-c", script], env)
    items, seconds = out.split()
    return {"items": int(items), "seconds": round(float(seconds), 2), "itemsPerSecond": round(int(items) / float(seconds)),
            "peakMB": round(peak / 1024)}  # fmt: skip


def _fresh_database(url: str) -> None:
    """A new database each run: ``flush`` empties the tables but keeps the per-field indexes of the collections it
    deleted, which would pile up run after run and slow every insert."""
    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    with psycopg.connect(urlunsplit(parts._replace(path="/postgres")), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


# The import's own peak plus its reader process's (large files are read ahead in a second process): the memory the
# import needs. The reader reports its own peak (the kernel's count for a child includes the parent's pages it shared
# between fork and exec), which the import logs at DEBUG.
IMPORT = """
import logging, resource, runpy, sys
peaks = []
class Peak(logging.Handler):
    def emit(self, record):
        peaks.append(getattr(record, "reader_peak_kb", None) or 0)
reader_log = logging.getLogger("apps.importer.readahead")
reader_log.setLevel(logging.DEBUG)
reader_log.propagate = False
reader_log.addHandler(Peak())
sys.argv = ["manage.py", *sys.argv[1:]]
try:
    runpy.run_path("manage.py", run_name="__main__")
finally:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    reader = max(peaks, default=0)
    print(f"IMPORT_PEAK_KB={own + reader} READER_PEAK_KB={reader}", file=sys.stderr)
"""


def import_run(path: Path, database_url: str, posts: int, work: Path) -> dict:
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "CMS_IMPORT_DIR": str(work / "imports"),
        "CMS_REQUEST_LOG": "false",
        "CMS_LOG_LEVEL": "WARNING",
        "CMS_VAR_DIR": str(work / "var"),
    }
    (work / "var").mkdir(exist_ok=True)
    if database_url.startswith("postgres"):
        _fresh_database(database_url)
    else:
        Path(urlsplit(database_url).path[1:]).unlink(missing_ok=True)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", IMPORT, "import_wxr", str(path), "--no-progress"],
        cwd=ROOT, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    seconds = time.perf_counter() - started
    if done.returncode != 0 or f"posts: created {posts}" not in done.stdout:
        raise SystemExit(f"The import did not create {posts} posts:\n{done.stdout}\n{done.stderr[-3000:]}")
    peak = int(re.search(r"IMPORT_PEAK_KB=(\d+)", done.stderr).group(1))
    reader = int(re.search(r"READER_PEAK_KB=(\d+)", done.stderr).group(1))
    return {"posts": posts, "seconds": round(seconds, 1), "postsPerSecond": round(posts / seconds),
            "peakMB": round(peak / 1024), "readerPeakMB": round(reader / 1024)}  # fmt: skip


# Run in the import's environment: queue a job as an upload too large for the request would, start a worker, and
# follow the job's row until it ends. Prints one JSON line.
WORKER = """
import json, os, signal, subprocess, sys, time
import django
django.setup()
from apps.accounts.permissions import Actor
from apps.importer import services
from apps.importer.models import ImportJob
started = time.monotonic()
analysis = services.analysis_from_path(actor=Actor.system(), path=sys.argv[1])
job = services.job_create(actor=Actor.system(), analysis=analysis)
queued = time.monotonic()
worker = subprocess.Popen([sys.executable, "manage.py", "worker", "--interval", "1"])
samples = []
try:
    while True:
        row = ImportJob.objects.values_list("state", "phase", "cursor").get(pk=job.pk)
        samples.append((time.monotonic(), *row))
        if row[0] not in ("queued", "running"):
            break
        time.sleep(0.25)
finally:
    worker.send_signal(signal.SIGTERM)
    worker.wait()
gaps, since, last = [], queued, None
for moment, state, phase, cursor in samples:
    if (phase, cursor) != last:
        if moment - since > 2:
            gaps.append(round(moment - since, 1))
        since, last = moment, (phase, cursor)
print(json.dumps({"state": samples[-1][1], "seconds": samples[-1][0] - started, "analysis": queued - started,
                  "stalled": round(sum(gaps), 1), "longestStall": max(gaps, default=0), "stalls": len(gaps)}))
"""


def worker_run(path: Path, database_url: str, posts: int, work: Path, slice_seconds: int) -> dict:
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "cms_project.settings",
        "CMS_IMPORT_DIR": str(work / "imports"),
        "CMS_IMPORT_WORKER_SLICE_SECONDS": str(slice_seconds),
        "CMS_REQUEST_LOG": "false",
        "CMS_LOG_LEVEL": "WARNING",
        "CMS_VAR_DIR": str(work / "var"),
    }
    if database_url.startswith("postgres"):
        _fresh_database(database_url)
    else:
        Path(urlsplit(database_url).path[1:]).unlink(missing_ok=True)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    done = subprocess.run(
        [sys.executable, "-c", WORKER, str(path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"The worker import failed:\n{done.stdout}\n{done.stderr[-3000:]}")
    run = json.loads(done.stdout.strip().splitlines()[-1])
    if run["state"] != "completed":
        raise SystemExit(f"The worker import ended {run['state']}:\n{done.stderr[-3000:]}")
    return {"posts": posts, "slice": slice_seconds, "seconds": round(run["seconds"], 1),
            "postsPerSecond": round(posts / run["seconds"]), "stalledSeconds": run["stalled"],
            "longestStall": run["longestStall"], "stalls": run["stalls"]}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--posts", type=int, default=10_000)
    parser.add_argument("--large", type=int, default=100_000, help="Posts of the file read for peak memory.")
    parser.add_argument("--db", default="sqlite,postgres")
    parser.add_argument("--pg", default=os.environ.get("BENCH_PG_URL", PG_DEFAULT))
    parser.add_argument("--worker", action="store_true", help="Also import through the worker, in slices.")
    parser.add_argument(
        "--slice", type=int, default=60, help="The worker's slice in seconds (with --worker)."
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cms-import-bench-") as directory:
        work = Path(directory)
        path = write_wxr(work / f"posts-{args.posts}.xml", args.posts)
        results: dict = {
            "at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "machine": f"{platform.node()} ({os.cpu_count()} CPUs, shared)",
            "file": {"posts": args.posts, "bytes": path.stat().st_size},
            "parse": reader_rate(path, convert=False),
            "parseAndConvert": reader_rate(path, convert=True),
            "imports": {},
        }
        print(json.dumps(results, indent=2), flush=True)
        for db in args.db.split(","):
            url = f"sqlite:///{work / 'bench.sqlite3'}" if db == "sqlite" else args.pg
            results["imports"][db] = import_run(path, url, args.posts, work)
            print(db, results["imports"][db], flush=True)
            if args.worker:
                results.setdefault("workerImports", {})[db] = worker_run(
                    path, url, args.posts, work, args.slice
                )
                print(db, "worker", results["workerImports"][db], flush=True)
        if args.large:
            large = write_wxr(work / f"posts-{args.large}.xml", args.large)
            results["large"] = {
                "posts": args.large,
                "bytes": large.stat().st_size,
                **reader_rate(large, convert=True),
            }
            print("large", results["large"], flush=True)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"import-{results['at'].replace(':', '')}.json").write_text(json.dumps(results, indent=2))
    _write_table(results)


def _write_table(results: dict) -> None:
    convert = results["parseAndConvert"]["itemsPerSecond"]
    rows = [
        "| Measure | Result |",
        "|---|---|",
        f"| File | {results['file']['posts']} posts, {results['file']['bytes'] // 1_000_000} MB |",
        f"| Parse only | {results['parse']['itemsPerSecond']} items/s, peak {results['parse']['peakMB']} MB |",
        f"| Parse + convert to Portable Text | {convert} items/s, peak {results['parseAndConvert']['peakMB']} MB |",
    ]
    for db, run in results["imports"].items():
        rows.append(
            f"| Import end to end, {db} | {run['seconds']} s, **{run['postsPerSecond']} posts/s** "
            f"({run['postsPerSecond'] / convert:.0%} of the bare convert rate), peak {run['peakMB']} MB "
            f"(of which the reader process {run.get('readerPeakMB', 0)} MB) |"
        )
    for db, run in results.get("workerImports", {}).items():
        rows.append(
            f"| Import through the worker, {db}, slices of {run['slice']} s | {run['seconds']} s, "
            f"**{run['postsPerSecond']} posts/s**, no progress for {run['stalledSeconds']} s "
            f"({run['stalls']} pauses, the longest {run['longestStall']} s) |"
        )
    if "large" in results:
        large = results["large"]
        rows.append(
            f"| Parse + convert, {large['posts']} posts ({large['bytes'] // 1_000_000} MB) | "
            f"{large['itemsPerSecond']} items/s, peak {large['peakMB']} MB |"
        )
    table = "\n".join([f"Run {results['at']} on {results['machine']}.", "", *rows])
    begin, end = "<!-- bench:import:begin -->", "<!-- bench:import:end -->"
    text = PERFORMANCE_DOC.read_text() if PERFORMANCE_DOC.exists() else ""
    if begin in text and end in text:
        text = text[: text.index(begin) + len(begin)] + "\n" + table + "\n" + text[text.index(end) :]
    else:
        text += f"\n{begin}\n{table}\n{end}\n"
    PERFORMANCE_DOC.write_text(text)


if __name__ == "__main__":
    main()
