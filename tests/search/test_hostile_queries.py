"""Any text is a query: FTS operators, quotes, parentheses, control characters and any Unicode give results or an empty
list, never an error (SQLite's FTS5 refuses most of these when passed raw; PostgreSQL's parsers accept them but must
never see a NUL). A property-based test throws arbitrary text at ``GET /search`` and ``GET /search/suggest``."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apps.search.query import parse
from tests.search.conftest import SEARCH, SUGGEST, article

OPERATORS = [
    '"', "'", "(", ")", "-", "--", "*", "+", ":", "^", "{", "}", "[", "]", "\\", "/", "|", "&", "!", "~", "@", "<",
    ">", "<->", "OR", "or", "AND", "NOT", "NEAR", "NEAR(", "title:", "body:", "{title}", "\x00", "\x1f", "\ue000",
    "\u200b", "é", "ß", "İ", "中文", "🙂", "\u0301", "ﷺ", "running", "otters", "café",
]  # fmt: skip

HOSTILE = [
    '"',
    '"""',
    "(((",
    ")))",
    "otters)",
    '"otters',
    "NEAR(otters river, 2)",
    "otters AND OR NOT",
    "title:otters",
    "{title body}: otters",
    "otters*",
    "*",
    "^otters",
    "- - -",
    "-otters",
    "or",
    "or or or",
    "otters -",
    '-"',
    "\x00otters\x00",
    "\ue000otters\ue001",
    "🙂🙂🙂",
    "中文搜索",
    "' OR 1=1 --",
    "'; DROP TABLE search_searchdocument; --",
    "<script>alert(1)</script>",
    "a" * 500,
    "x " * 250,
    "otters:*",
    "!otters & !!river",
    "otters <-> river",
    "\\",
    "%_%",
    "the",
    "the and of",
]


@pytest.fixture
def corpus(articles):
    article(
        articles,
        "Otters by the river",
        'Otters (and river) "quoted" text: NEAR AND OR NOT * ^ café 中文搜索 🙂.',
    )
    article(articles, "Running", "Running water.")


@pytest.mark.parametrize("q", HOSTILE)
def test_hostile_queries_answer_200(reader, corpus, q):
    response = reader.get(SEARCH, {"q": q})
    assert response.status_code == 200, (q, response.content)
    assert isinstance(response.json()["results"], list)
    response = reader.get(SUGGEST, {"q": q})
    assert response.status_code == 200, (q, response.content)


def test_operators_in_the_text_are_words(reader, corpus):
    for q in ("NEAR", "otters AND river", '"otters by"', "(otters)", "otters)", "中文搜索", "🙂 otters"):
        response = reader.get(SEARCH, {"q": q})
        assert [hit["title"] for hit in response.json()["results"]] == ["Otters by the river"], q


QUERY_TEXT = st.one_of(
    st.text(min_size=1, max_size=500),
    st.lists(st.sampled_from(OPERATORS), min_size=1, max_size=40).map(" ".join),
    st.lists(st.sampled_from(OPERATORS), min_size=1, max_size=60).map("".join),
).filter(lambda text: text.strip() and len(text) <= 500)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(q=QUERY_TEXT)
def test_any_text_gives_results_or_nothing_never_an_error(reader, corpus, q):
    for path in (SEARCH, SUGGEST):
        response = reader.get(path, {"q": q})
        assert response.status_code == 200, (path, q, response.content)


@settings(max_examples=300, deadline=None)
@given(q=st.text(max_size=500))
def test_the_parser_only_emits_quoted_items(q):
    parsed = parse(q)
    for group in parsed.groups:
        assert group.include
        for item in (*group.include, *group.exclude):
            assert '"' not in item and item.strip() == item and any(ch.isalnum() for ch in item)
    fts = parsed.to_fts5()
    assert fts.count('"') % 2 == 0
