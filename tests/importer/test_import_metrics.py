"""Import throughput in the metrics (issue 24): the items an import commits are counted as they are committed, and\nthe media files it stores (not the ones it could not fetch)."""

from __future__ import annotations

from tests.factories import png_bytes
from tests.importer.helpers import post, run_import, wxr
from tests.metrics import scrape, value

IMPORTED = "cms_import_items_total"
RED = png_bytes((200, 30, 30), (30, 20))
BLUE = png_bytes((30, 30, 200), (30, 20))


def attachment(post_id: int, url: str) -> str:
    return f"""<item><title>File {post_id}</title><wp:post_id>{post_id}</wp:post_id>
  <wp:post_type>attachment</wp:post_type><wp:status>inherit</wp:status>
  <wp:attachment_url>{url}</wp:attachment_url></item>"""


def test_committed_items_are_counted(metrics_on, admin_api):
    before = scrape()

    run_import(admin_api, content=wxr(post(1, title="One") + post(2, title="Two") + post(3, title="Three")))

    after = scrape()
    assert value(after, IMPORTED, kind="item") - value(before, IMPORTED, kind="item") == 3
    assert value(after, IMPORTED, kind="media") == value(before, IMPORTED, kind="media")


def test_stored_media_files_are_counted(metrics_on, admin_api, web, settings):
    web.routes.update(
        {
            "/wp-content/uploads/red.png": (200, RED, {"Content-Type": "image/png"}),
            "/wp-content/uploads/blue.png": (200, BLUE, {"Content-Type": "image/png"}),
        }
    )
    items = "".join(
        [
            attachment(10, f"{web.base}/wp-content/uploads/red.png"),
            attachment(11, f"{web.base}/wp-content/uploads/blue.png"),
            attachment(12, f"{web.base}/wp-content/uploads/gone.png"),
            post(1, title="With media"),
        ]
    )
    before = scrape()

    job = run_import(admin_api, content=wxr(items), options={"includeMedia": True})

    after = scrape()
    assert job["summary"]["media"]["imported"] == 2
    # The missing file is a failure, not throughput.
    assert value(after, IMPORTED, kind="media") - value(before, IMPORTED, kind="media") == 2
    # Every source item of the export is committed, the attachments' records among them: 3 and the post.
    assert value(after, IMPORTED, kind="item") - value(before, IMPORTED, kind="item") == 4
