"""The streaming WXR reader on every export in the shared test data, WordPress importer's edge cases included."""

import json
import re
import tracemalloc
from collections import Counter
from datetime import UTC, datetime
from io import BytesIO
from pathlib import Path

import pytest

from apps.core import portabletext
from apps.importer.items import Author, ImportItem, Language, Notice, SiteInfo, Skipped, Term, TermRef
from apps.importer.sources import wxr
from apps.importer.sources.wxr import MalformedWxr, NotWxr, read_wxr
from tests.importer.helpers import post
from tests.importer.helpers import wxr as wxr_document
from tests.importer.wxr_factory import write_wxr
from tests.testdata import TESTDATA

WXR = TESTDATA / "wxr"
PHPUNIT = WXR / "wordpress-importer" / "phpunit-data"
FIXTURES = Path(__file__).parent / "fixtures"

# Files that must stop the import, with the error and the line it names.
INVALID = {
    "crazy-cdata.xml": (MalformedWxr, 18, "not well-formed (invalid token)"),  # "]]>" inside CDATA, unescaped
    "malformed-simple.xml": (MalformedWxr, 14, "no element found"),
    "malformed.xml": (MalformedWxr, 90, "mismatched tag"),
    "missing-version-tag.xml": (NotWxr, 35, "no <wp:wxr_version>"),
    "invalid-version-tag.xml": (NotWxr, 36, "the WXR version 'abc' is not valid"),
}
ALL_FILES = sorted(WXR.rglob("*.xml"))
# term-formats.xml writes terms with varied spacing; WordPress counts 2 categories, 3 tags, 2 other terms.
TERM_FORMATS = [
    ("category", "category-name"),
    ("category", "cat-2"),
    ("post_tag", "a-tag"),
    ("post_tag", "a-color"),
    ("post_tag", "another-tag"),
    ("custom-taxonomy", "custom-taxonomy-item"),
    ("nav_menu", "menu"),
]


def records(path, **options):
    return list(read_wxr(path, **options))


def of(kind, found):
    return [record for record in found if isinstance(record, kind)]


def only_item(path):
    [item] = of(ImportItem, records(path))
    return item


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda path: str(path.relative_to(WXR)))
def test_every_export_is_read_or_refused_with_the_line(path):
    if path.name in INVALID:
        error, line, reason = INVALID[path.name]
        with pytest.raises(error) as raised:
            records(path)
        assert raised.value.line == line
        assert reason in raised.value.message
        assert f"(line {line})" in str(raised.value)
        return
    found = records(path)
    assert isinstance(found[0], SiteInfo)
    assert found[0].wxr_version in ("1.0", "1.1", "1.2")
    assert sum(isinstance(record, SiteInfo) for record in found) == 1
    for item in of(ImportItem, found):
        assert item.conversion_error is None
        blocks, problems = portabletext.normalize(item.content)
        assert problems == {}, (item.source_id, problems)
        assert blocks == item.content  # converted documents are already in normal form
        json.dumps(item.to_dict())


def test_theme_unit_test_counts():
    found = records(WXR / "theme-test-data" / "themeunittestdata.wordpress.xml", convert=False)
    site = found[0]
    assert (site.title, site.base_site_url, site.base_blog_url) == (
        "Theme Unit Test Data",
        "https://wordpress.com/",
        "https://wpthemetestdata.wordpress.com",
    )
    assert [author.login for author in of(Author, found)] == ["themedemos", "themereviewteam"]
    assert Counter(term.taxonomy for term in of(Term, found)) == {
        "post_tag": 110,
        "category": 69,
        "nav_menu": 6,
    }
    items = of(ImportItem, found)
    assert Counter(item.post_type for item in items) == {
        "nav_menu_item": 70,
        "post": 58,
        "attachment": 37,
        "page": 21,
    }
    assert Counter(item.status for item in items) == {"publish": 147, "inherit": 37, "future": 1, "draft": 1}
    assert sum(len(item.comments) for item in items) == 33
    children = {term.slug: term.parent for term in of(Term, found) if term.parent}
    assert children["child-2"] == "child-1" and children["child-1"] == "parent"
    menu_items = [item for item in items if item.menu_item]
    assert Counter(menu for item in menu_items for menu in item.menu_item.menus) == {
        "testing-menu": 23,
        "all-pages-flat": 18,
        "all-pages": 18,
        "short": 6,
        "social-menu": 5,
    }
    nested = next(item for item in menu_items if item.source_id == 1112)
    assert (nested.menu_item.type, nested.menu_item.object, nested.menu_item.object_id) == (
        "taxonomy",
        "category",
        4675,
    )
    assert nested.menu_item.parent_id == 1101
    attachment = next(item for item in items if item.source_id == 611)
    assert attachment.attachment_url == "https://wpthemetestdata.files.wordpress.com/2008/06/canola2.jpg"
    assert next(item for item in items if item.source_id == 51).featured_image == 761


