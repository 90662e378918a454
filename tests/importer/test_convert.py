"""WordPress content → Portable Text: each block type, classic content and shortcodes, and golden conversions.

Goldens are the committed conversions in ``goldens/`` of Gutenberg's block fixtures and a representative set of
posts from the Theme Unit Test, the block test data and our own reusable-block fixture. After an intended change,
regenerate them with ``UPDATE_GOLDENS=1 pytest tests/importer/test_convert.py`` and review the diff.
"""

import json
import os
from pathlib import Path

import pytest

from apps.core import portabletext
from apps.importer.blocks.convert import blocks_to_portable_text, content_to_portable_text, register_converter
from apps.importer.blocks.parser import parse_blocks
from apps.importer.items import ImportItem
from apps.importer.sources.wxr import read_wxr
from tests.testdata import TESTDATA

GOLDENS = Path(__file__).parent / "goldens"
FIXTURES = Path(__file__).parent / "fixtures"

GOLDEN_POSTS = {
    "wxr/theme-test-data/themeunittestdata.wordpress.xml": {
        1178: "markup-html-tags-and-formatting",
        1177: "markup-image-alignment",
        555: "post-format-gallery",
        1161: "post-format-video-youtube",
        562: "post-format-chat",
        996: "template-more-tag",
        1171: "template-paginated",
        1000: "edge-case-nested-and-mixed-lists",
        1730: "block-category-common",
        1734: "block-category-layout-elements",
        1738: "block-category-embeds",
    },
    "wxr/theme-test-data/64-block-test-data.xml": {
        19: "block-list",
        23: "block-quote",
        39: "block-details",
        47: "block-pullquote",
        57: "block-table",
        69: "block-verse",
        75: "block-footnotes",
        76: "block-classic",
        84: "block-gallery",
        88: "block-cover",
        90: "block-file",
        93: "block-media-text",
        97: "block-buttons",
        113: "block-columns",
        115: "block-group",
        121: "block-more",
        123: "block-page-break",
        145: "block-custom-html",
        151: "block-latest-posts",
        165: "block-shortcode",
    },
}


def convert(content):
    blocks = content_to_portable_text(content)
    assert portabletext.normalize(blocks)[1] == {}
    return blocks


def without_keys(value):
    if isinstance(value, dict):
        return {name: without_keys(item) for name, item in value.items() if name != "_key"}
    if isinstance(value, list):
        return [without_keys(item) for item in value]
    return value


def texts(blocks):
    return [portabletext.block_text(block) for block in blocks]


def golden_cases():
    cases = [
        pytest.param(f"gutenberg-{path.stem}", path.read_text(), id=path.stem)
        for path in sorted((TESTDATA / "gutenberg" / "blocks").glob("*.html"))
    ]
    for source, posts in GOLDEN_POSTS.items():
        for item in read_wxr(TESTDATA / source, convert=False):
            if isinstance(item, ImportItem) and item.source_id in posts:
                name = posts[item.source_id]
                cases.append(pytest.param(name, item.raw_content, id=name))
    for item in read_wxr(FIXTURES / "reusable-blocks-and-languages.xml", convert=False):
        if isinstance(item, ImportItem) and item.source_id in (10, 20):
            name = f"reusable-{'block' if item.source_id == 10 else 'reference'}"
            cases.append(pytest.param(name, item.raw_content, id=name))
    return cases


def test_every_golden_post_is_found():
    assert len(golden_cases()) == len(list((TESTDATA / "gutenberg" / "blocks").glob("*.html"))) + 31 + 2


@pytest.mark.parametrize(("name", "content"), golden_cases())
def test_goldens(name, content):
    converted = convert(content)
    path = GOLDENS / f"{name}.json"
    # One top-level block per line: small files whose diffs still point at the block that changed.
    rendered = "[\n" + ",\n".join(json.dumps(block, ensure_ascii=False) for block in converted) + "\n]\n"
    if os.environ.get("UPDATE_GOLDENS"):
        GOLDENS.mkdir(exist_ok=True)
        path.write_text(rendered)
    assert path.exists(), f"No golden file {path.name}: run with UPDATE_GOLDENS=1 and review it."
    assert json.loads(path.read_text()) == converted


