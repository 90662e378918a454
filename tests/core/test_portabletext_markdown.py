"""Markdown ↔ Portable Text: the Markdown features, and round trips of the public and our own documents."""

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from apps.core import portabletext
from apps.core.portabletext_markdown import markdown_to_portable_text, portable_text_to_markdown
from tests.testdata import TESTDATA

MARKDOWN_FIXTURES = TESTDATA / "portabletext" / "html-to-pt" / "markdown"
FEATURES = Path(__file__).parent / "fixtures" / "markdown-features.md"
# Real-world documents: the importer's golden conversions of WordPress posts.
GOLDENS = Path(__file__).parents[1] / "importer" / "goldens"


def convert(markdown):
    blocks = markdown_to_portable_text(markdown)
    assert portabletext.normalize(blocks)[1] == {}
    return blocks


def comparable(blocks):
    """Blocks without keys; text blocks as (style, list, level, text, marks of each visible character run)."""
    result = []
    for block in blocks:
        if block["_type"] != "block":
            result.append({name: value for name, value in block.items() if name != "_key" and name != "rows"})
            continue
        hrefs = {mark_def["_key"]: f"link:{mark_def['href']}" for mark_def in block["markDefs"]}
        runs = []
        for span in block["children"]:
            for word in re.findall(r"\S+", span["text"]):
                marks = tuple(sorted(hrefs.get(mark, mark) for mark in span["marks"]))
                if runs and runs[-1][1] == marks:
                    runs[-1][0] += " " + word
                else:
                    runs.append([word, marks])
        text = "".join(span["text"] for span in block["children"])
        result.append(
            (block["style"], block.get("listItem"), block.get("level"), text, [tuple(run) for run in runs])
        )
    return result


def from_terse(lines):
    """A document from the fixtures' terse form: "h2:Title", "q:quote", ">>-:level-2 bullet", "{code}" …"""
    stand_ins = {
        "{code}": {"_type": "code", "code": "print('hi')\n    indented", "language": "python"},
        "{image}": {"_type": "image", "url": "https://example.test/a.png", "alt": "An image"},
        "{horizontal-rule}": {"_type": "break", "style": "separator"},
        "{html}": {"_type": "htmlBlock", "html": '<div class="x">Some <b>HTML</b></div>'},
    }
    blocks = []
    for line in lines:
        if line in stand_ins:
            blocks.append(dict(stand_ins[line]))
            continue
        if line == "{table}":
            cell = {"content": [{"_type": "block", "children": [{"_type": "span", "text": "cell"}]}]}
            blocks.append({"_type": "table", "rows": [{"cells": [cell]}]})
            continue
        block = {"_type": "block", "style": "normal", "children": [{"_type": "span", "text": line}]}
        prefix = re.match(r"^(h[1-6]|q|>+[-#]):", line)
        if prefix:
            block["children"][0]["text"] = line[len(prefix.group(0)) :]
            marker = prefix.group(1)
            if marker == "q":
                block["style"] = "blockquote"
            elif marker.startswith(">"):
                block["listItem"], block["level"] = (
                    ("bullet" if marker[-1] == "-" else "number"),
                    len(marker) - 1,
                )
            else:
                block["style"] = marker
        blocks.append(block)
    blocks, problems = portabletext.normalize(blocks)
    assert problems == {}
    return blocks


@pytest.mark.parametrize(
    "path", sorted(MARKDOWN_FIXTURES.glob("*.terse-pt.json")), ids=lambda path: path.stem
)
def test_the_public_markdown_fixtures_round_trip(path):
    document = from_terse(json.loads(path.read_text()))
    # Their text is full of characters Markdown gives meaning to ("**bold inside**", "[^1]:", "| Line one", "$$").
    assert comparable(convert(portable_text_to_markdown(document))) == comparable(document)


@pytest.mark.parametrize("path", sorted(GOLDENS.glob("*.json")), ids=lambda path: path.stem)
def test_text_of_real_documents_round_trips(path):
    text_blocks = [block for block in json.loads(path.read_text()) if block["_type"] == "block"]
    assert comparable(convert(portable_text_to_markdown(text_blocks))) == comparable(text_blocks)


