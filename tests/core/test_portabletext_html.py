"""HTML → Portable Text: the public HTML-to-Portable-Text fixtures, WordPress's classic-content rules, kept markup."""

import json

import pytest

from apps.core import portabletext
from apps.core.htmltext import visible_text
from apps.core.portabletext import SequentialKeys
from apps.core.portabletext_html import html_to_portable_text, insert_marker
from tests.testdata import TESTDATA

HTML_TO_PT = TESTDATA / "portabletext" / "html-to-pt"

# Fixture pairs whose expected output depends on choices of the schema they were made with rather than on HTML.
SCHEMA_SPECIFIC = {
    "customRules": "converted with the fixture's own deserialisation rules",
    "customSchema": "a schema of its own, with custom block types",
    "from-the-wild-5": "a schema of its own, with a custom 'promo' block type",
    "stegaUnicodeCleaner": "Sanity's stega cleaner strips invisible editing metadata; that is not HTML semantics",
    "whitespaceInPreTags": "a schema without code blocks: <pre> becomes a paragraph there, a code block here",
    "lists": "a heading inside a list item stays a heading here; that schema flattens it into the item",
    "nested-containers": "a paragraph inside a blockquote stays its own block here; that schema merges it",
    "complex": "a <div> inside a <div> is its own block here (as a browser lays it out); that schema merges it",
    "githubIssue": "block elements (divs of an issue list) are blocks here; that schema flattens them into one",
    "fromTheWild4": "a lone zero-width space between blocks stays its own paragraph here instead of moving",
}


def fixture_pairs():
    pairs = [
        (path / "input.html", path / "output.json") for path in sorted(HTML_TO_PT.glob("snapshot-tests/*"))
    ]
    pairs += [
        (path, path.with_suffix(".json"))
        for path in sorted(HTML_TO_PT.glob("html-to-portable-text/*.html"))
        if path.with_suffix(".json").exists()
    ]
    return [
        pytest.param(source, expected, id=name)
        for source, expected in pairs
        if (name := source.parent.name if source.name == "input.html" else source.stem) not in SCHEMA_SPECIFIC
    ]


def comparable(blocks):
    """Text blocks as (style, list, level, text, marked runs); keys, span splits and spacing spans ignored."""
    result = []
    for block in blocks:
        if block.get("_type") != "block":
            continue
        defs = {
            mark_def["_key"]: f"link:{mark_def.get('href')}"
            if mark_def.get("_type") == "link"
            else mark_def["_type"]
            for mark_def in block.get("markDefs", [])
        }
        text = "".join(span.get("text", "") for span in block.get("children", []))
        if not text.strip():
            continue
        runs = []
        for span in block.get("children", []):
            if not span.get("text", "").strip():
                continue
            marks = tuple(sorted(defs.get(mark, mark) for mark in span.get("marks", [])))
            if runs and runs[-1][1] == marks:
                runs[-1][0] += " " + span["text"].strip()
            else:
                runs.append([span["text"].strip(), marks])
        result.append(
            (
                block.get("style", "normal"),
                block.get("listItem"),
                block.get("level"),
                " ".join(text.split()),
                [tuple(run) for run in runs],
            )
        )
    return result


def text_blocks(blocks):
    return [(block["style"], "".join(span["text"] for span in block["children"])) for block in blocks]


def spans(block):
    """(text, marks) of each span, links shown as link:<href>."""
    hrefs = {mark_def["_key"]: f"link:{mark_def['href']}" for mark_def in block["markDefs"]}
    return [(span["text"], [hrefs.get(mark, mark) for mark in span["marks"]]) for span in block["children"]]


def without_key(block):
    return {name: value for name, value in block.items() if name != "_key"}


def convert(html, **options):
    blocks = html_to_portable_text(html, **options)
    assert portabletext.normalize(blocks)[1] == {}
    return blocks


@pytest.mark.parametrize(("source", "expected"), fixture_pairs())
def test_public_html_fixtures(source, expected):
    assert comparable(convert(source.read_text())) == comparable(json.loads(expected.read_text()))


def test_every_fixture_converts_to_valid_portable_text_without_losing_words():
    sources = [*HTML_TO_PT.rglob("*.html"), *(TESTDATA / "html").rglob("*.html")]
    assert len(sources) > 30
    for source in sources:
        html = source.read_text()
        blocks = convert(html)
        seen = iter(portabletext.plain_text(blocks).split())
        missing = [word for word in visible_text(html).split() if not any(word == other for other in seen)]
        assert missing == [], source.name


