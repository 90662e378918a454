"""Import throughput in the metrics (issue 24): the items an import commits are counted as they are committed."""

from __future__ import annotations

from tests.importer.helpers import post, run_import, wxr
from tests.metrics import scrape, value

IMPORTED = "cms_import_items_total"


def test_committed_items_are_counted(metrics_on, admin_api):
    before = scrape()

    run_import(admin_api, content=wxr(post(1, title="One") + post(2, title="Two") + post(3, title="Three")))

    after = scrape()
    assert value(after, IMPORTED, kind="item") - value(before, IMPORTED, kind="item") == 3
    assert value(after, IMPORTED, kind="media") == value(before, IMPORTED, kind="media")
