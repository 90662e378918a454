"""The ranking paths of each backend (apps/search/backends): exact while matches are few, bounded beyond
``CMS_SEARCH_RANK_LIMIT``; on PostgreSQL RUM's ordered scan, and GIN with ``ts_rank_cd`` when RUM is not installed.
Each path gives the same answers for the same small corpus, and pages the same way."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import override_settings

from apps.search.backends import get_search_backend
from tests.search.conftest import article, ids, search, titles


def page_through(client, q: str, limit: int, **params) -> list[str]:
    seen, cursor = [], None
    while True:
        body = search(client, q, limit=limit, **({"cursor": cursor} if cursor else {}), **params)
        seen += [hit["id"] for hit in body["results"]]
        cursor = body["nextCursor"]
        if cursor is None:
            return seen


@pytest.fixture(params=["default", "rum", "bounded-rum"])
def postgres_path(request):
    """On PostgreSQL, run the test with the default GIN index, with RUM (when installed; CI installs it), and with
    RUM present but every query ranked on the bounded path. On SQLite there is one path."""
    if request.param == "default":
        yield request.param
        return
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL index paths")
    if not _rum_installed():
        pytest.skip("the rum extension is not installed")
    get_search_backend().set_index("rum")
    if request.param == "rum":
        yield request.param
        return
    with override_settings(CMS_SEARCH_RUM_LIMIT=0):
        yield request.param


def _rum_installed() -> bool:
    from apps.search.backends.postgres import rum_available

    return rum_available()


def test_every_path_ranks_titles_first_and_pages_ties_by_id(reader, articles, postgres_path):
    tied = [article(articles, f"Entry {n}", "Otters and more otters by the river.") for n in range(26)]
    best = article(articles, "Otters", "Otters.")
    seen = page_through(reader, "otters", limit=3)
    assert seen[0] == best.pk
    assert seen[1:] == sorted(entry.pk for entry in tied)


def test_every_path_handles_phrases_exclusions_and_stemming(reader, articles, postgres_path):
    article(articles, "One", "The quick fox jumps.")
    article(articles, "Two", "The fox is quick.")
    assert titles(reader, '"quick fox"') == ["One"]
    assert titles(reader, "fox -jumping") == ["Two"]
    assert sorted(titles(reader, "jumping or quick")) == ["One", "Two"]


@override_settings(CMS_SEARCH_RANK_LIMIT=5, CMS_SEARCH_RUM_LIMIT=0)
def test_broad_queries_rank_a_bounded_sample(reader, articles):
    """With more matches than the rank limit, only that many candidates are ranked (and returned), consistently
    across pages; queries with fewer matches stay exact."""
    entries = [article(articles, f"Entry {n}", "Otters by the river.") for n in range(12)]
    article(articles, "Rare", "Otters and herons.")
    seen = page_through(reader, "otters", limit=2)
    assert len(seen) == len(set(seen)) == 5
    if connection.vendor == "sqlite":
        # SQLite ranks the newest matches (documents are rewritten when their entry changes).
        assert set(seen) == {entry.pk for entry in entries[-4:]} | {ids(reader, "herons")[0]}
    assert titles(reader, "herons") == ["Rare"]


@pytest.mark.requires_postgres
def test_languages_follow_the_locale(reader, articles):
    with override_settings(CMS_DEFAULT_LOCALE="en", CMS_LOCALES=["en", "de", "x-klingon"]):
        from tests.factories import make_entry
        from tests.search.conftest import pt

        make_entry(
            articles, {"title": "Häuser", "body": pt("Die Häuser am Fluss.")}, locale="de", status="published"
        )
        make_entry(
            articles,
            {"title": "Klingon", "body": pt("Running qapla.")},
            locale="x-klingon",
            status="published",
        )
        assert titles(reader, "haus", locale="de") == ["Häuser"]
        assert titles(reader, "hauser", locale="de") == ["Häuser"]
        # No stemmer for this locale: words are only lowercased and unaccented.
        assert titles(reader, "running", locale="x-klingon") == ["Klingon"]
        assert titles(reader, "run", locale="x-klingon") == []
        assert titles(reader, "haus") == ["Häuser"]


@pytest.mark.requires_postgres
def test_stats_name_the_index_in_use(admin_api, articles):
    assert admin_api.get("/_cms/api/search/stats").json()["data"]["engine"] == "postgresql-gin"
    if _rum_installed():
        get_search_backend().set_index("rum")
        assert admin_api.get("/_cms/api/search/stats").json()["data"]["engine"] == "postgresql-rum"


@pytest.mark.requires_postgres
def test_a_full_reindex_is_a_bulk_load_that_ends_with_the_chosen_index(reader, articles):
    import io

    from django.core.management import call_command

    from apps.search.backends.postgres import _current_index_kind

    article(articles, "Otters", "Otters swim.")
    kind = "rum" if _rum_installed() else "gin"
    call_command("reindex", "--full", "--index", kind, stdout=io.StringIO(), stderr=io.StringIO())
    assert _current_index_kind() == kind
    assert titles(reader, "swim") == ["Otters"]
    call_command("reindex", "--full", stdout=io.StringIO(), stderr=io.StringIO())
    assert _current_index_kind() == kind
    call_command("reindex", "--index", "gin", stdout=io.StringIO(), stderr=io.StringIO())
    assert _current_index_kind() == "gin"


@pytest.mark.requires_postgres
@override_settings(CMS_SEARCH_RANK_LIMIT=5, CMS_SEARCH_RUM_LIMIT=0)
def test_the_sample_of_a_broad_query_keeps_every_title_match(reader, articles, postgres_path):
    """PostgreSQL adds title matches to the sample of a broad query (SQLite ranks its newest matches only)."""
    oldest = article(articles, "Otters", "A note.")
    for n in range(12):
        article(articles, f"Entry {n}", "Otters by the river.")
    newest = article(articles, "Sea otters", "Kelp.")
    found = ids(reader, "otters", limit=50)
    assert set(found[:2]) == {oldest.pk, newest.pk}
    assert ids(reader, "otters", collections="articles", limit=50)[:2] == found[:2]