def test_text_blocks_keep_marks_links_and_headings():
    blocks = convert(
        '<!-- wp:heading {"level":3} --><h3 class="wp-block-heading">Title <em>here</em></h3><!-- /wp:heading -->'
        '<!-- wp:paragraph --><p>A <a href="https://example.test" target="_blank" rel="noopener">link</a>, '
        "<strong>bold</strong>, <s>gone</s>, x<sup>2</sup>.</p><!-- /wp:paragraph -->"
    )
    heading, paragraph = blocks
    assert heading["style"] == "h3" and texts(blocks) == ["Title here", "A link, bold, gone, x2."]
    assert (
        paragraph["markDefs"][0]["href"] == "https://example.test"
        and paragraph["markDefs"][0]["blank"] is True
    )
    assert [span["marks"] for span in paragraph["children"]][1:8:2] == [
        [paragraph["markDefs"][0]["_key"]],
        ["strong"],
        ["strike-through"],
        ["sup"],
    ]


def test_both_list_markups_give_the_same_items():
    old = convert("<!-- wp:list --><ul><li>One<ul><li>Two</li></ul></li><li>Three</li></ul><!-- /wp:list -->")
    new = convert(
        "<!-- wp:list --><ul><!-- wp:list-item --><li>One<!-- wp:list --><ul><!-- wp:list-item --><li>Two</li>"
        "<!-- /wp:list-item --></ul><!-- /wp:list --></li><!-- /wp:list-item --><!-- wp:list-item --><li>Three</li>"
        "<!-- /wp:list-item --></ul><!-- /wp:list -->"
    )
    numbered = convert('<!-- wp:list {"ordered":true} --><ol><li>First</li></ol><!-- /wp:list -->')
    assert without_keys(old) == without_keys(new)
    assert [(block["listItem"], block["level"]) for block in new] == [
        ("bullet", 1),
        ("bullet", 2),
        ("bullet", 1),
    ]
    assert texts(new) == ["One", "Two", "Three"]
    assert numbered[0]["listItem"] == "number"


def test_quotes_code_and_verse():
    quote, cite, code, pre, verse = convert(
        '<!-- wp:quote --><blockquote class="wp-block-quote"><!-- wp:paragraph --><p>Inner</p><!-- /wp:paragraph -->'
        "<cite>Someone</cite></blockquote><!-- /wp:quote -->"
        '<!-- wp:code {"language":"PHP"} --><pre class="wp-block-code"><code>echo 1;</code></pre><!-- /wp:code -->'
        '<!-- wp:preformatted --><pre class="wp-block-preformatted">  two  spaces</pre><!-- /wp:preformatted -->'
        '<!-- wp:verse --><pre class="wp-block-verse">Line one\n  line <em>two</em></pre><!-- /wp:verse -->'
    )
    assert (quote["style"], cite["style"], texts([quote, cite])) == (
        "blockquote",
        "blockquote",
        ["Inner", "Someone"],
    )
    assert (code["_type"], code["code"], code["language"]) == ("code", "echo 1;", "php")
    assert (pre["_type"], pre["code"]) == ("code", "  two  spaces")
    assert verse["_type"] == "block" and portabletext.block_text(verse) == "Line one\n  line two"


