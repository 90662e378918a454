"""The block grammar parser against Gutenberg's own parser fixtures, and the broken markup real posts contain."""

import json

import pytest

from apps.importer.blocks.parser import has_blocks, parse_blocks, parse_blocks_as_dicts
from tests.testdata import TESTDATA

BLOCKS = TESTDATA / "gutenberg" / "blocks"


def freeform(html):
    return {"blockName": None, "attrs": {}, "innerBlocks": [], "innerHTML": html, "innerContent": [html]}


@pytest.mark.parametrize("expected", sorted(BLOCKS.glob("*.parsed.json")), ids=lambda path: path.stem)
def test_gutenberg_parser_fixtures(expected):
    markup = expected.with_name(expected.name.replace(".parsed.json", ".html")).read_text()
    # The stored .html files end with a newline that the expected parses do not contain (a final newline is one
    # more freeform block, tested below), so the fixture is compared without it.
    assert markup.endswith("\n")
    assert parse_blocks_as_dicts(markup[:-1]) == json.loads(expected.read_text())


def test_every_block_fixture_parses_to_blocks_that_cover_the_whole_document():
    for path in sorted(BLOCKS.glob("*.html")):
        markup = path.read_text()
        blocks = parse_blocks(markup)
        assert "".join(block.markup for block in blocks) == markup, path.name
        assert any(block.name for block in blocks), path.name


def test_freeform_html_between_and_after_blocks():
    markup = (
        "<p>before</p>\n<!-- wp:separator /-->\n\n<!-- wp:paragraph --><p>x</p><!-- /wp:paragraph -->\nafter"
    )
    assert parse_blocks_as_dicts(markup) == [
        freeform("<p>before</p>\n"),
        {"blockName": "core/separator", "attrs": {}, "innerBlocks": [], "innerHTML": "", "innerContent": []},
        freeform("\n\n"),
        {
            "blockName": "core/paragraph",
            "attrs": {},
            "innerBlocks": [],
            "innerHTML": "<p>x</p>",
            "innerContent": ["<p>x</p>"],
        },
        freeform("\nafter"),
    ]


def test_namespaces_attributes_and_self_closing_blocks():
    markup = (
        '<!-- wp:my-plugin/box {"title":"A } tricky -- value","n":[1,{"b":null}]} -->'
        '<div><!-- wp:image {"id":5,"sizeSlug":"large"} /--></div>'
        "<!-- /wp:my-plugin/box -->"
    )
    [box] = parse_blocks(markup)
    assert box.name == "my-plugin/box"
    assert box.attrs == {"title": "A } tricky -- value", "n": [1, {"b": None}]}
    assert box.inner_content == ["<div>", None, "</div>"]
    assert box.inner_html == "<div></div>"
    [image] = box.inner_blocks
    assert (image.name, image.attrs, image.inner_content) == (
        "core/image",
        {"id": 5, "sizeSlug": "large"},
        [],
    )
    assert image.markup == '<!-- wp:image {"id":5,"sizeSlug":"large"} /-->'
    assert box.markup == markup


def test_attributes_that_are_not_json_give_none_and_keep_the_block():
    [block] = parse_blocks("<!-- wp:paragraph {not json} --><p>kept</p><!-- /wp:paragraph -->")
    assert block.name == "core/paragraph"
    assert block.attrs is None
    assert block.inner_html == "<p>kept</p>"


def test_a_closer_closes_the_innermost_block_whatever_its_name():
    markup = "<!-- wp:group --><!-- wp:paragraph --><p>x</p><!-- /wp:group --><p>tail</p><!-- /wp:group -->"
    [group] = parse_blocks(markup)
    assert group.name == "core/group"
    [paragraph] = group.inner_blocks
    assert (paragraph.name, paragraph.inner_html) == ("core/paragraph", "<p>x</p>")
    assert group.inner_content == [None, "<p>tail</p>"]


def test_unclosed_blocks_end_with_the_document_and_keep_their_nesting():
    markup = "<!-- wp:group --><div><!-- wp:paragraph --><p>unfinished</p>"
    [group] = parse_blocks(markup)
    assert group.inner_content == ["<div>", None]
    [paragraph] = group.inner_blocks
    assert paragraph.inner_html == "<p>unfinished</p>"
    assert group.markup == markup


def test_a_closer_without_an_opener_stays_in_the_freeform_html_and_parsing_goes_on():
    markup = "<p>a</p><!-- /wp:paragraph --><p>b</p><!-- wp:separator /-->"
    assert parse_blocks_as_dicts(markup) == [
        freeform("<p>a</p><!-- /wp:paragraph --><p>b</p>"),
        {"blockName": "core/separator", "attrs": {}, "innerBlocks": [], "innerHTML": "", "innerContent": []},
    ]


def test_a_final_newline_is_a_freeform_block():
    assert parse_blocks_as_dicts("<!-- wp:separator /-->\n")[1] == freeform("\n")


def test_comments_that_are_not_delimiters_are_html():
    markup = "<!-- wp:paragraph --><p>a<!-- more --><!--wp:nope --></p><!-- /wp:paragraph -->"
    [block] = parse_blocks(markup)
    assert block.inner_html == "<p>a<!-- more --><!--wp:nope --></p>"
    assert has_blocks(markup)
    assert not has_blocks("<p>classic <!--more--> content</p>")
