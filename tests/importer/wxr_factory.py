"""A deterministic WXR file of any size, written as a stream: posts with block markup, terms, authors, attachments,
and optionally pages and classic menus.

Used to show the reader's memory stays bounded (and reusable by benchmarks): the same arguments always give the
same bytes, and writing never holds more than one item in memory.
"""

from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import escape

HEADER = """<?xml version="1.0" encoding="UTF-8" ?>
<rss version="2.0"
  xmlns:excerpt="http://wordpress.org/export/1.2/excerpt/"
  xmlns:content="http://purl.org/rss/1.0/modules/content/"
  xmlns:dc="http://purl.org/dc/elements/1.1/"
  xmlns:wp="http://wordpress.org/export/1.2/">
<channel>
  <title>Generated site</title>
  <link>https://example.test</link>
  <language>en-US</language>
  <wp:wxr_version>1.2</wp:wxr_version>
  <wp:base_site_url>https://example.test</wp:base_site_url>
  <wp:base_blog_url>https://example.test</wp:base_blog_url>
"""

WORDS = (
    "lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit", "sed", "do", "eiusmod", "tempor",
    "incididunt", "ut", "labore", "et", "dolore", "magna", "aliqua", "enim", "ad", "minim", "veniam", "quis",
    "nostrud", "exercitation", "ullamco", "laboris", "nisi", "aliquip", "ex", "ea", "commodo",
)  # fmt: skip


def _sentence(seed: int, length: int) -> str:
    return " ".join(WORDS[(seed * 7 + index * 3) % len(WORDS)] for index in range(length)).capitalize() + "."


UPLOADS = "https://example.test/wp-content/uploads"


def _content(number: int, attachments: int = 50, uploads: str = UPLOADS) -> str:
    parts = [
        f'<!-- wp:heading -->\n<h2 class="wp-block-heading">{_sentence(number, 5)}</h2>\n<!-- /wp:heading -->',
        f"<!-- wp:paragraph -->\n<p>{_sentence(number + 1, 30)} <strong>{_sentence(number + 2, 3)}</strong> "
        f'<a href="https://example.test/{number}">{_sentence(number + 3, 2)}</a></p>\n<!-- /wp:paragraph -->',
        f'<!-- wp:image {{"id":{100000 + number % attachments}}} -->\n<figure class="wp-block-image"><img '
        f'src="{uploads}/{number % attachments}.jpg" alt="{_sentence(number, 3)}"/>'
        f"<figcaption>{_sentence(number + 4, 6)}</figcaption></figure>\n<!-- /wp:image -->",
        "<!-- wp:list -->\n<ul>"
        + "".join(
            f"<!-- wp:list-item --><li>{_sentence(number + i, 6)}</li><!-- /wp:list-item -->"
            for i in range(3)
        )
        + "</ul>\n<!-- /wp:list -->",
        f'<!-- wp:quote -->\n<blockquote class="wp-block-quote"><!-- wp:paragraph -->\n<p>{_sentence(number + 5, 12)}'
        "</p>\n<!-- /wp:paragraph --></blockquote>\n<!-- /wp:quote -->",
        f"<!-- wp:paragraph -->\n<p>{_sentence(number + 6, 40)}</p>\n<!-- /wp:paragraph -->",
    ]
    return "\n\n".join(parts)


def _item(
    number: int,
    *,
    authors: int,
    categories: int,
    tags: int,
    attachments: int = 50,
    uploads: str = UPLOADS,
    post_type: str = "post",
    prefix: str = "",
) -> str:
    content = _content(number, attachments, uploads)
    author = f"author{number % authors}"
    date = f"2020-{1 + number % 12:02d}-{1 + number % 28:02d} {number % 24:02d}:{number % 60:02d}:00"
    return f"""  <item>
    <title>{escape(_sentence(number, 6))}</title>
    <link>https://example.test/?p={number}</link>
    <dc:creator><![CDATA[{author}]]></dc:creator>
    <guid isPermaLink="false">https://example.test/?p={number}</guid>
    <content:encoded><![CDATA[{content}]]></content:encoded>
    <excerpt:encoded><![CDATA[{_sentence(number, 10)}]]></excerpt:encoded>
    <wp:post_id>{number}</wp:post_id>
    <wp:post_date><![CDATA[{date}]]></wp:post_date>
    <wp:post_date_gmt><![CDATA[{date}]]></wp:post_date_gmt>
    <wp:comment_status><![CDATA[open]]></wp:comment_status>
    <wp:post_name><![CDATA[post-{number}]]></wp:post_name>
    <wp:status><![CDATA[publish]]></wp:status>
    <wp:post_parent>0</wp:post_parent>
    <wp:menu_order>0</wp:menu_order>
    <wp:post_type><![CDATA[{post_type}]]></wp:post_type>
    <category domain="category" nicename="{prefix}category-{number % categories}"><![CDATA[Category {number % categories}]]></category>
    <category domain="post_tag" nicename="tag-{number % tags}"><![CDATA[Tag {number % tags}]]></category>
    <wp:postmeta>
      <wp:meta_key><![CDATA[_thumbnail_id]]></wp:meta_key>
      <wp:meta_value><![CDATA[{100000 + number % attachments}]]></wp:meta_value>
    </wp:postmeta>
    <wp:postmeta>
      <wp:meta_key><![CDATA[settings]]></wp:meta_key>
      <wp:meta_value><![CDATA[a:2:{{s:4:"size";i:{number};s:4:"tags";a:1:{{i:0;s:3:"one";}}}}]]></wp:meta_value>
    </wp:postmeta>
  </item>
"""