def test_wxr_1_1_as_wordpress_reads_it():
    found = records(PHPUNIT / "valid-wxr-1.1.xml", convert=False)
    assert found[0].base_site_url == "http://localhost/"
    assert of(Author, found)[0] == Author(
        login="john",
        source_id=2,
        email="johndoe@example.org",
        display_name="John Doe",
        first_name="John",
        last_name="Doe",
    )
    terms = of(Term, found)
    alpha = next(term for term in terms if term.slug == "alpha")
    assert (alpha.source_id, alpha.name, alpha.description, alpha.parent) == (
        3,
        "alpha",
        "The alpha category",
        "",
    )
    clippable = next(term for term in terms if term.slug == "clippable")
    assert (clippable.taxonomy, clippable.source_id, clippable.name) == ("post_tag", 22, "Clippable")
    assert clippable.description == "The Clippable post_tag"
    bieup = next(term for term in terms if term.slug == "bieup")
    assert (bieup.taxonomy, bieup.source_id, bieup.description) == ("post_tax", 40, "The bieup post_tax")
    first, second = of(ImportItem, found)
    assert first.terms == [
        TermRef("category", "alpha", "alpha"),
        TermRef("post_tag", "clippable", "Clippable"),
        TermRef("post_tax", "bieup", "bieup"),
    ]
    assert (first.categories, first.tags) == (["alpha"], ["clippable"])
    assert second.meta == {"_wp_page_template": "default"}


def test_wxr_1_0_tags_and_repeated_categories():
    items = of(ImportItem, records(PHPUNIT / "valid-wxr-1.0.xml", convert=False))
    assert len(items) == 6
    assert items[0].terms == [TermRef("category", "uncategorized", "Uncategorized")]
    assert items[2].terms == [
        TermRef("category", "alpha", "alpha"),
        TermRef("post_tag", "news", "news"),
        TermRef("post_tag", "roar", "roar"),
    ]
    assert items[3].tags == ["chicken", "face"] and items[3].categories == ["child"]
    assert items[4].parent_id == 10


def test_terms_in_every_format():
    found = records(PHPUNIT / "term-formats.xml")
    assert of(Author, found) == [] and of(ImportItem, found) == []
    assert [(term.taxonomy, term.slug) for term in of(Term, found)] == TERM_FORMATS


def test_cdata_edge_cases():
    item = only_item(PHPUNIT / "crazy-cdata-escaped.xml")
    assert item.raw_content == "Content with nested <![CDATA[ tags ]]> :)"
    assert item.meta == {
        "Plain string": "Foo",
        "Closing CDATA": "]]>",
        "Alot of CDATA": "This has <![CDATA[ opening and ]]> closing <![CDATA[ tags like this: ]]>",
    }
    # In HTML (outside SVG and MathML) "<![CDATA[ … ]]>" is a bogus comment: browsers never showed it.
    assert portabletext.plain_text(item.content) == "Content with nested :)"
    assert only_item(PHPUNIT / "cdata-edge.xml").raw_content == "ends with sequence ]] >"
    assert only_item(PHPUNIT / "multiple-cdata.xml").raw_content == "\nline oneline twoline three\n"
    assert only_item(PHPUNIT / "backslashes.xml").raw_content == "C:\\xampp\\htdocs\\wp-content"