def test_markdown_features():
    blocks = convert(FEATURES.read_text())
    shapes = comparable(blocks)
    assert shapes[0] == (
        "h1",
        None,
        None,
        "A heading with emphasis",
        [("A heading with", ()), ("emphasis", ("em",))],
    )
    assert shapes[1][3] == (
        "A paragraph with strong, em, both, inline code, struck, underlined, x2, H2O and a link; soft line breaks "
        "are spaces, hard ones\nstay line breaks. An autolink: https://example.test/auto."
    )
    assert shapes[1][4] == [
        ("A paragraph with", ()),
        ("strong", ("strong",)),
        (",", ()),
        ("em", ("em",)),
        (",", ()),
        ("both", ("em", "strong")),
        (",", ()),
        ("inline code", ("code",)),
        (",", ()),
        ("struck", ("strike-through",)),
        (",", ()),
        ("underlined", ("underline",)),
        (", x", ()),
        ("2", ("sup",)),
        (", H", ()),
        ("2", ("sub",)),
        ("O and a", ()),
        ("link", ("link:https://example.test/page",)),
        ("; soft line breaks are spaces, hard ones stay line breaks. An autolink:", ()),
        ("https://example.test/auto", ("link:https://example.test/auto",)),
        (".", ()),
    ]
    paragraph = blocks[1]
    assert {"_type": "link", "_key": paragraph["markDefs"][0]["_key"], "href": "https://example.test/page", "title": "Its title"} in paragraph["markDefs"]  # fmt: skip
    lists = [(shape[1], shape[2], shape[3]) for shape in shapes if isinstance(shape, tuple) and shape[1]]
    assert lists == [
        ("bullet", 1, "Bullet one"),
        ("bullet", 1, "Bullet two with a link"),
        ("bullet", 2, "Nested bullet"),
        ("number", 3, "Deep number"),
        ("bullet", 1, "Back to the first level"),
        ("number", 1, "First"),
        ("number", 1, "Second\nA second paragraph in the same item."),
        ("number", 1, "Third"),
    ]
    quotes = [shape[3] for shape in shapes if isinstance(shape, tuple) and shape[0] == "blockquote"]
    assert quotes == ["A quote on two lines.", "A second quoted paragraph."]
    others = [shape for shape in shapes if isinstance(shape, dict)]
    assert others == [
        {"_type": "code", "code": 'def hello():\n    return "world"', "language": "python"},
        {"_type": "code", "code": "indented code"},
        {"_type": "break", "style": "separator"},
        {
            "_type": "image",
            "url": "https://example.test/image.png",
            "alt": "Alt text",
            "caption": "The caption",
        },
        {
            "_type": "image",
            "url": "https://example.test/small.png",
            "alt": "Linked image",
            "href": "https://example.test/large.png",
        },
        {"_type": "table"},
        {"_type": "htmlBlock", "html": '<div class="note">Raw HTML stays as it is.</div>'},
        {"_type": "embed", "url": "https://vimeo.com/1234", "provider": "vimeo"},
        {"_type": "break", "style": "more", "customText": "Keep reading"},
    ]
    table = next(block for block in blocks if block["_type"] == "table")
    assert portabletext.plain_text([table]) == "Name\tValue\na\t1\nb\t2"
    assert table["rows"][0]["section"] == "head" and table["rows"][1]["cells"][1]["content"][0]["children"][
        0
    ]["marks"] == ["strong"]
    assert shapes[-1][3] == (
        'Special characters: 5 * 3 = 15, 5 < 6, a_b_c, [not a link], 1. not a list, # not a heading, & is "&".'
    )


def test_our_markdown_reads_back_to_the_same_document():
    blocks = convert(FEATURES.read_text())
    again = convert(portable_text_to_markdown(blocks))
    assert comparable(again) == comparable(blocks)
    assert portable_text_to_markdown(again) == portable_text_to_markdown(blocks)


