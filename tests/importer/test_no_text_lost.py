"""No text may be lost: every word a reader of a post saw is in ``plain_text()`` of its Portable Text, in order.

For every post, page and other item of every readable export in the shared test data (the Theme Unit Test, the
block test data, WordPress importer's fixtures, WooCommerce, wordpress.org pages, …), the visible text of the
original content is computed independently of the converter: lxml parses the HTML, the text of every element
except scripts, styles and comments is collected, block-level elements separate words. Whitespace is normalised by
comparing words (runs of non-space characters, no-break spaces counting as space). The words must appear in the
converted document's plain text in the same order; Portable Text may add words (alt text, captions given as
attributes), never drop or merge them.

Justified exceptions: text WordPress itself never shows, because it replaces it when rendering the post, is left
out of the reference:

1. the tags of WordPress's own shortcodes ``[caption …]``, ``[/caption]``, ``[gallery …]``, ``[playlist …]``,
   ``[audio …]``, ``[video …]``, ``[embed]URL[/embed]`` (``do_shortcode`` replaces them by their output; the
   caption text inside ``[caption]`` is kept and checked), and of any shortcode inside a shortcode block;
2. the URL inside an embed block's ``wp-block-embed__wrapper`` (replaced by the embedded player or post);
3. in classic content, a URL alone on its line when it belongs to an embed provider WordPress knows
   (``WP_Embed::autoembed`` replaces it by the embed).

and one exception of layout: a file block's download button (``a.wp-block-file__button``) is its own control next
to the file name even though the markup puts no space between them ("ReportDownload" is two words on screen).

Broken block markup and content nested too deeply (docs/decisions.md, "Import") keep every word too, and the item
says why it is not converted faithfully (``content_problem``), for the import to save it as a draft with the original.
Content nested past libxml2's depth limit is checked against words written out here, since the reference's own
parser (libxml2) stops at that depth as well.
"""

import collections
import io
import re

import lxml.html
import pytest

from apps.core import portabletext
from apps.core.embeds import provider_for_url
from apps.importer.items import ImportItem
from apps.importer.sources.wxr import WxrError, read_wxr
from tests.importer.helpers import post, wxr
from tests.testdata import TESTDATA

CORE_SHORTCODES = "caption|wp_caption|gallery|playlist|audio|video|embed"
HIDDEN = {"script", "style", "template", "noscript", "head", "title"}
BLOCK_LEVEL = {
    "address", "article", "aside", "audio", "blockquote", "body", "br", "caption", "center", "dd", "details",
    "dialog", "dir", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4",
    "h5", "h6", "header", "hgroup", "hr", "iframe", "img", "li", "main", "menu", "nav", "ol", "option", "p", "pre",
    "section", "select", "summary", "table", "tbody", "td", "textarea", "tfoot", "th", "thead", "tr", "ul", "video",
}  # fmt: skip


def readable_exports():
    paths = []
    for path in sorted((TESTDATA / "wxr").rglob("*.xml")):
        try:
            collections.deque(read_wxr(path, convert=False), maxlen=0)  # read it all, keep nothing
        except WxrError:
            continue  # refused files are tested in test_wxr.py
        paths.append(pytest.param(path, id=str(path.relative_to(TESTDATA / "wxr"))))
    return paths


def without_shortcodes(html: str, names: str) -> str:
    """The HTML without the tags of these shortcodes ([[name]] is escaped: WordPress shows "[name]")."""
    html = re.sub(r"\[embed[^\]]*\].*?\[/embed\]", " ", html, flags=re.S)
    return re.sub(
        r"\[(\[?)/?(?:" + names + r")(?![\w-])(?:[^\]\"']|\"[^\"]*\"|'[^']*')*\](\]?)",
        lambda match: match.group(0)[1:-1] if match.group(1) and match.group(2) else " ",
        html,
    )


