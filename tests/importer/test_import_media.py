"""Media import (SPEC §4.10 rule 7) from a local HTTP server, NDJSON progress, SSRF refusals, the media quota, network
timeouts, and URL rewriting."""

from __future__ import annotations

import time

import orjson
import pytest

from apps.content.models import Entry
from apps.core import safehttp
from apps.media.models import MediaItem
from tests.factories import png_bytes
from tests.importer.conftest import THEME_UNIT_TEST
from tests.importer.helpers import MEDIA, REWRITE, all_entries, post, run_import, wxr

RED = png_bytes((200, 30, 30), (30, 20))
BLUE = png_bytes((30, 30, 200), (30, 20))


def attachment(post_id: int, url: str) -> str:
    return f"""<item><title>File {post_id}</title><wp:post_id>{post_id}</wp:post_id>
  <wp:post_type>attachment</wp:post_type><wp:status>inherit</wp:status>
  <wp:attachment_url>{url}</wp:attachment_url></item>"""


def thumbnail(attachment_id: int) -> str:
    return (
        "<wp:postmeta><wp:meta_key>_thumbnail_id</wp:meta_key>"
        f"<wp:meta_value>{attachment_id}</wp:meta_value></wp:postmeta>"
    )


@pytest.fixture
def site(web):
    web.routes.update(
        {
            "/wp-content/uploads/red.png": (200, RED, {"Content-Type": "image/png"}),
            "/wp-content/uploads/copy-of-red.png": (200, RED, {"Content-Type": "image/png"}),
            "/wp-content/uploads/blue.png": (200, BLUE, {"Content-Type": "image/png"}),
        }
    )
    return web


def test_execute_with_media_downloads_deduplicates_links_and_rewrites(admin_api, site, settings):
    base = site.base
    content = (
        f'<!-- wp:image {{"id":10}} --><figure class="wp-block-image"><img src="{base}/wp-content/uploads/'
        f'red-300x200.png?ver=2" alt="Red"/></figure><!-- /wp:image -->'
        f'<!-- wp:paragraph --><p>See <a href="{base}/wp-content/uploads/blue.png">the blue one</a>.</p>'
        "<!-- /wp:paragraph -->"
    )
    items = "".join(
        [
            attachment(10, f"{base}/wp-content/uploads/red.png"),
            attachment(11, f"{base}/wp-content/uploads/copy-of-red.png"),
            attachment(12, f"{base}/wp-content/uploads/blue.png"),
            attachment(13, f"{base}/wp-content/uploads/gone.png"),
            post(1, title="With media", slug="with-media", content=content, extra=thumbnail(10)),
        ]
    )

    job = run_import(admin_api, content=wxr(items), options={"includeMedia": True})

    assert job["state"] == "completed"
    media = job["summary"]["media"]
    assert media["imported"] == 3
    assert media["failed"] == [
        {
            "id": "13",
            "url": f"{base}/wp-content/uploads/gone.png",
            "error": f"{base}/wp-content/uploads/gone.png answered HTTP 404.",
            "reason": "httpStatus",
        }
    ]
    assert media["urlsRewritten"] == 2
    # The two files with the same bytes are stored once.
    assert MediaItem.objects.count() == 2
    red = MediaItem.objects.get(filename="red.png")
    blue = MediaItem.objects.get(filename="blue.png")
    entry = all_entries(admin_api, "posts")[0]
    assert entry["data"]["featured_image"]["id"] == red.pk
    image, paragraph = entry["data"]["content"]
    assert image["url"] == f"{settings.CMS_BASE_URL}/_cms/api/media/file/{red.storage_key}"
    link = paragraph["markDefs"][0]
    assert link["href"] == f"{settings.CMS_BASE_URL}/_cms/api/media/file/{blue.storage_key}"
    # Published entries stay published with the rewritten content.
    stored = Entry.objects.get(pk=entry["id"])
    assert stored.live_data == stored.data


def test_importing_media_twice_stores_nothing_new(admin_api, site):
    items = attachment(10, f"{site.base}/wp-content/uploads/red.png") + post(
        1, slug="one", extra=thumbnail(10)
    )
    run_import(admin_api, content=wxr(items), options={"includeMedia": True})
    requests = len(site.requests)

    again = run_import(admin_api, content=wxr(items), options={"includeMedia": True})

    assert again["summary"]["media"]["imported"] == 1
    assert MediaItem.objects.count() == 1
    # Already imported: not downloaded again.
    assert len(site.requests) == requests


