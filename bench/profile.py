"""Profile one benchmark scenario in process with pyinstrument, on the database `make bench` seeded.

The requests go through Django's test client (the whole middleware and view stack, no network), so the profile shows
where the CMS spends its own time. Used to find what to fix in the slowest scenarios; the before/after figures go in
docs/performance.md.

    python -m bench.profile create [--db sqlite|postgres] [--requests 500] [--time-only] [--html]

PROFILE_ALL=1 shows the library frames too (Django's middleware chain, DRF, psycopg) instead of folding them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from bench.run import RESULTS, database_url


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("scenario")
    parser.add_argument("--db", default="sqlite", choices=["sqlite", "postgres"])
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--time-only", action="store_true", help="Only the unprofiled time per request.")
    parser.add_argument(
        "--html", action="store_true", help="Also write bench/results/profile-<scenario>.html."
    )
    args = parser.parse_args()
    work = RESULTS / "work"
    os.environ["DATABASE_URL"] = database_url(args.db, work)
    os.environ.setdefault("CMS_VAR_DIR", str(work))
    os.environ.setdefault("SECRET_KEY", "bench-only-not-secret")
    os.environ.setdefault("CMS_RATE_LIMIT_API", "100000000/m")

    from bench.queries import scenario_requests, setup_django

    setup_django()
    import logging

    from pyinstrument import Profiler

    # The request log line goes to this terminal otherwise; the server writes it too, so its cost stays profiled.
    logging.getLogger("cms.request").propagate = False
    for handler in logging.getLogger("cms.request").handlers:
        handler.setStream(open(os.devnull, "w"))  # noqa: SIM115 (lives as long as the process)

    request = scenario_requests(work / args.db)[args.scenario]
    for _ in range(20):
        request()  # warm-up: per-process caches filled, as in a running server
    # Unprofiled first (the profiler slows Python code, not the database): median of five batches, in this process's
    # CPU time, which other work on a shared machine disturbs less than wall time. On SQLite that is the whole
    # request; PostgreSQL's own work happens in its server process and is not counted.
    batches = []
    per_batch = max(args.requests // 5, 1)
    for _ in range(5):
        started = time.process_time()
        for _ in range(per_batch):
            request()
        batches.append((time.process_time() - started) / per_batch * 1000)
    print(
        f"{args.scenario} on {args.db}: {statistics.median(batches):.3f} ms CPU per request (median of 5 batches)"
    )
    if args.time_only:
        return
    profiler = Profiler(interval=0.0002)
    with profiler:
        for _ in range(args.requests):
            request()
    print(profiler.output_text(unicode=True, color=False, show_all=os.environ.get("PROFILE_ALL") == "1"))
    if args.html:
        path = RESULTS / f"profile-{args.scenario}-{args.db}.html"
        path.write_text(profiler.output_html())
        print(path.relative_to(RESULTS.parent.parent))


if __name__ == "__main__":
    main()