def reference_words(content: str) -> list[str]:
    """What a reader of the rendered post saw, as words (see the module docstring for what is left out)."""
    if "<!-- wp:" in content:
        content = re.sub(
            r"<!-- wp:shortcode -->(.*?)<!-- /wp:shortcode -->",
            lambda match: without_shortcodes(match.group(1), r"[A-Za-z0-9_][\w-]*"),
            content,
            flags=re.S,
        )
    else:
        content = re.sub(
            r"^\s*(https?://[^\s<>\"]+)\s*$",
            lambda match: "" if provider_for_url(match.group(1)) else match.group(0),
            content,
            flags=re.M,
        )
    content = without_shortcodes(content, CORE_SHORTCODES)
    body = lxml.html.document_fromstring(f"<html><body>{content}</body></html>").find("body")
    for wrapper in body.xpath(
        '//*[contains(concat(" ", normalize-space(@class), " "), " wp-block-embed__wrapper ")]'
    ):
        wrapper.text = ""
        for child in wrapper:
            child.tail = ""
    parts: list[str] = [body.text or ""]

    def walk(element) -> None:
        for child in element:
            tag = child.tag.lower() if isinstance(child.tag, str) else None
            if tag and tag not in HIDDEN:
                separate = tag in BLOCK_LEVEL or "wp-block-file__button" in (child.get("class") or "").split()
                parts.append(" " if separate else "")
                parts.append(child.text or "")
                walk(child)
                parts.append(" " if separate else "")
            parts.append(child.tail or "")

    walk(body)
    return "".join(parts).split()


def missing_words(expected: list[str], converted: list[str]) -> list[str]:
    """Words of ``expected`` not found, in order, in ``converted``."""
    missing, position = [], 0
    for word in expected:
        try:
            position = converted.index(word, position) + 1
        except ValueError:
            missing.append(word)
    return missing


@pytest.mark.parametrize("path", readable_exports())
def test_every_word_of_every_post_is_kept(path):
    losses = {}
    for item in read_wxr(path):
        if not isinstance(item, ImportItem):
            continue
        words = reference_words(item.raw_content)
        missing = missing_words(words, portabletext.plain_text(item.content).split())
        if missing:
            losses[f"{item.post_type} {item.source_id} {item.title!r}"] = missing[:20]
    assert losses == {}


def test_the_main_exports_are_covered():
    exports = {param.id for param in readable_exports()}
    assert {
        "theme-test-data/themeunittestdata.wordpress.xml",
        "theme-test-data/64-block-test-data.xml",
    } <= exports
    assert len(exports) >= 40
    items = [
        item for item in read_wxr(TESTDATA / "wxr" / "theme-test-data" / "themeunittestdata.wordpress.xml")
    ]
    assert (
        sum(isinstance(item, ImportItem) and bool(reference_words(item.raw_content)) for item in items) > 70
    )


def test_the_reference_leaves_out_only_what_wordpress_replaces():
    assert reference_words(
        '[caption id="1" caption="x"]<img src="a.jpg"> Kept text[/caption] [gallery ids="1"]'
    ) == [
        "Kept",
        "text",
    ]
    assert reference_words("[[gallery]] and [sic]") == ["[gallery]", "and", "[sic]"]
    assert reference_words("https://www.youtube.com/watch?v=1\nhttps://unknown.example.test/") == [
        "https://unknown.example.test/"
    ]
    assert reference_words(
        '<div class="wp-block-file"><a>Report</a><a class="wp-block-file__button">Get</a></div>'
    ) == [
        "Report",
        "Get",
    ]


def test_a_lost_word_would_be_reported():
    assert missing_words(["a", "b", "c"], ["a", "c"]) == ["b"]
    assert missing_words(["ab"], ["a", "b"]) == ["ab"]
    assert missing_words(["b", "a"], ["a", "b"]) == ["a"]


def only_item(content: str) -> ImportItem:
    [item] = [
        record
        for record in read_wxr(io.BytesIO(wxr(post(1, content=content))))
        if isinstance(record, ImportItem)
    ]
    return item