def test_media_endpoint_answers_the_result(admin_api, site):
    response = admin_api.post(
        MEDIA,
        {
            "attachments": [
                {"id": 1, "url": f"{site.base}/wp-content/uploads/red.png"},
                {"id": 2, "url": f"{site.base}/wp-content/uploads/copy-of-red.png"},
            ]
        },
        format="json",
    )

    assert response.status_code == 200
    red = MediaItem.objects.get()
    url = response.json()["data"]["urlMap"][f"{site.base}/wp-content/uploads/red.png"]
    assert url.endswith(f"/_cms/api/media/file/{red.storage_key}")
    assert response.json() == {
        "success": True,
        "data": {
            "type": "result",
            "imported": 2,
            "failed": [],
            "urlMap": {
                f"{site.base}/wp-content/uploads/red.png": url,
                f"{site.base}/wp-content/uploads/copy-of-red.png": url,
            },
            "remaining": [],
        },
    }


def test_media_endpoint_streams_ndjson_progress(admin_api, site):
    response = admin_api.post(
        MEDIA,
        {
            "attachments": [
                {"id": 1, "url": f"{site.base}/wp-content/uploads/red.png"},
                {"id": 2, "url": f"{site.base}/wp-content/uploads/missing.png"},
            ],
            "stream": True,
        },
        format="json",
    )

    assert response.status_code == 200
    assert response["Content-Type"] == "application/x-ndjson"
    lines = [orjson.loads(line) for line in b"".join(response.streaming_content).splitlines()]
    red = MediaItem.objects.get()
    assert lines[:2] == [
        {"type": "progress", "current": 1, "total": 2, "filename": "red.png", "status": "imported"},
        {"type": "progress", "current": 2, "total": 2, "filename": "missing.png", "status": "failed"},
    ]
    result = lines[2]
    assert result["type"] == "result"
    assert result["imported"] == 1
    assert result["failed"] == [
        {
            "id": 2,
            "url": f"{site.base}/wp-content/uploads/missing.png",
            "error": f"{site.base}/wp-content/uploads/missing.png answered HTTP 404.",
            "reason": "httpStatus",
        }
    ]
    assert list(result["urlMap"]) == [f"{site.base}/wp-content/uploads/red.png"]
    assert result["urlMap"][f"{site.base}/wp-content/uploads/red.png"].endswith(red.storage_key)
    assert len(lines) == 3


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        (
            "http://127.0.0.1:9/a.png",
            "127.0.0.1 is not fetched: it resolves to a loopback address (127.0.0.1).",
        ),
        (
            "http://169.254.169.254/latest/meta-data/",
            "169.254.169.254 is not fetched: it resolves to a link-local address (cloud metadata services live here) "
            "(169.254.169.254).",
        ),
        ("http://[::1]/a.png", "::1 is not fetched: it resolves to a loopback address (::1)."),
        (
            "http://[::ffff:10.0.0.1]/a.png",
            "::ffff:10.0.0.1 is not fetched: it resolves to an IPv4-mapped form of a private-network address (10.0.0.1).",
        ),
        (
            "http://10.1.2.3/a.png",
            "10.1.2.3 is not fetched: it resolves to a private-network address (10.1.2.3).",
        ),
    ],
)
def test_media_from_private_addresses_is_refused(admin_api, url, reason):
    response = admin_api.post(MEDIA, {"attachments": [{"id": 7, "url": url}]}, format="json")

    assert response.status_code == 200
    data = response.json()["data"]
    assert (data["imported"], data["urlMap"]) == (0, {})
    assert data["failed"] == [{"id": 7, "url": url, "error": reason, "reason": "blocked"}]
    assert MediaItem.objects.count() == 0


def test_a_redirect_to_a_private_address_is_refused(admin_api, site):
    site.routes["/moved.png"] = (302, b"", {"Location": "http://10.0.0.1/secret.png"})
    response = admin_api.post(
        MEDIA, {"attachments": [{"id": 1, "url": f"{site.base}/moved.png"}]}, format="json"
    )

    failed = response.json()["data"]["failed"]
    assert (
        failed[0]["error"] == "10.0.0.1 is not fetched: it resolves to a private-network address (10.0.0.1)."
    )
    assert MediaItem.objects.count() == 0


def test_the_media_quota_stops_the_import_and_shows_usage(admin_api, site, settings):
    settings.CMS_MEDIA_QUOTA_BYTES = len(RED) + 10
    first = admin_api.post(
        MEDIA, {"attachments": [{"id": 1, "url": f"{site.base}/wp-content/uploads/red.png"}]}, format="json"
    )
    assert first.status_code == 200

    response = admin_api.post(
        MEDIA, {"attachments": [{"id": 2, "url": f"{site.base}/wp-content/uploads/blue.png"}]}, format="json"
    )

    assert response.status_code == 507
    assert response.json()["error"] == {
        "code": "STORAGE_QUOTA_EXCEEDED",
        "message": f"Storing this file ({len(BLUE)} bytes) would exceed the media quota: {len(RED)} of "
        f"{len(RED) + 10} bytes used.",
        "details": {"usedBytes": len(RED), "quotaBytes": len(RED) + 10, "neededBytes": len(BLUE)},
    }
    assert MediaItem.objects.count() == 1


