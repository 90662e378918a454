"""Database queries per request of each benchmark scenario, counted on the seeded benchmark database.

Run by `bench/run.py` (in a subprocess with the scenario database's settings) so the table shows, beside each
timing, how many queries one request of that scenario makes. A list page must cost the same number of queries
whatever its length; the tests assert that (tests/content/test_lists.py), this records the figure.

    DATABASE_URL=… python -m bench.queries DIR   (DIR holds the seed's token and ids.txt)
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from bench.imported import SEARCH_WORD


def setup_django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cms_project.settings")
    import django

    django.setup()


def scenario_requests(out: Path) -> dict[str, Callable[[], object]]:
    """One request of each scenario through Django's test client (no network), by scenario name. PATCH carries the
    `_rev` the previous PATCH answered, so it can be called again and again."""
    from django.test import Client

    token = (out / "token").read_text().strip()
    entry_id = (out / "ids.txt").read_text().split()[0]
    posts_ids = out / "posts_ids.txt"
    post_id = posts_ids.read_text().split()[0] if posts_ids.exists() else None
    media_key = (out / "media_key").read_text().strip()
    # The host the benchmark server answers as (ALLOWED_HOSTS), not the test client's "testserver".
    client = Client(HTTP_AUTHORIZATION=f"Bearer {token}", HTTP_HOST="127.0.0.1")
    public = Client(HTTP_HOST="127.0.0.1")
    etags: dict[str, str] = {}

    def conditional(path: str):
        if path not in etags:
            etags[path] = public.get(path).headers["ETag"]
        return public.get(path, HTTP_IF_NONE_MATCH=etags[path])

    mcp_headers = {
        "HTTP_ACCEPT": "application/json, text/event-stream",
        "HTTP_MCP_PROTOCOL_VERSION": "2025-11-25",
    }
    listing = "/_cms/api/content/bench?limit=50&orderBy="
    rev = {}
    # Distinct titles, as real creates have: the same title again and again would measure slug collisions.
    serial = itertools.count(int(time.time()))

    def mcp(name: str, arguments: dict):
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        }
        return client.post("/_cms/api/mcp", json.dumps(body), content_type="application/json", **mcp_headers)

    def patch():
        if not rev:
            rev["current"] = client.get(f"/_cms/api/content/bench/{entry_id}").json()["data"]["_rev"]
        response = client.patch(
            f"/_cms/api/content/bench/{entry_id}",
            json.dumps({"data": {"price": 7}, "_rev": rev["current"]}),
            content_type="application/json",
        )
        rev["current"] = response.json()["data"]["_rev"]
        return response

    return {
        "get_one": lambda: client.get(f"/_cms/api/content/bench/{entry_id}"),
        **{
            f"list50_{order}": (lambda order=order: client.get(listing + order))
            for order in ("createdAt", "updatedAt", "publishedAt", "slug", "title", "price")
        },
        "mcp_get": lambda: mcp("content_get", {"collection": "bench", "id": entry_id}),
        "mcp_list50": lambda: mcp("content_list", {"collection": "bench", "limit": 50}),
        "media_download": lambda: client.get(f"/_cms/api/media/file/{media_key}"),
        "search": lambda: client.get("/_cms/api/search?collections=bench&q=river+harbor"),
        "create": lambda: client.post(
            "/_cms/api/content/bench",
            json.dumps({"data": {"title": f"Counted queries {next(serial)}", "price": 1}}),
            content_type="application/json",
        ),
        "patch_rev": patch,
        **(
            {
                "posts_get_one": lambda: client.get(f"/_cms/api/content/posts/{post_id}"),
                "posts_list50": lambda: client.get("/_cms/api/content/posts?limit=50"),
                "posts_list50_fields": lambda: client.get(
                    "/_cms/api/content/posts?limit=50&fields=title,excerpt,featured_image"
                ),
                "posts_search": lambda: client.get(
                    f"/_cms/api/search?collections=posts&limit=20&q={SEARCH_WORD}"
                ),
                "posts_mcp_get": lambda: mcp("content_get", {"collection": "posts", "id": post_id}),
                "posts_public_get_one": lambda: public.get(f"/_cms/api/content/posts/{post_id}"),
                "posts_public_304": lambda: conditional(f"/_cms/api/content/posts/{post_id}"),
                "posts_public_list50": lambda: public.get("/_cms/api/content/posts?limit=50"),
            }
            if post_id
            else {}
        ),
    }


def main() -> None:
    setup_django()
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    counts, peaks = {}, {}
    for name, request in scenario_requests(Path(sys.argv[1])).items():
        request()  # warm the per-process caches, as a running server has them
        with CaptureQueriesContext(connection) as captured:
            response = request()
        counts[name] = len(captured) if response.status_code < 400 else None
        if name.startswith(("list50", "posts_", "mcp_list")):
            # The most memory Python held at once while answering, over what it held before: a list page's cost
            # in a worker's memory (read with the request's code already loaded).
            tracemalloc.start()
            request()
            peaks[name] = round(tracemalloc.get_traced_memory()[1] / 1024)
            tracemalloc.stop()
    print(json.dumps({"queries": counts, "peakKB": peaks}))


if __name__ == "__main__":
    main()