def test_blank_lines_are_kept_and_make_paragraphs():
    item = only_item(PHPUNIT / "post-content-blank-lines.xml")
    assert item.raw_content.count("\n") == 3
    blank = only_item(PHPUNIT / "blank-lines.xml")
    assert [block["children"][0]["text"] for block in blank.content] == [
        "first paragraph",
        "second paragraph",
    ]


def test_serialized_meta_is_unserialized_safely():
    expected = {
        "post-options": {"special_post_title": "A special title", "is_calendar": ""},
        "contains-html": "<pre>some html</pre>",
        "evil": "<wp:meta_value>evil</wp:meta_value>",
        "string": "¯\\_(ツ)_/¯",
        "array": {"key": "¯\\_(ツ)_/¯"},
        "array-nested": {"key": {"foo": "¯\\_(ツ)_/¯", "bar": "\\o/"}},
        "integer": "1",
    }
    assert only_item(PHPUNIT / "test-serialized-postmeta-with-cdata.xml").meta == expected
    assert only_item(PHPUNIT / "test-serialized-postmeta-no-cdata.xml").meta == {
        "post-options": {"special_post_title": "A special title", "is_calendar": ""}
    }
    comment_meta = {"string": "¯\\_(ツ)_/¯", "array": {"key": "¯\\_(ツ)_/¯"}}
    assert only_item(PHPUNIT / "test-serialized-comment-meta.xml").comments[0].meta == comment_meta
    terms = of(Term, records(PHPUNIT / "test-serialized-term-meta.xml"))
    assert [term.meta for term in terms] == [comment_meta] * 3
    tags = only_item(PHPUNIT / "test-utw-post-meta-import.xml").meta["test"]
    assert len(tags) == 13 and tags[0] == {"__php_class__": "stdClass", "tag": "album"}
    assert only_item(PHPUNIT / "chunked-meta.xml").meta == {"_my_meta": {"foo": "bar"}}
    assert of(Term, records(PHPUNIT / "term-meta.xml"))[0].meta == {"legacy_id": "42"}


def test_utf8_challenges_are_byte_exact():
    raw = (PHPUNIT / "wxr-utf-8-challenges.xml").read_bytes()

    def cdata(element):
        return re.search(rb"<" + element + rb"><!\[CDATA\[(.*?)\]\]></" + element + rb">", raw, re.S)[
            1
        ].decode()

    found = records(PHPUNIT / "wxr-utf-8-challenges.xml")
    site, author, item = found
    assert (
        site.title == "My WordPress Website 🚀 \u202e\u202d\u0645\u0631\u062d\u0628\u0627"
    )  # RTL override, Arabic
    assert site.description == "Site with \u00a0\u200b\u2060\ufeff invisible chars and \ufffd replacement"
    assert author.login == cdata(
        b"wp:author_login"
    )  # "admin" and four invisible characters, none of them space
    for name, value in [
        (b"wp:author_email", author.email),
        (b"wp:author_display_name", author.display_name),
        (b"wp:author_first_name", author.first_name),
        (b"wp:author_last_name", author.last_name),
        (b"title", item.title),
        (b"content:encoded", item.raw_content),
        (b"excerpt:encoded", item.excerpt),
        (b"wp:post_name", item.slug),
    ]:
        assert value == cdata(name), name
    values = re.findall(rb"<wp:meta_value><!\[CDATA\[(.*?)\]\]></wp:meta_value>", raw, re.S)
    assert list(item.meta.values()) == [value.decode() for value in values]
    assert item.terms[0].slug == "uncat\u202eegorized\u202c"
    assert "T̷̢̯̭̈w̴̰̜̾o̷͉̅" in portabletext.plain_text(item.content)