def _menu_item(number: int, menu: str, target: int, parent: int) -> str:
    meta = {
        "_menu_item_type": "post_type",
        "_menu_item_object": "post",
        "_menu_item_object_id": target,
        "_menu_item_menu_item_parent": parent,
        "_menu_item_url": "",
    }
    return (
        f"  <item><title>Link {number}</title><wp:post_id>{200000 + number}</wp:post_id>"
        f"<wp:post_type>nav_menu_item</wp:post_type><wp:status>publish</wp:status>"
        f"<wp:menu_order>{number}</wp:menu_order>"
        f'<category domain="nav_menu" nicename="{menu}"><![CDATA[{menu}]]></category>'
        + "".join(
            f"<wp:postmeta><wp:meta_key>{key}</wp:meta_key><wp:meta_value><![CDATA[{value}]]></wp:meta_value>"
            "</wp:postmeta>"
            for key, value in meta.items()
        )
        + "</item>\n"
    )


def write_wxr(
    path: Path,
    posts: int,
    *,
    authors: int = 5,
    categories: int = 20,
    tags: int = 50,
    attachments: int = 50,
    uploads: str = UPLOADS,
    pages: int = 0,
    menus: int = 0,
    menu_items: int = 0,
    prefix: str = "",
) -> Path:
    """Write a WXR file with ``posts`` posts (plus authors, terms and ``attachments`` attachments whose files are at
    ``uploads``) to ``path``; with ``pages`` pages after them, and ``menu_items`` menu items spread over ``menus``
    menus, each linking a post (five in a row in one menu, each under the one before it). ``prefix`` starts the slugs of the
    categories and menus, so that two files' terms are different terms."""
    with path.open("w", encoding="utf-8") as handle:
        handle.write(HEADER)
        for number in range(authors):
            handle.write(
                f"  <wp:author><wp:author_id>{number + 1}</wp:author_id><wp:author_login><![CDATA[author{number}]]>"
                f"</wp:author_login><wp:author_email><![CDATA[author{number}@example.test]]></wp:author_email>"
                "</wp:author>\n"
            )
        for number in range(categories):
            handle.write(
                f"  <wp:category><wp:term_id>{number + 1}</wp:term_id><wp:category_nicename>{prefix}category-{number}"
                f"</wp:category_nicename><wp:category_parent></wp:category_parent><wp:cat_name><![CDATA["
                f"Category {number}]]></wp:cat_name></wp:category>\n"
            )
        for number in range(menus):
            handle.write(
                f"  <wp:term><wp:term_id>{90000 + number}</wp:term_id><wp:term_taxonomy>nav_menu</wp:term_taxonomy>"
                f"<wp:term_slug>{prefix}menu-{number}</wp:term_slug><wp:term_name><![CDATA[Menu {number}]]>"
                "</wp:term_name></wp:term>\n"
            )
        for number in range(attachments):
            handle.write(
                f"  <item><title>Image {number}</title><wp:post_id>{100000 + number}</wp:post_id>"
                f"<wp:post_type>attachment</wp:post_type><wp:status>inherit</wp:status><wp:attachment_url>"
                f"{uploads}/{number}.jpg</wp:attachment_url></item>\n"
            )
        shape = {"authors": authors, "categories": categories, "tags": tags, "attachments": attachments}
        for number in range(1, posts + 1):
            handle.write(_item(number, uploads=uploads, prefix=prefix, **shape))
        for number in range(posts + 1, posts + pages + 1):
            handle.write(_item(number, uploads=uploads, prefix=prefix, post_type="page", **shape))
        for number in range(menu_items):
            # Five items in a row share a menu, each under the one before it.
            parent = 200000 + number - 1 if number % 5 else 0
            menu = f"{prefix}menu-{number // 5 % max(menus, 1)}"
            handle.write(_menu_item(number, menu, 1 + number % max(posts, 1), parent))
        handle.write("</channel>\n</rss>\n")
    return path
