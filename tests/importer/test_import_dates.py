"""The dates an imported entry carries (docs/decisions.md, "Import" and "Import pipeline"): a draft WordPress never
published is dated by its own post_date, not by the placeholder WordPress writes for its GMT date and pubDate; a
scheduled post's creation date is its own date, not the moment of the import."""

from __future__ import annotations

from tests.importer.conftest import IMPORTER_DATA, THEME_UNIT_TEST
from tests.importer.helpers import run_import


def entry(client, collection: str, slug: str) -> dict:
    response = client.get(f"/_cms/api/content/{collection}/{slug}")
    assert response.status_code == 200, response.json()
    return response.json()["data"]["item"]


def dates(item: dict) -> dict:
    return {key: item[key] for key in ("status", "createdAt", "publishedAt", "scheduledAt")}


def test_a_draft_never_published_is_dated_by_its_post_date_not_by_wordpress_placeholder(admin_api):
    # post_date_gmt "0000-00-00 00:00:00", pubDate "Wed, 30 Nov -0001 00:00:00 +0000" (read as 2000-11-30 before).
    run_import(admin_api, IMPORTER_DATA / "small-export.xml")

    assert dates(entry(admin_api, "pages", "draft-page")) == {
        "status": "draft",
        "createdAt": "2011-01-18T07:46:29.000Z",
        "publishedAt": None,
        "scheduledAt": None,
    }


def test_an_older_exports_placeholder_pubdate_is_no_date_either(admin_api):
    # Older WordPress versions wrote the placeholder's pubDate as "Tue, 30 Nov 1999 00:00:00 +0000".
    run_import(admin_api, IMPORTER_DATA / "test-serialized-postmeta-no-cdata.xml")

    assert dates(entry(admin_api, "posts", "my-entry-with-postmeta")) == {
        "status": "draft",
        "createdAt": "2009-10-20T16:13:20.000Z",
        "publishedAt": None,
        "scheduledAt": None,
    }


def test_a_scheduled_post_is_created_at_its_own_date(admin_api):
    run_import(admin_api, THEME_UNIT_TEST)

    assert dates(entry(admin_api, "posts", "scheduled")) == {
        "status": "scheduled",
        "createdAt": "2030-01-01T19:00:18.000Z",
        "publishedAt": None,
        "scheduledAt": "2030-01-01T19:00:18.000Z",
    }
