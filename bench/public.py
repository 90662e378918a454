"""Public reads in process (issue 22): anonymous GET one, conditional GETs answered 304, anonymous list of 50, each
beside the same read with a token, and the compression of a list page of 50.

Imports the Theme Unit Test WXR into a fresh test database, makes ``posts`` public and tops it up to at least 60
published posts (copies of the imported ones), then requests through Django's test client (the whole middleware and
view stack, no network). Prints, per case, the median over ``--runs`` runs of ``--requests`` requests and the queries
per request; then the sizes of the list page as JSON, gzip and brotli and the time each coding takes. For the HTTP
ratios to the bare WSGI app, the lead adds these reads to `make bench` (bench/run.py).

    DATABASE_URL=… python -m bench.public [--requests 300] [--runs 3] [--markdown]
"""

from __future__ import annotations

import argparse
import cProfile
import gzip
import os
import pstats
import statistics
import tempfile
import time
from io import StringIO
from pathlib import Path

from bench.imported_get_one import _captured
from tests.testdata import TESTDATA

WXR = TESTDATA / "wxr" / "theme-test-data" / "themeunittestdata.wordpress.xml"


def _timed(request, runs: int, count: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        for _ in range(count):
            request()
        times.append((time.perf_counter() - started) / count * 1000)
    return statistics.median(times)


def _calls(request, count: int = 30) -> float:
    """Python function calls per request: unlike time, independent of the machine's load."""
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(count):
        request()
    profile.disable()
    return pstats.Stats(profile).total_calls / count


def _coding_cost(body: bytes, coding, runs: int = 50) -> tuple[int, float]:
    started = time.perf_counter()
    for _ in range(runs):
        packed = coding(body)
    return len(packed), (time.perf_counter() - started) / runs * 1000


def _setup(work: Path):
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cms_project.settings")
    os.environ.setdefault("CMS_VAR_DIR", str(work))
    os.environ.setdefault("SECRET_KEY", "bench-only-not-secret")
    os.environ.setdefault("CMS_RATE_LIMIT_API", "100000000/m")
    import django

    django.setup()
    import logging

    logging.disable(logging.INFO)  # the request log, written to the terminal, would dominate the figures
    from django.test.utils import setup_test_environment

    setup_test_environment()


def _seed() -> tuple[str, str]:
    """Import, make posts public, top it up to 60 published posts; the imported post read and a reader's token."""
    from django.core.management import call_command

    from apps.accounts.models import Role
    from apps.accounts.permissions import Actor
    from apps.content import services as content_services
    from apps.content.models import Entry
    from apps.schema import services as schema_services
    from apps.schema.selectors import collection_for_read
    from apps.taxonomy.models import EntryTerm
    from tests.factories import make_token, make_user

    call_command("import_wxr", str(WXR), "--no-progress", stdout=StringIO())
    system = Actor.system()
    posts = collection_for_read(slug="posts", fresh=True)
    schema_services.collection_update(actor=system, collection=posts, changes={"public": True})
    posts = collection_for_read(slug="posts", fresh=True)
    published = list(Entry.objects.filter(collection=posts, status="published", deleted_at__isnull=True))
    for index in range(max(0, 60 - len(published))):
        source = published[index % len(published)]
        content_services.entry_create(
            actor=system, collection=posts, data=source.live_data, slug=f"copy-{index}", status="published"
        )
    termed = EntryTerm.objects.values("entry_id")
    entry = (
        Entry.objects.filter(
            collection=posts, status="published", primary_byline_id__isnull=False, pk__in=termed
        )
        .order_by("slug")
        .first()
    )
    _, token = make_token(make_user(Role.SUBSCRIBER), ["content:read"])
    return entry.slug, token


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--markdown", action="store_true", help="print the table for docs/performance.md")
    args = parser.parse_args()
    _setup(Path(tempfile.mkdtemp(prefix="bench-public-")))
    import brotli
    from django.conf import settings
    from django.db import connection
    from django.test import Client

    from apps.core.compression import BROTLI_QUALITY, GZIP_LEVEL

    connection.creation.create_test_db(verbosity=0)
    try:
        slug, token = _seed()
        one = f"/_cms/api/content/posts/{slug}"
        page = "/_cms/api/content/posts?limit=50"
        anonymous = Client(HTTP_HOST="127.0.0.1")
        reader = Client(HTTP_AUTHORIZATION=f"Bearer {token}", HTTP_HOST="127.0.0.1")
        first = anonymous.get(one)
        listed = anonymous.get(page)
        assert first.status_code == 200 and listed.status_code == 200, (first.content, listed.content)
        assert len(listed.json()["data"]["items"]) == 50
        cases = {
            "GET one, token": (reader, one, {}),
            "GET one, anonymous": (anonymous, one, {}),
            "GET one, If-None-Match → 304": (anonymous, one, {"HTTP_IF_NONE_MATCH": first["ETag"]}),
            "GET one, If-Modified-Since → 304": (
                anonymous,
                one,
                {"HTTP_IF_MODIFIED_SINCE": first["Last-Modified"]},
            ),
            "list 50, token": (reader, page, {}),
            "list 50, anonymous": (anonymous, page, {}),
            "list 50, If-None-Match → 304": (anonymous, page, {"HTTP_IF_NONE_MATCH": listed["ETag"]}),
            "list 50, anonymous, brotli": (anonymous, page, {"HTTP_ACCEPT_ENCODING": "br, gzip"}),
            "list 50, anonymous, gzip": (anonymous, page, {"HTTP_ACCEPT_ENCODING": "gzip"}),
        }
        rows = []
        for name, (client, url, headers) in cases.items():
            for _ in range(30):
                response = client.get(url, **headers)
            queries = len(_captured(lambda c=client, u=url, h=headers: c.get(u, **h)))
            ms = _timed(lambda c=client, u=url, h=headers: c.get(u, **h), args.runs, args.requests)
            calls = _calls(lambda c=client, u=url, h=headers: c.get(u, **h))
            rows.append((name, response.status_code, ms, calls, queries, len(response.content)))
        body = listed.content
        codings = [
            ("identity", len(body), 0.0),
            (
                f"gzip (level {GZIP_LEVEL})",
                *_coding_cost(body, lambda b: gzip.compress(b, GZIP_LEVEL, mtime=0)),
            ),
            (
                f"brotli (quality {BROTLI_QUALITY})",
                *_coding_cost(body, lambda b: brotli.compress(b, quality=BROTLI_QUALITY)),
            ),
        ]
        vendor = connection.vendor
        by_name = {row[0]: row[2:4] for row in rows}
        print(f"{vendor}: {one} and {page}, median of {args.runs}×{args.requests} requests in process")
        print(
            "| read | status | ms/request | speed × token path | Python calls/request | × token path | queries | bytes |"
        )
        print("|---|---|---|---|---|---|---|---|")
        for name, status, ms, calls, queries, size in rows:
            base_ms, base_calls = by_name[
                "GET one, token" if name.startswith("GET one") else "list 50, token"
            ]
            print(
                f"| {name} | {status} | {ms:.3f} | {base_ms / ms:.2f} | {calls:.0f} | {calls / base_calls:.2f} | "
                f"{queries} | {size} |"
            )
        print()
        print(f"| list page of 50, {vendor} | bytes | ms to encode |")
        print("|---|---|---|")
        for name, size, ms in codings:
            print(f"| {name} | {size} ({size / len(body):.0%}) | {ms:.3f} |")
    finally:
        connection.creation.destroy_test_db(settings.DATABASES["default"]["NAME"], verbosity=0)


if __name__ == "__main__":
    main()