def test_three_hundred_authors():
    authors = of(Author, records(PHPUNIT / "large-authors.xml"))
    assert [author.login for author in authors] == [f"user{number}" for number in range(1, 301)]
    assert authors[299] == Author(login="user300", source_id=300, email="user300@example.com")


def test_values_split_over_lines_are_trimmed_where_they_are_identifiers():
    found = records(PHPUNIT / "authors-multiline.xml")
    assert [(author.source_id, author.login) for author in of(Author, found)] == [
        (1, "alice"),
        (2, "bob"),
        (3, "carol"),
    ]
    assert of(ImportItem, found)[0].author == "alice"
    assert only_item(PHPUNIT / "missing-tags.xml").author is None


def test_namespaces_are_matched_by_uri_not_prefix():
    found = records(PHPUNIT / "namespace-edge-cases.xml")
    assert [author.login for author in of(Author, found)] == ["real_user", "version_conflict"]
    items = of(ImportItem, found)
    assert [item.source_id for item in items] == [1, 2, 3, 4, 6]
    assert items[0].meta == {"normal_key": "normal_value"}  # the redefined "wp:" postmeta is not WXR's
    assert items[4].raw_content == "&lol1;" * 10  # text in CDATA, never an entity
    assert [term.slug for term in of(Term, found)] == ["old-version", "new-version"]
    assert [(skipped.kind, skipped.line) for skipped in of(Skipped, found)] == [
        ("author", 17),
        ("author", 38),
        ("item", 94),
        ("term", 124),
    ]


def test_hand_written_exports_without_post_ids_use_the_guid():
    items = of(ImportItem, records(WXR / "theme-test-data" / "theme-preview.xml"))
    assert items[0].source_id == "http://wp-themes.com/?p=19"
    assert items[0].categories == ["uncategorized", "boat", "lake"]
    assert items[0].date == datetime(2008, 10, 17, 4, 33, 51, tzinfo=UTC)


def test_reusable_blocks_and_language_data():
    found = records(FIXTURES / "reusable-blocks-and-languages.xml")
    block, english, french, about, apropos = of(ImportItem, found)
    assert block.post_type == "wp_block"
    assert [item["_type"] for item in block.content] == ["block", "button"]
    assert english.content[-1] == {
        "_type": "sectionReference",
        "_key": english.content[-1]["_key"],
        "ref": 10,
    }
    assert english.language == Language(code="en", source="wpml", translation_group="spring-news")
    assert french.language == Language("fr", "wpml", translation_group="spring-news", source_language="en")
    assert about.language == Language("en", "polylang", translation_group="pll_5f2a1b")
    assert apropos.language.code == "fr"
    # Dates: post_date_gmt, else the RSS pubDate, else post_date (an epoch pubDate means "no date").
    assert english.date == datetime(2024, 3, 2, 9, tzinfo=UTC)
    assert french.date == datetime(2024, 3, 2, 11, tzinfo=UTC)
    assert block.date == datetime(2024, 3, 1, 9, tzinfo=UTC)


def test_an_item_that_fails_to_convert_is_still_yielded_with_its_original_content(monkeypatch):
    def failing(content, **options):
        if "spring" in content:
            raise ValueError("cannot convert this")
        return [], None

    monkeypatch.setattr(wxr, "convert_post", failing)
    items = of(ImportItem, records(FIXTURES / "reusable-blocks-and-languages.xml"))
    failed = [item for item in items if item.conversion_error]
    assert [item.source_id for item in failed] == [20]
    assert failed[0].content is None and "spring programme" in failed[0].raw_content
    assert failed[0].conversion_error == "ValueError: cannot convert this"


