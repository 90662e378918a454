"""The database-free parts of search: the query language, folding for suggest, snippets from marked text, and which
documents an entry has."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from apps.search.backends.base import excerpt, snippet_html
from apps.search.documents import MARK_END, MARK_START, DocumentSpec, documents_for, fold, suggestion_keys
from apps.search.query import Group, SearchQuery, parse

S, E = MARK_START, MARK_END


@pytest.mark.parametrize(
    ("text", "groups"),
    [
        ("otters", (Group(("otters",)),)),
        ("otters river", (Group(("otters", "river")),)),
        ('"river otters" -sea', (Group(("river otters",), ("sea",)),)),
        ("a or b c", (Group(("a",)), Group(("b", "c")))),
        ('a -"b c" or d', (Group(("a",), ("b c",)), Group(("d",)))),
        ("or a or", (Group(("a",)),)),
        ("-a", ()),
        ("a or -b", (Group(("a",)),)),
        ('"unclosed phrase', (Group(("unclosed phrase",)),)),
        ("--a b", (Group(("b",), ("a",)),)),
        ("a - b", (Group(("a", "b")),)),
        ("x-ray", (Group(("x-ray",)),)),
        ("!!! ??? ---", ()),
        ("OR", ()),
        ('"or"', (Group(("or",)),)),
        ("a a a", (Group(("a",)),)),
    ],
)
def test_parse(text, groups):
    assert parse(text).groups == groups


def test_compilation_for_each_database():
    query = parse('river "sea otters" -"oil spill" or kelp')
    assert query.to_websearch() == '"river" "sea otters" -"oil spill" or "kelp"'
    assert query.to_fts5() == '(("river" AND "sea otters") NOT ("oil spill")) OR ("kelp")'
    assert SearchQuery(()).is_empty


def test_fold_and_suggestion_keys():
    assert fold("  Crème  Brûlée, s'il-vous-plaît!  ") == "creme brulee s il vous plait"
    assert fold("STRASSE Straße") == "strasse strasse"
    assert suggestion_keys("Café au lait") == ["cafe au lait", "au lait", "lait"]
    assert len(suggestion_keys(" ".join(f"w{n}" for n in range(30)))) == 12


def test_excerpt_cuts_around_the_first_match():
    words = [f"w{n}" for n in range(100)]
    words[50] = f"{S}hit{E}"
    text = " ".join(words)
    assert excerpt(text, before=3, words=6) == f"… w47 w48 w49 {S}hit{E} w51 w52 …"
    assert excerpt(f"{S}hit{E} and more", before=3, words=6) == f"{S}hit{E} and more"
    assert excerpt("no match at all here", before=3, words=3) == "no match at …"
    assert excerpt("(" + S + "hit" + E + ")", before=0, words=5) == f"({S}hit{E})"
    assert excerpt("cut word here " + S + "hit" + E + " tail end", cut_before=True, cut_after=True) == (
        f"… word here {S}hit{E} tail …"
    )


def test_snippet_html_escapes_everything_but_the_marks():
    assert snippet_html(f'<b>"x"</b> & {S}y{E}') == "&lt;b&gt;&quot;x&quot;&lt;/b&gt; &amp; <mark>y</mark>"
    # A window may cut a mark in two: never an unclosed or unopened tag.
    assert snippet_html(f"a {S}b") == "a <mark>b</mark>"
    assert snippet_html(f"a{E} b {S}c{E}") == "a b <mark>c</mark>"
    assert snippet_html(None) == ""


def _entry(status="draft", data=None, live=None, deleted=False):
    return SimpleNamespace(
        status=status, data=data or {}, live_data=live, deleted_at=object() if deleted else None
    )


def _field(slug, type="string", searchable=False):
    return SimpleNamespace(slug=slug, type=type, searchable=searchable)


def test_documents_for_each_state():
    collection = SimpleNamespace(supports_feature=lambda feature: True)
    fields = [_field("title"), _field("body", "text", True)]
    same = {"title": "T", "body": "B"}
    assert documents_for(_entry(data=same), collection, fields) == [DocumentSpec(False, True, "T", "B")]
    assert documents_for(_entry("published", same, dict(same)), collection, fields) == [
        DocumentSpec(True, True, "T", "B")
    ]
    assert documents_for(_entry("published", {"title": "T2", "body": "B"}, same), collection, fields) == [
        DocumentSpec(True, False, "T", "B"),
        DocumentSpec(False, True, "T2", "B"),
    ]
    # Unpublished (live data kept) and scheduled entries are not public.
    assert documents_for(_entry("scheduled", same, same), collection, fields) == [
        DocumentSpec(False, True, "T", "B")
    ]
    assert documents_for(_entry("published", same, same, deleted=True), collection, fields) == []
    off = SimpleNamespace(supports_feature=lambda feature: False)
    assert documents_for(_entry(data=same), off, fields) == []