def test_media_blocks():
    image, gallery, file, video, audio, embed, old_embed = convert(
        '<!-- wp:image {"id":5,"width":300} --><figure class="wp-block-image"><a href="/full.jpg"><img src="/i.jpg" '
        'alt="Alt"/></a><figcaption class="wp-element-caption">Cap</figcaption></figure><!-- /wp:image -->'
        '<!-- wp:gallery {"columns":2} --><figure class="wp-block-gallery"><!-- wp:image --><figure '
        'class="wp-block-image"><img src="/a.jpg" alt="A"/><figcaption>First</figcaption></figure><!-- /wp:image -->'
        '<!-- wp:image --><figure class="wp-block-image"><img src="/b.jpg" alt="B"/></figure><!-- /wp:image -->'
        '<figcaption class="blocks-gallery-caption">Both</figcaption></figure><!-- /wp:gallery -->'
        '<!-- wp:file {"href":"/f.pdf"} --><div class="wp-block-file"><a href="/f.pdf">Report</a><a href="/f.pdf" '
        'class="wp-block-file__button" download>Download</a></div><!-- /wp:file -->'
        '<!-- wp:video --><figure class="wp-block-video"><video controls src="/v.mp4"></video><figcaption>Clip'
        "</figcaption></figure><!-- /wp:video -->"
        '<!-- wp:audio --><figure class="wp-block-audio"><audio controls src="/a.mp3"></audio></figure>'
        "<!-- /wp:audio -->"
        '<!-- wp:embed {"url":"https://youtu.be/x","providerNameSlug":"youtube"} --><figure class="wp-block-embed">'
        '<div class="wp-block-embed__wrapper">\nhttps://youtu.be/x\n</div><figcaption>Watch</figcaption></figure>'
        "<!-- /wp:embed -->"
        '<!-- wp:core-embed/twitter {"url":"https://twitter.com/a/status/1"} --><figure><div '
        'class="wp-block-embed__wrapper">https://twitter.com/a/status/1</div></figure><!-- /wp:core-embed/twitter -->'
    )
    assert without_keys(image) == {
        "_type": "image",
        "url": "/i.jpg",
        "alt": "Alt",
        "caption": "Cap",
        "href": "/full.jpg",
        "width": 300,
    }
    assert without_keys(gallery) == {
        "_type": "gallery",
        "images": [
            {"_type": "image", "url": "/a.jpg", "alt": "A", "caption": "First"},
            {"_type": "image", "url": "/b.jpg", "alt": "B"},
        ],
        "caption": "Both",
        "columns": 2,
    }
    assert without_keys(file) == {
        "_type": "file",
        "url": "/f.pdf",
        "name": "Report",
        "showDownloadButton": True,
        "downloadButtonText": "Download",
    }
    assert without_keys(video) == {"_type": "video", "url": "/v.mp4", "caption": "Clip"}
    assert without_keys(audio) == {"_type": "audio", "url": "/a.mp3"}
    assert without_keys(embed) == {
        "_type": "embed",
        "url": "https://youtu.be/x",
        "provider": "youtube",
        "caption": "Watch",
    }
    assert without_keys(old_embed) == {
        "_type": "embed",
        "url": "https://twitter.com/a/status/1",
        "provider": "twitter",
    }


def test_breaks_buttons_and_layout_containers():
    blocks = convert(
        '<!-- wp:separator --><hr class="wp-block-separator"/><!-- /wp:separator -->'
        '<!-- wp:spacer {"height":"40px"} --><div style="height:40px" class="wp-block-spacer"></div><!-- /wp:spacer -->'
        '<!-- wp:more {"customText":"Read on","noTeaser":true} --><!--more Read on--><!--noteaser--><!-- /wp:more -->'
        "<!-- wp:nextpage --><!--nextpage--><!-- /wp:nextpage -->"
        '<!-- wp:buttons --><div class="wp-block-buttons"><!-- wp:button --><div class="wp-block-button"><a '
        'class="wp-block-button__link" href="/go" target="_blank">Go</a></div><!-- /wp:button --></div>'
        "<!-- /wp:buttons -->"
        '<!-- wp:columns --><div class="wp-block-columns"><!-- wp:column {"width":"33%"} --><div '
        'class="wp-block-column"><!-- wp:paragraph --><p>Left</p><!-- /wp:paragraph --></div><!-- /wp:column -->'
        '<!-- wp:column --><div class="wp-block-column"><!-- wp:heading --><h2>Right</h2><!-- /wp:heading --></div>'
        "<!-- /wp:column --></div><!-- /wp:columns -->"
        '<!-- wp:group {"tagName":"section"} --><section class="wp-block-group"><!-- wp:paragraph --><p>Grouped</p>'
        "<!-- /wp:paragraph --></section><!-- /wp:group -->"
        '<!-- wp:cover {"url":"/bg.jpg","alt":"Sky"} --><div class="wp-block-cover"><span '
        'class="wp-block-cover__background"></span><img class="wp-block-cover__image-background" src="/bg.jpg" '
        'alt="Sky"/><div class="wp-block-cover__inner-container"><!-- wp:paragraph --><p>Over</p>'
        "<!-- /wp:paragraph --></div></div><!-- /wp:cover -->"
        '<!-- wp:media-text {"mediaPosition":"right","mediaType":"image"} --><div class="wp-block-media-text">'
        '<div class="wp-block-media-text__content"><!-- wp:paragraph --><p>Beside</p><!-- /wp:paragraph --></div>'
        '<figure class="wp-block-media-text__media"><img src="/m.jpg" alt="M"/></figure></div><!-- /wp:media-text -->'
    )
    assert [block["_type"] for block in blocks] == [
        "break",
        "break",
        "break",
        "break",
        "button",
        "columns",
        "group",
        "cover",
        "mediaText",
    ]
    assert [without_keys(block) for block in blocks[:5]] == [
        {"_type": "break", "style": "separator"},
        {"_type": "break", "style": "spacer", "height": "40px"},
        {"_type": "break", "style": "more", "customText": "Read on", "noTeaser": True},
        {"_type": "break", "style": "nextpage"},
        {"_type": "button", "text": "Go", "href": "/go", "blank": True},
    ]
    columns, group, cover, media_text = blocks[5:]
    assert [column.get("width") for column in columns["columns"]] == ["33%", None]
    assert [texts(column["content"]) for column in columns["columns"]] == [["Left"], ["Right"]]
    assert columns["columns"][1]["content"][0]["style"] == "h2"
    assert group["tagName"] == "section" and texts(group["content"]) == ["Grouped"]
    assert (cover["url"], cover["alt"], cover["mediaType"], texts(cover["content"])) == (
        "/bg.jpg",
        "Sky",
        "image",
        ["Over"],
    )
    assert (media_text["url"], media_text["mediaPosition"], texts(media_text["content"])) == (
        "/m.jpg",
        "right",
        ["Beside"],
    )