def test_marks_and_links():
    [block] = convert(
        "<p>a <strong>b</strong> <b>c</b> <em>d</em> <i>e</i> <u>f</u> <s>g</s> <del>h</del> <strike>i</strike> "
        '<code>j</code> x<sup>2</sup> H<sub>2</sub>O <a href="https://x.test/" target="_blank" title="T">k '
        "<em>l</em></a> <a href='/rel'>m</a></p>"
    )
    assert spans(block) == [
        ("a ", []),
        ("b", ["strong"]),
        (" ", []),
        ("c", ["strong"]),
        (" ", []),
        ("d", ["em"]),
        (" ", []),
        ("e", ["em"]),
        (" ", []),
        ("f", ["underline"]),
        (" ", []),
        ("g", ["strike-through"]),
        (" ", []),
        ("h", ["strike-through"]),
        (" ", []),
        ("i", ["strike-through"]),
        (" ", []),
        ("j", ["code"]),
        (" x", []),
        ("2", ["sup"]),
        (" H", []),
        ("2", ["sub"]),
        ("O ", []),
        ("k ", ["link:https://x.test/"]),
        ("l", ["link:https://x.test/", "em"]),
        (" ", []),
        ("m", ["link:/rel"]),
    ]
    assert [without_key(mark_def) for mark_def in block["markDefs"]] == [
        {"_type": "link", "href": "https://x.test/", "blank": True, "title": "T"},
        {"_type": "link", "href": "/rel"},
    ]


def test_style_attributes_format_like_tags():
    [block] = convert(
        '<p><span style="text-decoration: underline;">u</span> <span style="font-weight:700">b</span> '
        '<b style="font-weight:normal">not bold</b> <a href="/x" style="text-decoration:underline">link</a></p>'
    )
    assert spans(block) == [
        ("u", ["underline"]),
        (" ", []),
        ("b", ["strong"]),
        (" not bold ", []),
        ("link", ["link:/x"]),
    ]


def test_script_links_are_dropped_but_their_text_stays():
    [block] = convert('<p><a href=" JavaScript:alert(1)">click</a></p>')
    assert block["markDefs"] == []
    assert block["children"][0]["text"] == "click"


def test_block_elements_split_blocks_and_whitespace_collapses():
    blocks = convert(
        "<h1> One </h1>\n<h2>Two</h2><h3>3</h3><h4>4</h4><h5>5</h5><h6>6</h6>"
        "<div>  in   a\n div <div>nested</div> after</div><blockquote><p>quoted</p>also</blockquote>"
        "<p>line<br>break<br></p><p>\u00a0</p><p> </p>"
    )
    assert text_blocks(blocks) == [
        ("h1", "One"),
        ("h2", "Two"),
        ("h3", "3"),
        ("h4", "4"),
        ("h5", "5"),
        ("h6", "6"),
        ("normal", "in a div"),
        ("normal", "nested"),
        ("normal", "after"),
        ("blockquote", "quoted"),
        ("blockquote", "also"),
        ("normal", "line\nbreak"),
    ]


def test_nested_lists_have_levels_and_one_item_per_li():
    blocks = convert(
        "<ul><li>a<ul><li>b<ol><li>c</li></ol></li></ul></li><li><p>d</p><p>e</p></li></ul><ol><li>n</li></ol>"
    )
    assert [(block["listItem"], block["level"], block["children"][0]["text"]) for block in blocks] == [
        ("bullet", 1, "a"),
        ("bullet", 2, "b"),
        ("number", 3, "c"),
        ("bullet", 1, "d\ne"),
        ("number", 1, "n"),
    ]


def test_classic_content_follows_wpautop():
    blocks = convert(
        "First paragraph\nsame paragraph\n\n  Second <b>bold\n\nstill bold</b>\n<ul>\n<li>item</li>\n</ul>\n"
        "After<br />\nthe list<br><br>new paragraph",
        autop=True,
    )
    assert text_blocks(blocks) == [
        ("normal", "First paragraph\nsame paragraph"),
        ("normal", "Second bold"),
        ("normal", "still bold"),
        ("normal", "item"),
        ("normal", "After\nthe list"),
        ("normal", "new paragraph"),
    ]
    # Without autop a newline is only whitespace.
    assert text_blocks(convert("a\n\nb\nc")) == [("normal", "a b c")]


def test_images_figures_and_captions():
    blocks = convert(
        '<p>Text <a href="/big.jpg"><img src="/small.jpg" alt="A cat" width="300" height="200" '
        'class="alignleft size-medium"></a> more</p>'
        '<figure class="wp-block-image aligncenter"><img src="/b.png" alt=""><figcaption>Caption '
        '<a href="/by">by me</a></figcaption></figure>'
    )
    assert blocks[0]["children"][0]["text"] == "Text"
    assert without_key(blocks[1]) == {
        "_type": "image",
        "url": "/small.jpg",
        "alt": "A cat",
        "width": 300,
        "height": 200,
        "href": "/big.jpg",
        "align": "left",
    }
    assert blocks[2]["children"][0]["text"] == "more"
    assert without_key(blocks[3]) == {
        "_type": "image",
        "url": "/b.png",
        "alt": "",
        "caption": "Caption by me",
    }


