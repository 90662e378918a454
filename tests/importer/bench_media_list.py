"""In-process measurement for issue 21, not part of the suite (the name keeps pytest from collecting it; the machine is
shared, so it is run by hand): list 50 of imported Theme Unit Test posts (copied up to 50) in their collection, which
has an image field, with none and then 5 of them holding an image, for an admin (drafts) and a subscriber (published).

    CMS_TESTDATA_DIR=../shared/testdata BENCH_OUT=var/bench-media-list.txt .venv/bin/python -m pytest -q -p no:cacheprovider \
        tests/importer/bench_media_list.py -p no:logging

(``-p no:logging``: pytest's capture would keep every request's log record, and the collector's work over that
growing heap, not the request, would dominate the figures.) Writes per scenario: median of 3 runs of ms per request
over BENCH_N (200) requests through Django's test client, Python function calls per request (cProfile), queries,
response bytes and how many listed entries show an image. ``BENCH_GC_FREEZE=1`` freezes the heap left by the setup (the
import) before timing, so the collector's passes over it do not weigh on requests that allocate many objects."""

import cProfile
import gc
import os
import pstats
import statistics
import time

import pytest
from django.db import connection

from apps.content.models import Entry
from apps.schema.models import Collection
from tests.factories import make_media
from tests.importer.conftest import THEME_UNIT_TEST
from tests.importer.helpers import run_import

N = int(os.environ.get("BENCH_N", "200"))


def _timed(client, url):
    client.get(url)
    gc.collect()
    if os.environ.get("BENCH_GC_FREEZE"):
        # What a preloaded worker's heap looks like to the collector: the setup's objects are never scanned again.
        gc.freeze()
    runs = []
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(N):
            assert client.get(url).status_code == 200
        runs.append((time.perf_counter() - start) / N * 1000)
    return statistics.median(runs)


class _Counted(list):
    def __call__(self, execute, sql, *args):
        self.append(sql)
        return execute(sql, *args)


def _calls(client, url):
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(5):
        client.get(url)
    profile.disable()
    stats = pstats.Stats(profile)
    if os.environ.get("BENCH_PROFILE"):
        stats.sort_stats("tottime").print_stats(12)
    return stats.total_calls // 5


@pytest.mark.django_db(transaction=False)
def test_bench(admin_api, settings):
    from django.test import Client

    from apps.accounts.models import Role
    from tests.factories import make_token, make_user

    # Plain Django clients: the suite's ApiClient validates every answer against the OpenAPI document, which would
    # dominate what is measured here.
    plain_admin = Client(HTTP_AUTHORIZATION=f"Bearer {make_token(admin_api.user, ['admin'])[1]}")
    api = Client(HTTP_AUTHORIZATION=f"Bearer {make_token(make_user(Role.SUBSCRIBER), ['content:read'])[1]}")
    # Counted as in production, but never limited: a limited request would be a cheap 429.
    settings.CMS_RATE_LIMITS = {**settings.CMS_RATE_LIMITS, "api": "1000000/m"}
    run_import(admin_api, THEME_UNIT_TEST)
    posts = Collection.objects.get(slug="posts")
    assert any(f.type == "image" for f in posts.fields.all()), [f.slug for f in posts.fields.all()]
    existing = list(Entry.objects.filter(collection=posts, deleted_at__isnull=True).order_by("id"))
    i = 0
    while Entry.objects.filter(collection=posts, deleted_at__isnull=True).count() < 50:
        src = existing[i % len(existing)]
        i += 1
        r = admin_api.post("/_cms/api/content/posts", {"slug": f"copy-{i}", "data": src.data}, format="json")
        assert r.status_code == 201, r.json()
    ids = list(Entry.objects.filter(collection=posts, deleted_at__isnull=True).values_list("id", flat=True))
    for pk in ids:  # no images at first; published so the reader's list has 50
        r = admin_api.patch(
            f"/_cms/api/content/posts/{pk}", {"data": {"featured_image": None}}, format="json"
        )
        assert r.status_code == 200, r.json()
        admin_api.post(f"/_cms/api/content/posts/{pk}/publish")
    url = "/_cms/api/content/posts?limit=50"
    out = {}
    for label, images in (("none", 0), ("few", 5)):
        if images:
            media = make_media()
            for pk in ids[:images]:
                r = admin_api.patch(
                    f"/_cms/api/content/posts/{pk}",
                    {"data": {"featured_image": {"id": media.pk}}},
                    format="json",
                )
                assert r.status_code == 200, r.json()
                admin_api.post(f"/_cms/api/content/posts/{pk}/publish")
        for who, client in (("admin", plain_admin), ("reader", api)):
            r = client.get(url)
            assert r.status_code == 200
            assert len(r.json()["data"]["items"]) == 50
            held = sum(1 for item in r.json()["data"]["items"] if item["data"].get("featured_image"))
            queries = _Counted()
            with connection.execute_wrapper(queries):
                client.get(url)
            out[(label, who)] = (
                _timed(client, url),
                _calls(client, url),
                len(queries),
                len(r.content),
                held,
            )
    with open(os.environ.get("BENCH_OUT", "var/bench-media-list.txt"), "a") as f:
        for key, (ms, calls, nq, size, held) in out.items():
            f.write(
                f"{key[0]:5} {key[1]:5} {ms:7.2f} ms  {calls:6d} calls  {nq} queries  {size} bytes  images={held}\n"
            )
