"""Webhooks (issue 22) in process: what an active endpoint adds to a content create, and delivery throughput.

Creates a test database with one collection, then:

- **create cost**: POSTs entries through Django's test client with an admin token (the whole middleware and view stack,
  no network), in alternating rounds without any endpoint and with one active endpoint subscribed to every event (full
  payloads: the outbox row and the entry presented for it, in the create's transaction). Prints the median time per
  create of each and the added cost in percent; also the cost of the one cached check a write pays when no endpoint
  exists.
- **throughput**: with a receiver on 127.0.0.1 (a threaded ``http.server``), runs the worker's webhooks pass until
  ``--events`` queued events are delivered, and prints events/s (signing, the SSRF-checked POST, the attempt row).

    DATABASE_URL=… python -m bench.webhooks [--creates 50] [--rounds 15] [--events 1000]

Writes bench/results/webhooks-<database>-<time>.json, which `make bench` (bench/all.py) reads for its summary.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import tempfile
import threading
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--creates", type=int, default=50, help="Creates per round.")
    parser.add_argument("--rounds", type=int, default=15, help="Rounds of each kind, alternating.")
    parser.add_argument("--events", type=int, default=1000, help="Events to deliver for the throughput.")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-webhooks-"))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cms_project.settings")
    os.environ.setdefault("CMS_VAR_DIR", str(work))
    os.environ.setdefault("SECRET_KEY", "bench-only-not-secret")
    os.environ.setdefault("CMS_RATE_LIMIT_API", "100000000/m")
    import django

    django.setup()
    import logging

    logging.disable(logging.WARNING)  # the request log, written to the terminal, would dominate the figures
    from django.conf import settings
    from django.db import connection
    from django.test.utils import setup_test_environment

    setup_test_environment()
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        _run(args, settings, connection)
    finally:
        connection.creation.destroy_test_db(connection.settings_dict["NAME"], verbosity=0)


def _run(args, settings, connection) -> None:
    from django.test import Client

    from apps.accounts.models import Role
    from apps.accounts.permissions import Actor
    from apps.webhooks import delivery, outbox, services
    from apps.webhooks.models import Delivery, Endpoint, Event
    from tests.factories import make_collection, make_token, make_user

    make_collection("bench", fields=[{"slug": "title", "type": "string"}, {"slug": "body", "type": "text"}])
    _, raw = make_token(make_user(Role.ADMIN), ["admin"])
    client = Client(HTTP_AUTHORIZATION=f"Bearer {raw}")
    system = Actor.system()
    counter = iter(range(10**9))

    def create_round() -> tuple[float, float]:
        """Milliseconds per create: wall time, and this process's CPU time (less moved by a loaded machine)."""
        started, cpu = time.perf_counter(), time.process_time()
        for _ in range(args.creates):
            n = next(counter)
            response = client.post(
                "/_cms/api/content/bench",
                {"data": {"title": f"Post {n}", "body": "A paragraph of text. " * 20}},
                content_type="application/json",
            )
            assert response.status_code == 201, response.content
        wall, used = time.perf_counter() - started, time.process_time() - cpu
        return wall / args.creates * 1000, used / args.creates * 1000

    create_round()  # warm caches and code paths
    rounds: dict[str, list[tuple[float, float]]] = {"none": [], "ids": [], "full": []}
    for _ in range(args.rounds):
        Endpoint.objects.all().delete()
        outbox.subscriptions_changed()
        rounds["none"].append(create_round())
        for mode in ("ids", "full"):
            values = {"url": "https://hooks.example.com/x", "payloadMode": mode}
            endpoint = services.endpoint_create(actor=system, values=values)
            rounds[mode].append(create_round())
            services.endpoint_delete(actor=system, endpoint=endpoint)
    print(
        f"database: {connection.vendor}; medians of {args.rounds} alternating rounds of {args.creates} creates"
    )
    report: dict = {"database": "postgres" if connection.vendor == "postgresql" else "sqlite", "create": {}}
    for index, kind in ((0, "wall"), (1, "CPU")):
        base = statistics.median(item[index] for item in rounds["none"])
        line = f"create ({kind}): no endpoint {base:.3f} ms"
        report["create"][kind] = {"none_ms": base}
        for mode in ("ids", "full"):
            hooked = statistics.median(item[index] for item in rounds[mode])
            line += f"; {mode} endpoint {hooked:.3f} ms ({(hooked / base - 1) * 100:+.1f}%)"
            report["create"][kind][f"{mode}_ms"] = hooked
            report["create"][kind][f"{mode}_added_percent"] = (hooked / base - 1) * 100
        print(line)
    checks = 100_000
    started = time.perf_counter()
    for _ in range(checks):
        outbox.subscriptions()
    print(f"the cached check alone: {(time.perf_counter() - started) / checks * 1e6:.2f} µs per write")

    # The receiver runs in a process of its own, as a real one would: it does not take the worker's CPU time slices.
    parent, child = multiprocessing.Pipe()
    process = multiprocessing.get_context("fork").Process(target=_serve, args=(child,), daemon=True)
    process.start()
    url = parent.recv()
    settings.CMS_WEBHOOK_ALLOWED_HOSTS = ["127.0.0.1"]
    settings.CMS_WEBHOOK_BATCH_SIZE = 100
    Event.objects.all().delete()  # the create rounds' events, for endpoints deleted since
    services.endpoint_create(actor=system, values={"url": url, "payloadMode": "full"})
    from apps.schema.selectors import collection_for_read
    from tests.factories import make_entry

    bench = collection_for_read(slug="bench")
    for n in range(args.events):
        make_entry(bench, {"title": f"Event {n}"})
    started = time.perf_counter()
    while (
        Event.objects.filter(fanned_out=False).exists() or Delivery.objects.filter(state="pending").exists()
    ):
        delivery.run_pass()
    elapsed = time.perf_counter() - started
    process.terminate()
    delivered = Delivery.objects.filter(state="delivered").count()
    for state, error in Delivery.objects.exclude(state="delivered").values_list("state", "last_error")[:3]:
        print(f"not delivered: {state} {error}")
    print(f"throughput: {delivered} events delivered in {elapsed:.2f} s = {delivered / elapsed:.0f} events/s")
    report["throughput"] = {"events": delivered, "seconds": elapsed, "events_per_second": delivered / elapsed}
    results = Path(__file__).resolve().parent / "results"
    results.mkdir(exist_ok=True)
    out = results / f"webhooks-{report['database']}-{time.strftime('%Y%m%dT%H%M%S')}.json"
    out.write_text(json.dumps(report, indent=2))
    print(f"written: {out.name}")


def _serve(pipe) -> None:
    from tests.webhooks.conftest import Receiver

    receiver = Receiver()
    receiver.start()
    pipe.send(receiver.url)
    threading.Event().wait()


if __name__ == "__main__":
    main()
