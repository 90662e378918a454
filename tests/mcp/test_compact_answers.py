"""Answers an agent can afford (issue 23): content_list is compact by default (system fields, the title field and
the portableText fields as Markdown cut to CMS_MCP_COMPACT_TEXT_CHARS, saying so), ``fields`` and ``format`` ask for
more, and content_get takes the same projection. The size of five short entries is the figure of docs/performance.md
("MCP answer sizes")."""

from __future__ import annotations

import json

import pytest

from apps.accounts.permissions import Actor
from apps.taxonomy import services as taxonomy_services
from tests.factories import make_byline, make_collection, make_media

BODY = (
    "An opening paragraph of a short post, with **some emphasis** and [a link](https://example.com/more).\n\n"
    "A second paragraph says a little more about the subject, as short posts do.\n\n"
    "- one point\n- another point\n"
)
MORE = "fields and format (markdown, portableText) answer more; content_get one entry in full."


@pytest.fixture
def posts(admin_mcp):
    make_collection(
        "posts",
        supports=["drafts", "revisions"],
        fields=[
            ("title", "string", {"required": True}),
            ("excerpt", "text"),
            ("body", "portableText"),
            ("cover", "image"),
        ],
    )
    taxonomy_services.taxonomy_create(
        actor=Actor.system(), name="category", label="Categories", collections=["posts"]
    )
    admin_mcp.ok("taxonomy_create_term", {"taxonomy": "category", "slug": "news", "label": "News"})
    byline = make_byline("Ada Lovelace")
    cover = make_media(filename="cover.png")
    ids = []
    for number in range(1, 6):
        ids.append(
            admin_mcp.ok(
                "content_create",
                {
                    "collection": "posts",
                    "data": {
                        "title": f"Short post {number}",
                        "excerpt": "What this post is about, in one sentence.",
                        "body": BODY,
                        "cover": {"id": cover.pk},
                    },
                    "taxonomies": {"category": ["news"]},
                    "bylines": [{"bylineId": byline.pk}],
                    "status": "published",
                },
            )["item"]["id"]
        )
    return ids


def _bytes(mcp, arguments: dict) -> int:
    result = mcp.call("content_list", arguments)["result"]
    return len(result["content"][0]["text"].encode())


def test_lists_are_compact_by_default(admin_mcp, posts, settings):
    settings.CMS_MCP_COMPACT_TEXT_CHARS = 40
    listed = admin_mcp.ok("content_list", {"collection": "posts", "limit": 5})

    assert listed["compact"] == {
        "fields": ["title", "body"],
        "maxTextChars": 40,
        "truncated": 5,
        "more": MORE,
    }
    item = listed["items"][0]
    assert item == {
        "id": posts[-1],
        "slug": "short-post-5",
        "status": "published",
        "locale": "en",
        "data": {"title": "Short post 5", "body": "An opening paragraph of a short post, w…"},
        "updatedAt": item["updatedAt"],
        "publishedAt": item["publishedAt"],
        "bylines": ["Ada Lovelace"],
        "terms": {"category": ["news"]},
    }
    assert len(item["data"]["body"]) == 40
    assert item["publishedAt"] is not None


def test_text_within_the_limit_is_not_cut(admin_mcp, posts, settings):
    settings.CMS_MCP_COMPACT_TEXT_CHARS = 10_000
    listed = admin_mcp.ok("content_list", {"collection": "posts", "limit": 1})

    assert listed["compact"]["truncated"] == 0
    assert listed["items"][0]["data"]["body"].startswith("An opening paragraph of a short post, with **some")
    assert not listed["items"][0]["data"]["body"].endswith("…")


def test_fields_choose_what_a_compact_list_shows(admin_mcp, posts):
    listed = admin_mcp.ok("content_list", {"collection": "posts", "limit": 1, "fields": ["excerpt"]})

    assert listed["items"][0]["data"] == {"excerpt": "What this post is about, in one sentence."}
    assert listed["compact"]["fields"] == ["excerpt"]
    assert listed["compact"]["truncated"] == 0


@pytest.mark.parametrize("format", ["markdown", "portableText", "json"])
def test_a_full_format_answers_every_field_without_a_note(admin_mcp, posts, format):
    listed = admin_mcp.ok("content_list", {"collection": "posts", "limit": 1, "format": format})

    assert "compact" not in listed
    data = listed["items"][0]["data"]
    assert set(data) == {"title", "excerpt", "body", "cover"}
    assert isinstance(data["body"], str if format == "markdown" else list)


def test_content_get_takes_the_projection(admin_mcp, posts):
    got = admin_mcp.ok(
        "content_get",
        {"collection": "posts", "id": posts[0], "fields": ["title", "body"], "format": "markdown"},
    )

    assert set(got["item"]["data"]) == {"title", "body"}
    assert got["item"]["data"]["body"].startswith(
        "An opening paragraph of a short post, with **some emphasis**"
    )
    assert got["item"]["id"] == posts[0] and got["_rev"]
    full = admin_mcp.ok("content_get", {"collection": "posts", "id": posts[0]})
    assert set(full["item"]["data"]) == {"title", "excerpt", "body", "cover"}
    assert isinstance(full["item"]["data"]["body"], list)
    _, error = admin_mcp.fails("content_get", {"collection": "posts", "id": posts[0], "fields": ["nope"]})
    assert error["details"] == {
        "fields": "No field 'nope' in 'posts'; its fields are: title, excerpt, body, cover."
    }


def test_five_short_entries_cost_a_third_or_less(admin_mcp, posts, capsys):
    compact = _bytes(admin_mcp, {"collection": "posts", "limit": 5})
    full = _bytes(admin_mcp, {"collection": "posts", "limit": 5, "format": "portableText"})
    markdown = _bytes(admin_mcp, {"collection": "posts", "limit": 5, "format": "markdown"})

    with capsys.disabled():
        print(json.dumps({"portableText": full, "markdown": markdown, "compact": compact}))
    assert compact * 3 <= full
