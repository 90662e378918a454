"""Portable Text structure checks against the public Portable Text fixtures in shared/testdata."""

import json

import pytest

from apps.core import portabletext
from tests.testdata import TESTDATA

FIXTURES = TESTDATA / "portabletext" / "to-html-fixtures"


# Fixtures that rely on a schema's own types (inline objects such as ratings, image hotspots, list styles and marks of
# their own): without those types registered, we refuse them rather than store what we cannot validate.
NEEDS_CUSTOM_TYPES = {
    "022-inline-nodes": "[0].children[1]._type",
    "024-inline-images": "[0].children[1]._type",
    "025-image-with-hotspot": "[1]",
    "026-inline-block-with-text": "[0].children[1]._type",
    "028-custom-list-item-type": "[0].listItem",
    "061-missing-mark-serializer": "[0].children[0].marks",
}


def fixture_inputs(custom: bool):
    params = []
    for path in sorted(FIXTURES.glob("*.json")):
        if (path.stem in NEEDS_CUSTOM_TYPES) != custom:
            continue
        document = json.loads(path.read_text())["input"]
        params.append(pytest.param(document if isinstance(document, list) else [document], id=path.stem))
    return params


@pytest.mark.parametrize("document", fixture_inputs(custom=True))
def test_fixtures_with_unregistered_types_are_refused_where_they_use_them(document, request):
    _, problems = portabletext.normalize(document)
    assert NEEDS_CUSTOM_TYPES[request.node.callspec.id] in problems


@pytest.mark.parametrize("document", fixture_inputs(custom=False))
def test_public_fixtures_are_valid_and_keep_their_text(document):
    blocks, problems = portabletext.normalize(document)
    assert problems == {}
    assert len(blocks) == len(document)
    assert all(block["_key"] for block in blocks)
    original = [
        "".join(span.get("text", "") for span in block.get("children", []))
        for block in document
        if block.get("_type") == "block"
    ]
    assert [portabletext.block_text(block) for block in blocks if block["_type"] == "block"] == original


def test_problems_are_reported_by_path():
    _, problems = portabletext.normalize(
        [
            {"_type": "block", "children": [{"_type": "span", "text": 3}]},
            {"_type": "block", "style": "h9", "children": [{"text": "x", "marks": ["shout"]}]},
            {"_type": "chart"},
            "text",
        ]
    )
    assert problems == {
        "[0].children[0].text": "A span needs its text as a string.",
        "[1].style": "Unknown style 'h9'; one of normal, h1, h2, h3, h4, h5, h6, blockquote.",
        "[1].children[0].marks": "Unknown mark(s) shout: use a decorator (strong, em, underline, strike-through, "
        "code, sup, sub) or the _key of one of the block's markDefs.",
        "[2]._type": "Unknown block type 'chart'; known types: block, audio, break, button, callout, code, columns, "
        "cover, embed, file, gallery, group, htmlBlock, image, mediaText, sectionReference, shortcode, table, video.",
        "[3]": "Expected a block object with a _type.",
    }


def test_plain_text_covers_spans_alt_caption_and_code():
    blocks, _ = portabletext.normalize(
        [
            {"_type": "block", "children": [{"text": "Hello "}, {"text": "world", "marks": ["strong"]}]},
            {"_type": "image", "url": "https://example.com/a.png", "alt": "A cat", "caption": "On a mat"},
            {"_type": "code", "code": "print(1)", "language": "python"},
        ]
    )
    assert portabletext.plain_text(blocks) == "Hello world\nA cat\nOn a mat\nprint(1)"


def test_unavailable_types_stop_validating():
    # Its own type name and the previous availability check restored: the callout plugin registers "callout".
    previous = portabletext._available
    portabletext.register(
        portabletext.BlockType("sidenote", portabletext.object_validator(required={"text": str}))
    )
    try:
        assert portabletext.normalize([{"_type": "sidenote", "text": "Hi"}])[1] == {}
        portabletext.set_availability(lambda block_type: block_type.name != "sidenote")
        assert "[0]._type" in portabletext.normalize([{"_type": "sidenote", "text": "Hi"}])[1]
    finally:
        portabletext.set_availability(previous)
        portabletext.unregister("sidenote")