P = "<!-- wp:paragraph --><p>{}</p><!-- /wp:paragraph -->"
BROKEN = {
    # The audit's example: the heading's JSON never closes and the closer names another block. The opener used to
    # swallow everything up to the next "} -->", the heading's words with it.
    "heading with unterminated attributes and a mismatched closer": (
        P.format("Before the heading")
        + '<!-- wp:heading {"level":2 --><h2 class="wp-block-heading">Words of the heading</h2><!-- /wp:list -->'
        + '<!-- wp:paragraph {"align":"right"} --><p class="has-text-align-right">After the heading</p>'
        "<!-- /wp:paragraph -->",
        '<!-- wp:heading {"level":2 … is not valid block markup; a closing <!-- /wp:list --> without an open block',
        "",
    ),
    "a closer that ends a gallery holding a paragraph": (
        '<!-- wp:gallery --><figure class="wp-block-gallery"><img src="a.jpg" alt=""/></figure>'
        + P.format("Caught inside the gallery")
        + "<!-- /wp:list -->"
        + P.format("After it"),
        "<!-- /wp:list --> closes the gallery block opened before it",
        ", as plain paragraphs where a block could not be read",
    ),
    "attributes that are not JSON": (
        '<!-- wp:heading {"level":2,} --><h2>Trailing comma</h2><!-- /wp:heading -->',
        "the attributes of a heading block are not a JSON object",
        "",
    ),
    "a block never closed": (
        P.format("Closed") + "<!-- wp:paragraph --><p>Left open to the end</p>",
        "a paragraph block is never closed",
        "",
    ),
    "a closer without an opener": (
        "<p>Classic text</p><!-- /wp:paragraph -->" + P.format("Then a block"),
        "a closing <!-- /wp:paragraph --> without an open block",
        "",
    ),
}


@pytest.mark.parametrize(("content", "issues", "how"), BROKEN.values(), ids=BROKEN.keys())
def test_broken_block_markup_keeps_every_word_and_says_what_is_broken(content, issues, how):
    item = only_item(content)

    assert missing_words(reference_words(content), portabletext.plain_text(item.content).split()) == []
    assert item.content_problem == {
        "code": "BROKEN_BLOCK_MARKUP",
        "message": f"The block markup is broken ({issues}); its text was kept{how}.",
    }


def nested(levels: int, opener: str, closer: str, inner: str) -> str:
    return opener * levels + inner + closer * levels


DEEP = {
    "HTML elements 1,100 deep in classic content": (
        "<p>Start</p>" + nested(1100, "<div>", "</div>", "deep words") + "<p>After the deep part</p>"
    ),
    "HTML elements 300 deep inside a block": (
        P.format("Start")
        + "<!-- wp:html -->"
        + nested(300, "<div>", "</div>", "deep words")
        + "<p>After the deep part</p><!-- /wp:html -->"
    ),
    "blocks 40 deep": (
        P.format("Start")
        + nested(
            40, "<!-- wp:quote --><blockquote>", "</blockquote><!-- /wp:quote -->", P.format("deep words")
        )
        + P.format("After the deep part")
    ),
    "groups deeper than Portable Text holds": (
        P.format("Start")
        + nested(12, "<!-- wp:group --><div>", "</div><!-- /wp:group -->", P.format("deep words"))
        + P.format("After the deep part")
    ),
}


@pytest.mark.parametrize("content", DEEP.values(), ids=DEEP.keys())
def test_content_nested_too_deeply_keeps_its_text_flattened(content):
    item = only_item(content)

    assert portabletext.plain_text(item.content).split("\n") == ["Start", "deep words", "After the deep part"]
    assert item.content_problem == {
        "code": "CONTENT_TOO_DEEP",
        "message": "The content is nested too deeply to convert (blocks, HTML elements or containers inside one another "
        "past what the CMS can hold); its text was kept as plain paragraphs.",
    }
    # What is kept is valid Portable Text an entry accepts.
    assert portabletext.normalize(item.content)[1] == {}


def test_well_formed_posts_report_no_problem():
    problems = {
        f"{path.name} {item.source_id}": item.content_problem
        for path in (TESTDATA / "wxr" / "theme-test-data").glob("*.xml")
        for item in read_wxr(path)
        if isinstance(item, ImportItem) and item.content_problem
    }
    assert problems == {}