@pytest.mark.parametrize(
    ("document", "error", "message"),
    [
        pytest.param(
            '<?xml version="1.0"?>\n<!DOCTYPE rss [\n<!ENTITY lol "lol">\n<!ENTITY lol2 "&lol;&lol;">\n]>\n'
            "<rss><channel><title>&lol2;</title></channel></rss>",
            MalformedWxr,
            "declares XML entities",
            id="entity-expansion",
        ),
        pytest.param(
            '<?xml version="1.0"?>\n<!DOCTYPE rss [\n<!ENTITY secret SYSTEM "file:///etc/passwd">\n]>\n'
            "<rss><channel><title>&secret;</title></channel></rss>",
            MalformedWxr,
            "declares XML entities",
            id="external-entity",
        ),
        pytest.param("<html><body>Not an export</body></html>", NotWxr, "the document is <html>", id="html"),
        pytest.param("<rss version='2.0'><item/></rss>", NotWxr, "has no <channel>", id="no-channel"),
        pytest.param("just text", MalformedWxr, "syntax error", id="not-xml"),
        pytest.param("", MalformedWxr, "no element found", id="empty"),
    ],
)
def test_files_that_are_not_wxr_are_refused_clearly(tmp_path, document, error, message):
    path = tmp_path / "upload.xml"
    path.write_text(document)
    with pytest.raises(error) as raised:
        records(path)
    assert message in raised.value.message
    assert raised.value.line is not None


def test_a_file_object_can_be_read_too():
    with (PHPUNIT / "wxr-simple.xml").open("rb") as handle:
        assert [type(record).__name__ for record in read_wxr(handle)] == ["SiteInfo", "Author", "ImportItem"]


def peak_memory(path, **options):
    tracemalloc.start()
    try:
        count = sum(1 for _ in read_wxr(path, **options))
        return count, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_stays_bounded_whatever_the_file_size(tmp_path):
    small = write_wxr(tmp_path / "small.xml", 100)
    large = write_wxr(tmp_path / "large.xml", 1500)
    assert large.stat().st_size > 12 * small.stat().st_size
    small_count, small_peak = peak_memory(small, convert=False)
    large_count, large_peak = peak_memory(large, convert=False)
    assert (small_count, large_count) == (100 + 50 + 26, 1500 + 50 + 26)
    # Fifteen times the file, the same allocations: nothing accumulates per item.
    assert large_peak < small_peak + 512 * 1024
    assert large_peak < 2 * 1024 * 1024
    # Converting content to Portable Text adds per-item work, not per-file memory.
    converted_count, converted_peak = peak_memory(write_wxr(tmp_path / "converted.xml", 300))
    assert converted_count == 300 + 50 + 26
    assert converted_peak < 2 * 1024 * 1024


def _document(content: bytes, declaration: bytes = b'<?xml version="1.0" encoding="UTF-8"?>') -> bytes:
    document = wxr_document(post(1, content="CONTENT"))
    return document.replace(b'<?xml version="1.0" encoding="UTF-8"?>', declaration).replace(
        b"CONTENT", content
    )


def test_invalid_utf8_is_replaced_while_a_character_cut_by_a_read_is_not(tmp_path):
    head = _document(b"MARK").split(b"MARK")[0]
    # "é" (two bytes) straddles the reader's first 64 KB chunk; a lone Latin-1 byte and a cut-off sequence do not.
    padding = b"x" * (wxr.READ_BYTES - len(head) - 1)
    document = _document(padding + "\u00e9".encode() + b" \n\xe9t\xe9 \xe2\x82")
    found = list(read_wxr(BytesIO(document)))

    [item] = of(ImportItem, found)
    assert item.raw_content == padding.decode() + "\u00e9 \n\ufffdt\ufffd \ufffd"
    line = document[: document.index(b"\xe9t")].count(b"\n") + 1
    assert of(Notice, found) == [
        Notice(
            "INVALID_UTF8",
            f"Line {line} holds bytes that are not UTF-8; each was replaced by U+FFFD (\ufffd).",
            line,
        )
    ]


def test_a_file_declaring_another_encoding_is_read_in_it():
    document = _document(b"caf\xe9", b'<?xml version="1.0" encoding="ISO-8859-1"?>')
    [item] = of(ImportItem, list(read_wxr(BytesIO(document))))
    assert item.raw_content == "caf\u00e9"
