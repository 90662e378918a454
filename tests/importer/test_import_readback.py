"""What an import keeps of each post is read back through the API (issue 17): sticky flags, page parents, comments,
custom fields and ``_importError`` are the entry's ``meta``, shown to editors by a single-entry read over REST and by
the tool server's ``content_get`` (docs/decisions.md, "Schema and content": entry metadata)."""

from __future__ import annotations

from apps.accounts.models import Role
from tests.factories import make_token, make_user
from tests.importer.conftest import IMPORTER_DATA
from tests.importer.helpers import post, run_import, wxr
from tests.mcp.wire import McpClient

SMALL_EXPORT = IMPORTER_DATA / "small-export.xml"


def item(client, collection: str, slug: str) -> dict:
    response = client.get(f"/_cms/api/content/{collection}/{slug}")
    assert response.status_code == 200, response.json()
    return response.json()["data"]["item"]


def test_what_the_import_kept_of_a_post_is_read_back(admin_api, client_for):
    job = run_import(admin_api, SMALL_EXPORT)

    hello = item(admin_api, "posts", "hello-world")
    assert hello["meta"] == {
        "import": {
            "source": "wxr",
            "site": "http://localhost",
            "sourceId": 1,
            "postType": "post",
            "originalStatus": "publish",
            "link": "http://localhost/?p=1",
            "guid": "http://localhost/?p=1",
            "parentId": None,
            "menuOrder": 0,
            "sticky": False,
            "commentStatus": "open",
            "customFields": {"Post by": "author"},
            "comments": [
                {
                    "sourceId": 1,
                    "author": "Mr WordPress",
                    "authorEmail": "",
                    "authorUrl": "http://wordpress.org/",
                    "authorIp": "",
                    "date": "2011-01-18T07:40:14.000Z",
                    "content": "Hi, this is a comment.<br />To delete a comment, just log in and view the post&#039;s "
                    "comments. There you will have the option to edit or delete them.",
                    "approved": "1",
                    "type": "",
                    "parentId": None,
                    "userId": None,
                    "meta": {},
                }
            ],
        }
    }
    admin_mcp = McpClient(make_token(make_user(Role.ADMIN), ["admin"])[1], "2025-11-25")
    got = admin_mcp.ok("content_get", {"collection": "posts", "id": "hello-world"})
    assert got["item"]["meta"] == hello["meta"]
    assert item(admin_api, "pages", "child-page")["meta"]["import"]["parentId"] == 6

    # The private post is a draft no reader sees, with a warning naming it.
    assert item(admin_api, "posts", "private-post")["status"] == "draft"
    assert {"code": "PRIVATE", "sourceId": 13} in [
        {"code": warning["code"], "sourceId": warning.get("sourceId")}
        for warning in job["summary"]["warnings"]
    ]
    reader = client_for(role=Role.SUBSCRIBER, scopes=["content:read"])
    assert reader.get("/_cms/api/content/posts/private-post").status_code == 404
    assert "meta" not in reader.get("/_cms/api/content/posts/hello-world").json()["data"]["item"]


def test_a_sticky_post_reads_back_as_sticky(admin_api):
    run_import(admin_api, content=wxr(post(1, slug="pinned", extra="<wp:is_sticky>1</wp:is_sticky>")))

    assert item(admin_api, "posts", "pinned")["meta"]["import"]["sticky"] is True