def test_html_reusable_missing_and_unknown_blocks():
    html, reference, missing, unknown, container, dynamic = convert(
        '<!-- wp:html --><marquee onclick="x()">Raw</marquee><!-- /wp:html -->'
        '<!-- wp:block {"ref":123} /-->'
        '<!-- wp:missing {"originalName":"acme/box","originalContent":"<div class=\\"box\\">Boxed</div>"} -->'
        "<!-- /wp:missing -->"
        '<!-- wp:acme/rating {"stars":4} --><div class="rating">4 stars</div><!-- /wp:acme/rating -->'
        '<!-- wp:acme/tabs {"active":1} --><div class="tabs"><h4>Tab title</h4><!-- wp:paragraph --><p>Tab text</p>'
        "<!-- /wp:paragraph --></div><!-- /wp:acme/tabs -->"
        '<!-- wp:latest-posts {"postsToShow":5} /-->'
    )
    assert without_keys(html) == {
        "_type": "htmlBlock",
        "html": '<marquee onclick="x()">Raw</marquee>',
        "originalType": "core/html",
    }
    assert without_keys(reference) == {"_type": "sectionReference", "ref": 123}
    assert without_keys(missing) == {
        "_type": "htmlBlock",
        "html": '<div class="box">Boxed</div>',
        "originalType": "acme/box",
    }
    assert without_keys(unknown) == {
        "_type": "htmlBlock",
        "html": '<!-- wp:acme/rating {"stars":4} --><div class="rating">4 stars</div><!-- /wp:acme/rating -->',
        "originalType": "acme/rating",
    }
    assert portabletext.block_text(unknown) == "4 stars"
    assert (container["_type"], container["originalType"], container["attributes"]) == (
        "group",
        "acme/tabs",
        {"active": 1},
    )
    assert texts(container["content"]) == ["Tab title", "Tab text"]
    assert without_keys(dynamic) == {
        "_type": "htmlBlock",
        "html": '<!-- wp:latest-posts {"postsToShow":5} /-->',
        "originalType": "core/latest-posts",
    }


