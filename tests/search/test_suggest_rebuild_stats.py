"""``GET /search/suggest``, ``POST /search/rebuild``, ``GET /search/stats`` and ``manage.py reindex``."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import override_settings

from apps.accounts.models import Role
from apps.accounts.permissions import Actor
from apps.content import services as content
from apps.core.timefmt import iso
from apps.search.models import SearchDocument, SearchRebuild
from tests.factories import make_entry
from tests.search.conftest import (
    REBUILD,
    SEARCH,
    STATS,
    SUGGEST,
    article,
    error_of,
    index_state,
    make_articles,
    pt,
)

SYSTEM = Actor.system()


def suggested(client, q: str, **params) -> list[str]:
    response = client.get(SUGGEST, {"q": q, **params})
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["success"] is True
    return [item["title"] for item in body["data"]["items"]]


# --- suggest ----------------------------------------------------------------------------------------------------------


def test_suggest_answers_whole_items(reader, articles):
    entry = article(articles, "Café society", "Text.")
    response = reader.get(SUGGEST, {"q": "caf"})
    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "data": {
            "items": [{"collection": "articles", "id": entry.pk, "slug": entry.slug, "title": "Café society"}]
        },
    }


def test_suggest_matches_the_start_of_the_title_first_then_of_a_word(reader, articles):
    for title in (
        "The river bank",
        "River otters",
        "Riverside walks",
        "A quiet river",
        "Rivets and bolts",
        "Brook",
    ):
        article(articles, title, "Text.")
    assert suggested(reader, "river", limit=10) == [
        "River otters",
        "Riverside walks",
        "A quiet river",
        "The river bank",
    ]
    assert suggested(reader, "riv", limit=3) == ["River otters", "Riverside walks", "Rivets and bolts"]
    assert suggested(reader, "river b") == ["The river bank"]


def test_suggest_ignores_case_and_accents(reader, articles):
    article(articles, "Crème brûlée", "Text.")
    article(articles, "CREME fraiche", "Text.")
    assert suggested(reader, "creme") == ["Crème brûlée", "CREME fraiche"]
    assert suggested(reader, "CRÈME BRU") == ["Crème brûlée"]


def test_suggest_follows_status_and_the_trash(reader, editor, articles):
    live = article(articles, "Otter pups", "Text.")
    article(articles, "Otter draft", "Text.", status="draft")
    assert suggested(reader, "otter") == ["Otter pups"]
    assert suggested(editor, "otter", status="draft") == ["Otter draft", "Otter pups"]
    content.entry_trash(actor=SYSTEM, entry=live)
    assert suggested(reader, "otter") == []
    response = reader.get(SUGGEST, {"q": "otter", "status": "draft"})
    assert response.status_code == 403


def test_suggest_validation(reader, articles):
    for params, details in (
        ({"q": ""}, {"q": "Required: the beginning of a title."}),
        ({"q": "a", "limit": "21"}, {"limit": "Ensure this value is less than or equal to 20."}),
        ({"q": "a", "collections": "nope"}, None),
    ):
        response = reader.get(SUGGEST, params)
        assert response.status_code == 400
        if details is not None:
            assert error_of(response)["details"] == details
    assert suggested(reader, "!!!") == []


def test_suggest_costs_a_bounded_number_of_queries(reader, articles, django_assert_max_num_queries):
    for n in range(30):
        article(articles, f"River {n}", "Text.")
    with django_assert_max_num_queries(8):
        assert len(suggested(reader, "riv", limit=20)) == 20


# --- rebuild ----------------------------------------------------------------------------------------------------------


def test_rebuild_needs_an_admin(editor, articles):
    response = editor.post(REBUILD, {}, format="json")
    assert response.status_code == 403


def test_rebuild_of_named_collections_returns_counts(admin_api, articles):
    news = make_articles("news")
    article(articles, "One", "Text.")
    article(articles, "Two", "Text.", status="draft")
    article(news, "Three", "Text.")
    SearchDocument.objects.all().delete()
    response = admin_api.post(REBUILD, {"collections": ["articles"]}, format="json")
    assert response.status_code == 200
    data = response.json()["data"]
    assert [{k: v for k, v in item.items() if k != "seconds"} for item in data["collections"]] == [
        {
            "collection": "articles",
            "searchable": True,
            "entries": 2,
            "documents": 2,
            "written": 2,
            "removed": 0,
        }
    ]
    assert (data["entries"], data["documents"], data["written"], data["removed"]) == (2, 2, 2, 0)
    assert sorted(SearchDocument.objects.values_list("title", flat=True)) == ["One", "Two"]

    response = admin_api.post(REBUILD, {}, format="json")
    assert [item["collection"] for item in response.json()["data"]["collections"]] == ["articles", "news"]
    assert response.json()["data"]["written"] == 1


def test_rebuild_refuses_unknown_collections(admin_api, articles):
    response = admin_api.post(REBUILD, {"collections": ["articles", "nope"]}, format="json")
    assert response.status_code == 400
    assert error_of(response) == {
        "code": "VALIDATION_ERROR",
        "message": "Unknown collection(s): nope; collections: articles.",
        "details": {"collections": "Unknown: nope."},
    }


def test_a_full_rebuild_rewrites_every_document(admin_api, articles):
    article(articles, "One", "Text.")
    before = index_state()
    old_ids = set(SearchDocument.objects.values_list("id", flat=True))
    response = admin_api.post(REBUILD, {"full": True}, format="json")
    assert response.json()["data"]["written"] == 1
    assert index_state() == before
    assert not old_ids & set(SearchDocument.objects.values_list("id", flat=True))


# --- stats ------------------------------------------------------------------------------------------------------------


@override_settings(CMS_DEFAULT_LOCALE="en", CMS_LOCALES=["en", "fr"])
def test_stats_count_documents_per_collection_and_locale(admin_api, editor, reader, articles):
    make_articles("plain", supports=["drafts"])
    news = make_articles("news")
    live = article(articles, "One", "Text.")
    content.entry_update(actor=SYSTEM, entry=live, data={"body": pt("Changed.")})
    article(articles, "Two", "Text.", status="draft")
    make_entry(articles, {"title": "Un", "body": pt("Texte.")}, locale="fr", status="published")
    admin_api.post(REBUILD, {"collections": ["articles"]}, format="json")
    rebuilt = SearchRebuild.objects.get(collection=articles).rebuilt_at

    response = editor.get(STATS)
    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "data": {
            "engine": "sqlite-fts5" if connection.vendor == "sqlite" else response.json()["data"]["engine"],
            "documents": 4,
            "lastRebuildAt": iso(rebuilt),
            "collections": [
                {
                    "collection": "articles",
                    "searchable": True,
                    "documents": 4,
                    "published": 2,
                    "working": 3,
                    "locales": [{"locale": "en", "documents": 3}, {"locale": "fr", "documents": 1}],
                    "lastRebuildAt": iso(rebuilt),
                },
                {
                    "collection": "news",
                    "searchable": True,
                    "documents": 0,
                    "published": 0,
                    "working": 0,
                    "locales": [],
                    "lastRebuildAt": None,
                },
            ],
        },
    }
    assert news
    assert reader.get(STATS).status_code == 403


# --- manage.py reindex ------------------------------------------------------------------------------------------------


def test_reindex_shows_progress_and_a_summary(articles):
    for n in range(5):
        article(articles, f"Entry {n}", "Text.")
    SearchDocument.objects.all().delete()
    out, err = io.StringIO(), io.StringIO()
    call_command("reindex", "--batch-size", "2", stdout=out, stderr=err)
    progress = err.getvalue().splitlines()
    assert progress[0].startswith("articles             [............................] 0/5 entries")
    assert progress[-1].startswith("articles             [############################] 5/5 entries")
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("articles: 5 entries, 5 documents (5 written, 0 removed) in ")
    assert lines[0].endswith(" documents/s")
    assert lines[1].startswith("Index (")
    assert SearchDocument.objects.count() == 5


def test_reindex_json_and_one_collection(articles):
    make_articles("news")
    article(articles, "One", "Text.")
    out = io.StringIO()
    call_command("reindex", "--collection", "articles", "--full", "--json", "--no-progress", stdout=out)
    result = json.loads(out.getvalue())
    assert [item["collection"] for item in result["collections"]] == ["articles"]
    assert (result["written"], result["removed"], result["documents"]) == (1, 1, 1)
    assert result["documentsPerSecond"] > 0


def test_reindex_refuses_unknown_collections_and_index_kinds_on_sqlite(articles):
    with pytest.raises(CommandError, match="Unknown collection"):
        call_command("reindex", "--collection", "nope", stdout=io.StringIO(), stderr=io.StringIO())
    if connection.vendor == "sqlite":
        with pytest.raises(CommandError, match="PostgreSQL only"):
            call_command("reindex", "--index", "gin", stdout=io.StringIO(), stderr=io.StringIO())


def test_role_matrix_for_suggest(client_for, articles):
    article(articles, "Otters", "Text.")
    for role in (Role.SUBSCRIBER, Role.CONTRIBUTOR, Role.EDITOR, Role.ADMIN):
        assert suggested(client_for(role=role, scopes=["content:read"]), "ott") == ["Otters"]


@pytest.mark.requires_postgres
def test_a_full_rebuild_of_everything_leaves_the_documents_table_its_size(reader, articles):
    # Rewritten after a DELETE, every document would land behind its dead predecessor: the table would double with
    # each full rebuild, and a sequential scan read through the dead half first.
    for number in range(40):
        article(articles, f"Otter {number}", " ".join(["river otters hold hands"] * 60))

    def size() -> int:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_relation_size('search_searchdocument')")
            return cursor.fetchone()[0]

    call_command("reindex", "--full", "--no-progress", stdout=io.StringIO())
    first = size()
    call_command("reindex", "--full", "--no-progress", stdout=io.StringIO())
    call_command("reindex", "--full", "--no-progress", stdout=io.StringIO())

    assert size() == first
    assert len(reader.get(SEARCH, {"q": "otters", "limit": 50}).json()["results"]) == 40