def test_tables_keep_rows_cells_headers_and_caption():
    [table] = convert(
        "<table><caption>Prices</caption><thead><tr><th>Item</th><th>Cost</th></tr></thead>"
        '<tbody><tr><td><a href="/a">Apple</a></td><td colspan="2">1 <b>€</b></td></tr></tbody>'
        "<tfoot><tr><td>Sum</td><td>1</td></tr></tfoot></table>"
    )
    assert table["_type"] == "table"
    assert table["caption"] == "Prices"
    assert [row.get("section", "body") for row in table["rows"]] == ["head", "body", "foot"]
    head, body, _ = table["rows"]
    assert [cell.get("header") for cell in head["cells"]] == [True, True]
    assert body["cells"][1]["colSpan"] == 2
    assert body["cells"][0]["content"][0]["markDefs"][0]["href"] == "/a"
    assert portabletext.plain_text([table]) == "Item\tCost\nApple\t1 €\nSum\t1\nPrices"


def test_code_media_breaks_and_kept_markup():
    blocks = convert(
        '<pre class="wp-block-code"><code class="language-python">if x:\n    y = "&lt;b&gt;"</code></pre>'
        "<pre>\nplain<br>text</pre><hr>"
        '<iframe src="https://www.youtube.com/embed/abc"></iframe>'
        '<figure><video controls src="/v.mp4" poster="/p.jpg"></video><figcaption>Clip</figcaption></figure>'
        '<audio src="/a.mp3"></audio>'
        "<script>track()</script><dl><dt>Term</dt><dd>Meaning</dd></dl><form><input name=q></form>"
        "<p>x<!--more Keep reading--><!--noteaser-->y<!--nextpage-->z<!-- a comment --></p>"
    )
    types = [block["_type"] for block in blocks]
    assert types == [
        "code",
        "code",
        "break",
        "embed",
        "video",
        "audio",
        "htmlBlock",
        "htmlBlock",
        "htmlBlock",
        "block",
        "break",
        "block",
        "break",
        "block",
    ]
    assert blocks[0]["code"] == 'if x:\n    y = "<b>"' and blocks[0]["language"] == "python"
    assert without_key(blocks[1]) == {"_type": "code", "code": "plain\ntext"}
    assert blocks[3]["provider"] == "youtube" and blocks[3]["url"] == "https://www.youtube.com/embed/abc"
    assert {key: blocks[4][key] for key in ("url", "poster", "caption")} == {
        "url": "/v.mp4",
        "poster": "/p.jpg",
        "caption": "Clip",
    }
    assert blocks[6]["html"] == "<script>track()</script>"
    assert blocks[7]["html"] == "<dl><dt>Term</dt><dd>Meaning</dd></dl>"
    assert portabletext.block_text(blocks[7]) == "Term\nMeaning"
    assert without_key(blocks[10]) == {
        "_type": "break",
        "style": "more",
        "customText": "Keep reading",
        "noTeaser": True,
    }
    assert blocks[12]["style"] == "nextpage"


def test_verse_keeps_its_lines_and_formatting():
    [block] = convert('<pre class="wp-block-verse">Two roads\n   diverged <em>in a yellow</em> wood</pre>')
    assert spans(block) == [
        ("Two roads\n   diverged ", []),
        ("in a yellow", ["em"]),
        (" wood", []),
    ]


def test_inserted_blocks_go_where_their_marker_is_and_take_the_quote_style():
    inserted = [{"_type": "block", "_key": "x1", "style": "normal", "markDefs": [], "children": []}]
    inserted[0]["children"].append({"_type": "span", "_key": "x2", "text": "inner", "marks": []})
    blocks = convert(
        f"<blockquote><p>a</p>{insert_marker('r1')}<cite>b</cite></blockquote>{insert_marker('unknown')}",
        inserts={"r1": inserted},
    )
    assert text_blocks(blocks) == [("blockquote", "a"), ("blockquote", "inner"), ("blockquote", "b")]


def test_keys_are_sequential_and_conversion_is_repeatable():
    html = '<p>a <a href="/x">b</a></p><ul><li>c</li></ul>'
    assert convert(html) == convert(html)
    keys = SequentialKeys("p")
    assert [block["_key"] for block in convert(html, keys=keys)] == ["p1", "p5"]


def test_hostile_input_is_parsed_not_refused():
    blocks = convert("a\x00b\x0bc\ud800d</body>e</html>f<html><body>g")
    assert text_blocks(blocks) == [("normal", "a\ufffdb\ufffdc\ufffddefg")]
    assert convert("") == [] and convert("  \n ") == []