def test_classic_content_paragraphs_and_shortcodes():
    blocks = convert(
        "First line\nsecond line\n\nNew paragraph with [simple brackets] kept.\n\n"
        '[caption id="attachment_1" align="alignright" width="150"]<a href="/big.jpg"><img src="/small.jpg" '
        'alt="Alt" width="150" height="100" /></a> The caption[/caption]\n\n'
        '[caption id="attachment_2" align="alignnone" width="300" caption="Old style caption"]<img src="/old.jpg" '
        'alt="" />[/caption]\n\n'
        '[gallery columns="2" ids="1,2"]\n\n'
        "[embed]https://vimeo.com/123[/embed]\n\n"
        '[audio mp3="/song.mp3"][/audio]\n\n'
        '[video src="/clip.mp4" poster="/p.jpg"]\n\n'
        "[[gallery]] shows how to write a gallery.\n\n"
        "https://www.youtube.com/watch?v=abc\n\n"
        "https://unknown.example.test/page\n\n"
        "<!--more-->\nAfter the fold."
    )
    assert [block["_type"] for block in blocks] == [
        "block",
        "block",
        "image",
        "image",
        "shortcode",
        "embed",
        "audio",
        "video",
        "block",
        "embed",
        "block",
        "break",
        "block",
    ]
    assert texts(blocks[:2]) == ["First line\nsecond line", "New paragraph with [simple brackets] kept."]
    assert without_keys(blocks[2]) == {
        "_type": "image",
        "url": "/small.jpg",
        "alt": "Alt",
        "caption": "The caption",
        "width": 150,
        "height": 100,
        "href": "/big.jpg",
        "align": "right",
    }
    assert (blocks[3]["caption"], blocks[3]["align"], blocks[3]["width"]) == (
        "Old style caption",
        "none",
        300,
    )
    assert without_keys(blocks[4]) == {
        "_type": "shortcode",
        "name": "gallery",
        "raw": '[gallery columns="2" ids="1,2"]',
        "attributes": {"columns": "2", "ids": "1,2"},
    }
    assert without_keys(blocks[5]) == {"_type": "embed", "url": "https://vimeo.com/123", "provider": "vimeo"}
    assert without_keys(blocks[6]) == {"_type": "audio", "url": "/song.mp3"}
    assert without_keys(blocks[7]) == {"_type": "video", "url": "/clip.mp4", "poster": "/p.jpg"}
    assert texts([blocks[8]]) == ["[gallery] shows how to write a gallery."]
    assert without_keys(blocks[9]) == {
        "_type": "embed",
        "url": "https://www.youtube.com/watch?v=abc",
        "provider": "youtube",
    }
    assert texts([blocks[10]]) == ["https://unknown.example.test/page"]


def test_a_shortcode_block_keeps_any_shortcode():
    blocks = convert(
        '<!-- wp:shortcode -->\n[contact-form-7 id="5" title="Contact"]\n<!-- /wp:shortcode -->'
        "<!-- wp:shortcode -->[box]Boxed <b>text</b>[/box]<!-- /wp:shortcode -->"
        "<!-- wp:shortcode /-->"
    )
    assert [without_keys(block) for block in blocks] == [
        {
            "_type": "shortcode",
            "name": "contact-form-7",
            "raw": '[contact-form-7 id="5" title="Contact"]',
            "attributes": {"id": "5", "title": "Contact"},
        },
        {
            "_type": "shortcode",
            "name": "box",
            "raw": "[box]Boxed <b>text</b>[/box]",
            "content": "Boxed <b>text</b>",
        },
    ]
    assert portabletext.block_text(blocks[1]) == "Boxed text"


def test_freeform_html_between_blocks_is_converted_too():
    blocks = convert(
        "<p>Before</p>\n\n<!-- wp:paragraph --><p>Block</p><!-- /wp:paragraph -->\n\nAfter\n\nthat"
    )
    assert texts(blocks) == ["Before", "Block", "After", "that"]


def test_keys_are_deterministic_and_unique():
    content = (TESTDATA / "gutenberg" / "blocks" / "core__columns.html").read_text()
    first, second = convert(content), convert(content)
    assert first == second
    keys = []

    def collect(value):
        if isinstance(value, dict):
            if "_key" in value:
                keys.append(value["_key"])
            for item in value.values():
                collect(item)
        elif isinstance(value, list):
            for item in value:
                collect(item)

    collect(first)
    assert len(keys) == len(set(keys))


def test_plugins_can_register_converters():
    register_converter(
        "acme/note", lambda block, run: [{"_type": "htmlBlock", "_key": run.keys(), "html": "n"}]
    )
    try:
        [block] = blocks_to_portable_text(parse_blocks("<!-- wp:acme/note --><p>x</p><!-- /wp:acme/note -->"))
        assert block["html"] == "n"
    finally:
        from apps.importer.blocks import convert as module

        module._CONVERTERS.pop("acme/note")