def test_the_media_quota_stops_an_import_job(admin_api, site, settings):
    settings.CMS_MEDIA_QUOTA_BYTES = 10
    items = attachment(10, f"{site.base}/wp-content/uploads/red.png") + post(1, slug="one")

    job = run_import(admin_api, content=wxr(items), options={"includeMedia": True})

    assert job["state"] == "failed"
    assert job["error"]["code"] == "STORAGE_QUOTA_EXCEEDED"
    assert job["error"]["details"] == {"usedBytes": 0, "quotaBytes": 10, "neededBytes": len(RED)}
    # The content itself was imported before the media step stopped.
    assert [item["slug"] for item in all_entries(admin_api, "posts")] == ["one"]


def test_a_network_timeout_is_retried_with_backoff(admin_api, site, settings, monkeypatch):
    settings.CMS_IMPORT_FETCH_TIMEOUT = 0.3
    waits = []
    monkeypatch.setattr(safehttp, "sleep", waits.append)
    attempts = []

    def slow_once(handler):
        attempts.append(1)
        if len(attempts) == 1:
            time.sleep(1.0)
        return 200, RED, {"Content-Type": "image/png"}

    site.routes["/slow.png"] = slow_once
    response = admin_api.post(
        MEDIA, {"attachments": [{"id": 1, "url": f"{site.base}/slow.png"}]}, format="json"
    )

    assert response.json()["data"]["imported"] == 1
    assert len(attempts) == 2
    assert waits == [0.5]


def test_rewrite_urls_replaces_old_urls_sizes_and_query_strings(admin_api):
    run_import(admin_api, THEME_UNIT_TEST)
    old = "https://wpthemetestdata.files.wordpress.com/2008/06/canola2.jpg"
    before = [
        entry
        for entry in all_entries(admin_api, "posts")
        if "canola2" in orjson.dumps(entry["data"]).decode()
    ]
    assert before

    response = admin_api.post(REWRITE, {"urlMap": {old: "https://cdn.example/canola.jpg"}}, format="json")

    assert response.status_code == 200
    counts = response.json()["data"]
    assert counts["entriesScanned"] == 79
    assert counts["entriesUpdated"] == len(before)
    assert counts["sectionsUpdated"] == 0
    assert counts["urlsReplaced"] >= len(before)
    after = [
        entry
        for entry in all_entries(admin_api, "posts")
        if "canola2" in orjson.dumps(entry["data"]).decode()
    ]
    # Every form of the old address is gone, sized variants included (canola2-150x150.jpg …).
    leftovers = [
        text
        for entry in after
        for text in orjson.dumps(entry["data"]).decode().split('"')
        if "wpthemetestdata.files.wordpress.com/2008/06/canola2" in text
    ]
    assert leftovers == []
    again = admin_api.post(REWRITE, {"urlMap": {old: "https://cdn.example/canola.jpg"}}, format="json")
    assert again.json()["data"]["entriesUpdated"] == 0


