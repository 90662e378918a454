"""Details an import must get right (issue 17): titles as text, not HTML; slugs without WordPress's trash suffix and
numbered in source order; declared authors' byline slugs; a stray byte that is not UTF-8 (docs/decisions.md, "Import"
and "Import pipeline")."""

from __future__ import annotations

from tests.importer.conftest import BLOCK_TEST_DATA, WXR
from tests.importer.helpers import all_entries, all_pages, post, run_import, wxr

TT5 = WXR / "tt5-demo-blueprint" / "playground-content.xml"


def author(login: str, name: str) -> str:
    return (
        f"<wp:author><wp:author_login><![CDATA[{login}]]></wp:author_login>"
        f"<wp:author_display_name><![CDATA[{name}]]></wp:author_display_name></wp:author>"
    )


def test_titles_are_text_without_html_entities(admin_api):
    run_import(admin_api, BLOCK_TEST_DATA)

    titles = {item["slug"]: item["data"]["title"] for item in all_entries(admin_api, "posts")}
    # <title><![CDATA[Media &amp; Text]]></title>: WordPress keeps titles HTML-escaped.
    assert titles["media-text"] == "Media & Text"
    assert not [title for title in titles.values() if "&amp;" in title or "&#" in title]


def test_trashed_items_lose_wordpress_trash_suffix(admin_api):
    run_import(admin_api, TT5)

    trashed = {
        collection: sorted(
            item["slug"] for item in all_pages(admin_api, f"/_cms/api/content/{collection}/trash")
        )
        for collection in ("posts", "pages")
    }
    # post_name hello-world__trashed-2, sample-page__trashed, sample-page-2__trashed, __trashed (title "404"),
    # 404-not-found__trashed.
    assert trashed == {
        "posts": ["hello-world"],
        "pages": ["404", "404-not-found", "sample-page", "sample-page-2"],
    }


def test_posts_of_the_same_name_are_numbered_in_source_order(admin_api, settings):
    settings.CMS_IMPORT_BATCH_SIZE = 10  # the numbering goes on across batches
    items = "".join(post(number, title="Draft", slug="", status="draft") for number in range(1, 26))

    job = run_import(admin_api, content=wxr(items))

    by_source = []
    for item in all_entries(admin_api, "posts"):
        read = admin_api.get(f"/_cms/api/content/posts/{item['id']}").json()["data"]["item"]
        by_source.append((read["meta"]["import"]["sourceId"], read["slug"]))
    assert sorted(by_source) == [(1, "draft")] + [(number, f"draft-{number}") for number in range(2, 26)]
    renamed = [warning for warning in job["summary"]["warnings"] if warning["code"] == "SLUG_RENAMED"]
    assert [warning["slug"] for warning in renamed] == [f"draft-{number}" for number in range(2, 26)]


def test_an_undeclared_author_never_takes_a_declared_authors_byline_slug(admin_api):
    header = author("jane-doe", "Jane Doe")
    items = post(1, title="By an undeclared login", creator="Jane_Doe") + post(
        2, title="By Jane", creator="jane-doe"
    )

    run_import(admin_api, content=wxr(items, header=header))

    bylines = {byline["slug"]: byline["displayName"] for byline in all_pages(admin_api, "/_cms/api/bylines")}
    assert bylines == {"jane-doe": "Jane Doe", "jane-doe-2": "Jane_Doe"}


def test_bytes_that_are_not_utf8_are_replaced_and_reported_by_line(admin_api):
    document = wxr(
        post(1, title="Cafe", slug="cafe", content="<p>Caf\x00 au lait</p>")
        + post(2, title="Fine", slug="fine", content="<p>caf\u00e9</p>")
    )
    line = document[: document.index(b"Caf\x00")].count(b"\n") + 1
    document = document.replace(b"Caf\x00", b"Caf\xe9")  # a Latin-1 "é" in a UTF-8 file

    job = run_import(admin_api, content=document)

    assert job["state"] == "completed"
    assert job["summary"]["warnings"] == [
        {
            "code": "INVALID_UTF8",
            "message": f"Line {line} holds bytes that are not UTF-8; each was replaced by U+FFFD (\ufffd).",
            "line": line,
        }
    ]
    cafe = admin_api.get("/_cms/api/content/posts/cafe").json()["data"]["item"]["data"]["content"]
    assert cafe[0]["children"][0]["text"] == "Caf\ufffd au lait"
    fine = admin_api.get("/_cms/api/content/posts/fine").json()["data"]["item"]["data"]["content"]
    assert fine[0]["children"][0]["text"] == "caf\u00e9"


def test_links_in_a_caption_shortcode_are_kept_as_link_annotations(admin_api):
    content = (
        '[caption id="attachment_906" align="aligncenter" width="580"]<a href="https://blog.example/full.jpg">'
        '<img src="https://blog.example/a.jpg" alt="A bell" width="580" height="300" /></a> Bell by '
        '<a href="https://photos.example/ann" title="Ann\'s photos">Ann</a> on the wharf.[/caption]'
    )

    run_import(admin_api, content=wxr(post(1, slug="bell", content=content)))

    [image] = admin_api.get("/_cms/api/content/posts/bell").json()["data"]["item"]["data"]["content"]
    assert image == {
        "_type": "image",
        "_key": "k1",
        "url": "https://blog.example/a.jpg",
        "alt": "A bell",
        "width": 580,
        "height": 300,
        "href": "https://blog.example/full.jpg",
        "align": "center",
        "caption": "Bell by Ann on the wharf.",
        "captionContent": [
            {
                "_type": "block",
                "_key": image["captionContent"][0]["_key"],
                "style": "normal",
                "markDefs": [
                    {
                        "_type": "link",
                        "_key": image["captionContent"][0]["markDefs"][0]["_key"],
                        "href": "https://photos.example/ann",
                        "title": "Ann's photos",
                    }
                ],
                "children": [
                    {
                        "_type": "span",
                        "_key": image["captionContent"][0]["children"][0]["_key"],
                        "text": "Bell by ",
                        "marks": [],
                    },
                    {
                        "_type": "span",
                        "_key": image["captionContent"][0]["children"][1]["_key"],
                        "text": "Ann",
                        "marks": [image["captionContent"][0]["markDefs"][0]["_key"]],
                    },
                    {
                        "_type": "span",
                        "_key": image["captionContent"][0]["children"][2]["_key"],
                        "text": " on the wharf.",
                        "marks": [],
                    },
                ],
            }
        ],
    }
