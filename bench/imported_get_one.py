"""GET one of an imported post (terms and bylines) in process: time per request and Python calls per request.

Imports the Theme Unit Test WXR into a fresh test database, then reads one imported post that has terms and a byline
through Django's test client with an admin token (the whole middleware and view stack, no network). Prints the median
over ``--runs`` runs of ``--requests`` requests, the queries per request and, from cProfile, the Python function calls
per request, which does not depend on the machine's load. ``--body FILE`` writes the answer, to compare before/after.

    DATABASE_URL=… python -m bench.imported_get_one [--requests 500] [--runs 3] [--body FILE]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import tempfile
import time
from io import StringIO
from pathlib import Path

from tests.testdata import TESTDATA


def _captured(request) -> list[str]:
    """The SQL ``request`` ran, on whichever thread's connection (not only this thread's, as Django's capture)."""
    from django.db.backends.utils import CursorWrapper

    seen: list[str] = []
    original = CursorWrapper._execute_with_wrappers

    def counting(self, sql, *rest, **options):
        seen.append(sql)
        return original(self, sql, *rest, **options)

    CursorWrapper._execute_with_wrappers = counting
    try:
        request()
    finally:
        CursorWrapper._execute_with_wrappers = original
    return seen


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--body", type=Path)
    parser.add_argument(
        "--wxr",
        type=Path,
        default=TESTDATA / "wxr" / "theme-test-data" / "themeunittestdata.wordpress.xml",
    )
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="imported-get-one-"))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cms_project.settings")
    os.environ.setdefault("CMS_VAR_DIR", str(work))
    os.environ.setdefault("SECRET_KEY", "bench-only-not-secret")
    os.environ.setdefault("CMS_RATE_LIMIT_API", "100000000/m")
    import django

    django.setup()
    import logging

    logging.disable(logging.INFO)  # the request log, written to the terminal, would dominate the figures
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import setup_test_environment

    setup_test_environment()
    settings.CMS_IMPORT_DIR = work / "imports"
    connection.creation.create_test_db(verbosity=0)
    try:
        from apps.content.models import Entry
        from apps.taxonomy.models import EntryTerm
        from tests.factories import make_token, make_user

        call_command("import_wxr", str(args.wxr), "--no-progress", stdout=StringIO())
        _, token = make_token(make_user())
        termed = EntryTerm.objects.values("entry_id")
        entry = (
            Entry.objects.filter(
                collection__slug="posts", status="published", primary_byline_id__isnull=False, pk__in=termed
            )
            .order_by("slug")
            .first()
        )
        url = f"/_cms/api/content/posts/{entry.slug}"
        client = Client(HTTP_AUTHORIZATION=f"Bearer {token}", HTTP_HOST="127.0.0.1")
        for _ in range(50):
            response = client.get(url)
            assert response.status_code == 200, response.content
        if args.body:
            args.body.write_bytes(response.content)
        queries = _captured(lambda: client.get(url))
        times = []
        for _ in range(args.runs):
            started = time.perf_counter()
            for _ in range(args.requests):
                client.get(url)
            times.append((time.perf_counter() - started) / args.requests * 1000)
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(100):
            client.get(url)
        profile.disable()
        calls = pstats.Stats(profile).total_calls / 100
        print(
            f"{connection.vendor}: {url} ({len(response.content)} bytes): "
            f"median {statistics.median(times):.3f} ms/request over {args.runs}x{args.requests} "
            f"(runs {', '.join(f'{t:.3f}' for t in times)}), {len(queries)} queries, {calls:.0f} Python calls/request"
        )
        for sql in queries:
            print("   ", sql[:160])
    finally:
        connection.creation.destroy_test_db(settings.DATABASES["default"]["NAME"], verbosity=0)


if __name__ == "__main__":
    main()
