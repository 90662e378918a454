"""SPEC §7 for content that cannot be converted faithfully: a post with broken block markup, or nested too deeply,
keeps every visible word and is saved as a draft with its original content in ``_importError``, with a warning naming
it; the import goes on (docs/decisions.md, "Import" and "Import pipeline")."""

from __future__ import annotations

from apps.accounts.models import Role
from apps.core.portabletext import plain_text
from tests.importer.helpers import post, run_import, wxr

P = "<!-- wp:paragraph --><p>{}</p><!-- /wp:paragraph -->"
BROKEN = (
    P.format("Before the heading")
    + '<!-- wp:heading {"level":2 --><h2 class="wp-block-heading">Words of the heading</h2><!-- /wp:list -->'
    + '<!-- wp:paragraph {"align":"right"} --><p class="has-text-align-right">After the heading</p>'
    "<!-- /wp:paragraph -->"
)
BROKEN_MESSAGE = (
    'The block markup is broken (<!-- wp:heading {"level":2 … is not valid block markup; a closing <!-- /wp:list --> '
    "without an open block); its text was kept."
)
DEEP = "<p>Start</p>" + "<div>" * 1100 + "deep words" + "</div>" * 1100 + "<p>After the deep part</p>"
GROUPS = (
    P.format("Start")
    + "<!-- wp:group --><div>" * 12
    + P.format("deep words")
    + "</div><!-- /wp:group -->" * 12
    + P.format("After the deep part")
)
DEEP_MESSAGE = (
    "The content is nested too deeply to convert (blocks, HTML elements or containers inside one another past what "
    "the CMS can hold); its text was kept as plain paragraphs."
)


def text_block(key: int, text: str) -> dict:
    return {
        "_type": "block",
        "_key": f"k{key}",
        "style": "normal",
        "markDefs": [],
        "children": [{"_type": "span", "_key": f"k{key + 1}", "text": text, "marks": []}],
    }


def read(client, slug: str) -> dict:
    response = client.get(f"/_cms/api/content/posts/{slug}")
    assert response.status_code == 200, response.json()
    return response.json()["data"]["item"]


def test_broken_and_too_deep_posts_become_drafts_keeping_their_text_and_original(admin_api, client_for):
    items = (
        post(1, title="Fine", slug="fine")
        + post(2, title="Broken heading", slug="broken", content=BROKEN)
        + post(3, title="Deep", slug="deep", content=DEEP)
        + post(4, title="Groups", slug="groups", content=GROUPS)
    )

    job = run_import(admin_api, content=wxr(items))

    assert job["state"] == "completed"
    assert job["summary"]["imported"] == {"posts": {"created": 4}}
    assert job["summary"]["failed"] == []
    assert job["summary"]["warnings"] == [
        {
            "code": "BROKEN_BLOCK_MARKUP",
            "message": f"Item 2 'Broken heading': {BROKEN_MESSAGE} Imported as a draft with the original in its "
            "meta._importError.",
            "sourceId": 2,
        },
        {
            "code": "CONTENT_TOO_DEEP",
            "message": f"Item 3 'Deep': {DEEP_MESSAGE} Imported as a draft with the original in its meta._importError.",
            "sourceId": 3,
        },
        {
            "code": "CONTENT_TOO_DEEP",
            "message": f"Item 4 'Groups': {DEEP_MESSAGE} Imported as a draft with the original in its "
            "meta._importError.",
            "sourceId": 4,
        },
    ]
    assert read(admin_api, "fine")["status"] == "published"

    broken = read(admin_api, "broken")
    assert broken["status"] == "draft"
    assert plain_text(broken["data"]["content"]).split("\n") == [
        "Before the heading",
        "Words of the heading",
        "After the heading",
    ]
    assert broken["meta"]["_importError"] == {"message": BROKEN_MESSAGE, "content": BROKEN, "excerpt": ""}

    deep = read(admin_api, "deep")
    assert deep["status"] == "draft"
    assert deep["data"] == {
        "title": "Deep",
        "content": [
            text_block(1, "Start"),
            text_block(3, "deep words"),
            text_block(5, "After the deep part"),
        ],
    }
    assert deep["meta"]["_importError"] == {"message": DEEP_MESSAGE, "content": DEEP, "excerpt": ""}

    groups = read(admin_api, "groups")
    assert groups["status"] == "draft"
    assert plain_text(groups["data"]["content"]).split("\n") == ["Start", "deep words", "After the deep part"]
    assert groups["meta"]["_importError"]["content"] == GROUPS

    reader = client_for(role=Role.SUBSCRIBER, scopes=["content:read"])
    assert [item["slug"] for item in reader.get("/_cms/api/content/posts").json()["data"]["items"]] == [
        "fine"
    ]


def test_reimporting_an_unchanged_broken_post_changes_nothing(admin_api):
    content = wxr(post(2, title="Broken heading", slug="broken", content=BROKEN))
    run_import(admin_api, content=content)

    again = run_import(admin_api, content=content)

    assert again["summary"]["imported"] == {"posts": {"unchanged": 1}}
    assert again["summary"]["warnings"] == []
