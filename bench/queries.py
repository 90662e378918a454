"""Database queries per request of each benchmark scenario, counted on the seeded benchmark database.

Run by `bench/run.py` (in a subprocess with the scenario database's settings) so the table shows, beside each
timing, how many queries one request of that scenario makes. A list page must cost the same number of queries
whatever its length; the tests assert that (tests/content/test_lists.py), this records the figure.

    DATABASE_URL=… python -m bench.queries DIR   (DIR holds the seed's token and ids.txt)
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cms_project.settings")
    import django

    django.setup()
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    out = Path(sys.argv[1])
    token = (out / "token").read_text().strip()
    entry_id = (out / "ids.txt").read_text().split()[0]
    # The host the benchmark server answers as (ALLOWED_HOSTS), not the test client's "testserver".
    client = Client(HTTP_AUTHORIZATION=f"Bearer {token}", HTTP_HOST="127.0.0.1")
    mcp_headers = {
        "HTTP_ACCEPT": "application/json, text/event-stream",
        "HTTP_MCP_PROTOCOL_VERSION": "2025-11-25",
    }
    listing = "/_cms/api/content/bench?limit=50&orderBy="

    def mcp(name: str, arguments: dict):
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        }
        return client.post("/_cms/api/mcp", json.dumps(body), content_type="application/json", **mcp_headers)

    def patch():
        rev = client.get(f"/_cms/api/content/bench/{entry_id}").json()["data"]["_rev"]
        return lambda: client.patch(
            f"/_cms/api/content/bench/{entry_id}",
            json.dumps({"data": {"price": 7}, "_rev": rev}),
            content_type="application/json",
        )

    requests = {
        "get_one": lambda: client.get(f"/_cms/api/content/bench/{entry_id}"),
        **{
            f"list50_{order}": (lambda order=order: client.get(listing + order))
            for order in ("createdAt", "updatedAt", "publishedAt", "slug", "title", "price")
        },
        "mcp_get": lambda: mcp("content_get", {"collection": "bench", "id": entry_id}),
        "mcp_list50": lambda: mcp("content_list", {"collection": "bench", "limit": 50}),
        "create": lambda: client.post(
            "/_cms/api/content/bench",
            json.dumps({"data": {"title": "Counted queries", "price": 1}}),
            content_type="application/json",
        ),
    }
    counts = {}
    for name, request in requests.items():
        request()  # warm the per-process caches, as a running server has them
        with CaptureQueriesContext(connection) as captured:
            response = request()
        counts[name] = len(captured) if response.status_code < 400 else None
    request = patch()
    with CaptureQueriesContext(connection) as captured:
        response = request()
    counts["patch_rev"] = len(captured) if response.status_code < 400 else None
    print(json.dumps(counts))


if __name__ == "__main__":
    main()