def block(text, marks=(), **extra):
    return {"_type": "block", "style": "normal", "markDefs": [], "children": [{"_type": "span", "text": text, "marks": list(marks)}], **extra}  # fmt: skip


def test_writing_markdown():
    linked = {
        "_type": "block",
        "style": "normal",
        "markDefs": [{"_type": "link", "_key": "l", "href": "https://x.test/a_(b)"}],
        "children": [
            {"_type": "span", "text": "Hello ", "marks": ["strong"]},
            {"_type": "span", "text": "bold link", "marks": ["strong", "l"]},
            {"_type": "span", "text": " and ", "marks": []},
            {"_type": "span", "text": "(quoted)", "marks": ["em"]},
        ],
    }
    markdown = portable_text_to_markdown(
        [
            block("Title", style="h2"),
            linked,
            block("# not a heading\n1. not a list"),
            block("one", listItem="number", level=1),
            block("nested", listItem="bullet", level=2),
            block("two", listItem="number", level=1),
            {"_type": "code", "code": "a ``` b", "language": "md"},
            {"_type": "video", "url": "/v.mp4", "caption": "Clip"},
            {"_type": "sectionReference", "ref": 7},
            {"_type": "break", "style": "nextpage"},
        ]
    )
    assert markdown == (
        "## Title\n\n"
        # Links are outermost; emphasis around punctuation is written as tags, which CommonMark always honours.
        "**Hello** [**bold link**](<https://x.test/a_(b)>) and <em>(quoted)</em>\n\n"
        "\\# not a heading\\\n1\\. not a list\n\n"
        "1. one\n   - nested\n2. two\n\n"
        "````md\na ``` b\n````\n\n"
        "[Clip](/v.mp4)\n\n"
        "<!-- section: 7 -->\n\n"
        "<!--nextpage-->\n"
    )
    back = convert(markdown)
    assert comparable(back[:4]) == comparable(
        portabletext.normalize(
            [
                block("Title", style="h2"),
                linked,
                block("# not a heading\n1. not a list"),
                block("one", listItem="number", level=1),
            ]
        )[0]
    )


def test_script_links_are_not_links():
    [paragraph] = convert("[click](javascript:alert(1)) and [ok](https://example.test)")
    assert [mark_def["href"] for mark_def in paragraph["markDefs"]] == ["https://example.test"]
    assert "click" in portabletext.plain_text([paragraph])


@given(st.text(max_size=300))
def test_any_text_converts_to_valid_portable_text_and_back(text):
    blocks = convert(text)
    convert(portable_text_to_markdown(blocks))


visible_text = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=12)
any_marks = st.lists(
    st.sampled_from(["strong", "em", "code", "strike-through", "underline", "sup", "sub", "link"]),
    unique=True,
    max_size=3,
)


@given(st.lists(st.tuples(visible_text, any_marks), min_size=1, max_size=5))
def test_text_and_marks_survive_the_round_trip(spans):
    """Whatever the characters and however marks nest, the text and each visible character's marks come back."""
    text = "".join(part for part, _ in spans)
    if not text.strip() or text != " ".join(text.split()):
        return  # Markdown collapses and trims whitespace; the converters never produce such text blocks
    document = [
        {
            "_type": "block",
            "style": "normal",
            "markDefs": [{"_type": "link", "_key": "link", "href": "https://example.test/x"}],
            "children": [{"_type": "span", "text": part, "marks": marks} for part, marks in spans],
        }
    ]
    document = portabletext.normalize(document)[0]
    back = convert(portable_text_to_markdown(document))
    assert portabletext.plain_text(back) == text

    def marks_of_characters(blocks):
        return [
            (
                character,
                tuple(
                    sorted("link" if mark not in portabletext.DECORATORS else mark for mark in span["marks"])
                ),
            )
            for block in blocks
            for span in block["children"]
            for character in span["text"]
            if not character.isspace()
        ]

    assert marks_of_characters(back) == marks_of_characters(document)