def test_rewrite_urls_needs_a_map(admin_api):
    response = admin_api.post(REWRITE, {"urlMap": {}}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {"urlMap": "This dictionary may not be empty."}


def test_theme_unit_test_with_media_and_url_rewriting(admin_api, web, settings):
    """The whole flow of the issue's "done when": the Theme Unit Test with its attachments served locally."""
    old_host = "https://wpthemetestdata.files.wordpress.com"
    export = THEME_UNIT_TEST.read_bytes().replace(old_host.encode(), web.base.encode())

    def image(handler):
        # A distinct small image per path, so every attachment is its own media item.
        seed = sum(handler.path.encode()) % 200
        return 200, png_bytes((seed, 255 - seed, 90), (8, 6)), {"Content-Type": "image/png"}

    web.fallback = image

    job = run_import(admin_api, content=export, options={"includeMedia": True})

    assert job["state"] == "completed"
    assert job["summary"]["imported"] == {"pages": {"created": 21}, "posts": {"created": 58}}
    media = job["summary"]["media"]
    assert (media["imported"], media["failed"]) == (37, [])
    assert media["urlsRewritten"] > 0
    assert MediaItem.objects.count() == len({item.content_hash for item in MediaItem.objects.all()})
    posts = all_entries(admin_api, "posts")
    featured = [post["data"]["featured_image"] for post in posts if "featured_image" in post["data"]]
    assert featured
    media_ids = set(MediaItem.objects.values_list("pk", flat=True))
    assert all(image["id"] in media_ids for image in featured)
    # No imported attachment is referenced by its old address any more, whatever its size suffix.
    attachments = {
        url.rsplit("/", 1)[-1].rsplit(".", 1)[0] for url in (item["url"] for item in job_media_urls(export))
    }
    leftovers = [
        text
        for post in posts
        for text in orjson.dumps(post["data"]).decode().split('"')
        if text.startswith(web.base) and any(f"/{name}" in text for name in attachments)
    ]
    assert leftovers == []


def job_media_urls(export: bytes) -> list[dict]:
    import re

    return [{"url": url.decode()} for url in re.findall(rb"<wp:attachment_url>([^<]+)", export)]


def test_an_attachment_id_no_post_can_have_is_refused(admin_api):
    response = admin_api.post(
        MEDIA, {"attachments": [{"id": 2**63, "url": "https://example.com/a.png"}]}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "attachments.0.id": "Ensure this value is less than or equal to 9223372036854775807."
    }
    assert MediaItem.objects.count() == 0


@pytest.mark.parametrize("stream", [False, True])
def test_media_endpoint_stops_starting_downloads_when_its_time_is_up(admin_api, site, settings, stream):
    """With no time budget left, one attachment is still done (each call advances) and the rest come back as
    `remaining`, to be sent again."""
    settings.CMS_IMPORT_MEDIA_REQUEST_SECONDS = 0
    red, blue = f"{site.base}/wp-content/uploads/red.png", f"{site.base}/wp-content/uploads/blue.png"
    body = {"attachments": [{"id": 1, "url": red}, {"id": 2, "url": blue}], "stream": stream}
    response = admin_api.post(MEDIA, body, format="json")
    assert response.status_code == 200
    if stream:
        result = orjson.loads(b"".join(response.streaming_content).splitlines()[-1])
    else:
        result = response.json()["data"]
    assert (result["imported"], list(result["urlMap"]), result["remaining"]) == (
        1,
        [red],
        [{"id": 2, "url": blue}],
    )
    again = admin_api.post(MEDIA, {"attachments": result["remaining"]}, format="json").json()["data"]
    assert (again["imported"], list(again["urlMap"]), again["remaining"]) == (1, [blue], [])
    assert MediaItem.objects.count() == 2


def test_a_reimport_after_the_media_item_was_deleted_points_at_the_attachment_url(admin_api, site):
    url = f"{site.base}/wp-content/uploads/red.png"
    run_import(
        admin_api,
        content=wxr(attachment(10, url) + post(1, slug="one", extra=thumbnail(10))),
        options={"includeMedia": True},
    )
    red = MediaItem.objects.get()
    assert all_entries(admin_api, "posts")[0]["data"]["featured_image"]["id"] == red.pk
    assert admin_api.delete(f"/_cms/api/media/{red.pk}").status_code == 200

    # Changed content is written again; the image value may not name the deleted item (it would be refused).
    job = run_import(
        admin_api,
        content=wxr(attachment(10, url) + post(1, slug="one", title="Changed", extra=thumbnail(10))),
    )

    assert job["state"] == "completed"
    entry = all_entries(admin_api, "posts")[0]
    assert (entry["data"]["title"], entry["data"]["featured_image"]) == ("Changed", {"url": url})


def test_the_url_rewrite_over_thousands_of_entries_outlasts_other_connections_writes(
    transactional_db, admin_api, site
):
    """The rewrite read the imported entries' ids through one open cursor: on SQLite, once another connection (a
    worker's heartbeat) committed while it ran, the next entry's write failed at once with "database is locked" and
    the job paused (make stress, kill_import_phases). Past the ORM's first 2,000 rows the cursor stays open."""
    import threading

    from django.db import connections, transaction

    from apps.core import events
    from apps.importer.models import ImportAnalysis

    url = f"{site.base}/wp-content/uploads/red.png"
    image = f'<!-- wp:image --><figure class="wp-block-image"><img src="{url}" alt=""/></figure><!-- /wp:image -->'
    items = attachment(10, url) + "".join(
        post(number, slug=f"post-{number}", content=image if number <= 2 else "<p>Text</p>")
        for number in range(1, 2102)
    )
    others: list[str] = []

    def another_connection_writes() -> None:
        others.append(ImportAnalysis.objects.update(filename="touched.xml"))
        connections.close_all()

    def another_connection_commits() -> None:
        writer = threading.Thread(target=another_connection_writes)
        writer.start()
        writer.join()

    def rewritten(sender, entry, action, **kwargs):
        if action != "create" and not others:
            # Once the entry's own write is committed, between two entries' writes, as a heartbeat would.
            transaction.on_commit(another_connection_commits)
            others.append(entry.pk)

    events.entry_changed.connect(rewritten, weak=False)
    try:
        job = run_import(admin_api, content=wxr(items), options={"includeMedia": True})
    finally:
        events.entry_changed.disconnect(rewritten)

    assert job["error"] is None
    assert (job["state"], job["summary"]["media"]["urlsRewritten"]) == ("completed", 2)
    assert others[1:] == [1]  # the other connection wrote its row