def text(value):
    return {"_type": "block", "children": [{"_type": "span", "text": value}]}


def test_structured_types_validate_their_nested_content_and_give_their_text():
    document = [
        {
            "_type": "table",
            "caption": "T",
            "rows": [
                {
                    "section": "head",
                    "cells": [{"header": True, "content": [text("h1")]}, {"content": [text("h2")]}],
                },
                {"cells": [{"colSpan": 2, "content": [text("c")]}]},
            ],
        },
        {"_type": "gallery", "images": [{"url": "/a.jpg", "alt": "A", "caption": "one"}], "caption": "G"},
        {
            "_type": "columns",
            "columns": [{"content": [text("left")], "width": "33%"}, {"content": [text("right")]}],
        },
        {"_type": "group", "content": [text("grouped")], "originalType": "core/details"},
        {"_type": "cover", "url": "/c.jpg", "alt": "Sky", "content": [text("over")]},
        {"_type": "mediaText", "url": "/m.jpg", "mediaPosition": "right", "content": [text("beside")]},
        {"_type": "video", "url": "/v.mp4", "caption": "Clip"},
        {"_type": "audio", "url": "/a.mp3"},
        {
            "_type": "file",
            "url": "/f.pdf",
            "name": "Report",
            "showDownloadButton": True,
            "downloadButtonText": "Get",
        },
        {"_type": "button", "text": "Buy", "href": "/buy", "blank": True},
        {"_type": "sectionReference", "ref": 12},
        {"_type": "shortcode", "name": "box", "raw": "[box]<b>Hi</b>[/box]", "content": "<b>Hi</b>"},
        {"_type": "htmlBlock", "html": "<div>Kept <script>x()</script>text</div>"},
        {"_type": "break", "style": "more", "customText": "Read on", "noTeaser": False},
    ]
    blocks, problems = portabletext.normalize(document)
    assert problems == {}
    assert all(row["_key"] and row["_type"] == "tableRow" for row in blocks[0]["rows"])
    assert blocks[0]["rows"][0]["cells"][0]["content"][0]["_key"]
    assert portabletext.plain_text(blocks).split("\n") == [
        "h1\th2",
        "c",
        "T",
        "A",
        "one",
        "G",
        "left",
        "right",
        "grouped",
        "Sky",
        "over",
        "beside",
        "Clip",
        "Report",
        "Get",
        "Buy",
        "Hi",
        "Kept text",
    ]


def test_structured_types_report_problems_by_path():
    _, problems = portabletext.normalize(
        [
            {
                "_type": "table",
                "rows": [{"cells": [{"content": [{"_type": "chart"}], "colSpan": "2"}], "x": 1}],
            },
            {"_type": "columns", "columns": "left"},
            {"_type": "sectionReference"},
            {"_type": "video"},
        ]
    )
    assert problems == {
        "[0].rows[0]": "Unknown key(s) x in a table row.",
        "[0].rows[0].cells[0].colSpan": "Expected a whole number.",
        "[0].rows[0].cells[0].content[0]._type": "Unknown block type 'chart'; known types: block, audio, break, "
        "button, callout, code, columns, cover, embed, file, gallery, group, htmlBlock, image, mediaText, "
        "sectionReference, shortcode, table, video.",
        "[1].columns": "Expected a list of column objects.",
        "[2]": "A section reference needs the section's id (sectionId) or its source reference (ref).",
        "[3].url": "Required in a 'video' block.",
    }


def test_containers_nest_only_to_the_depth_limit():
    document = [text("deepest")]
    for _ in range(portabletext.MAX_DEPTH + 1):
        document = [{"_type": "group", "content": document}]
    _, problems = portabletext.normalize(document)
    assert list(problems.values()) == [f"Blocks are nested more than {portabletext.MAX_DEPTH} levels deep."]
