"""``GET /search`` (SPEC §4.7) on both databases: the bare answer, ranking, the query language (phrases, exclusion,
or), stemming, accents, snippets and their escaping, what is indexed, status and locale, collections, permissions,
validation and pagination."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.test import override_settings

from apps.accounts.models import Role
from apps.accounts.permissions import Actor
from apps.content import services as content
from apps.search.models import SearchDocument
from tests.factories import make_collection, make_entry
from tests.search.conftest import SEARCH, article, error_of, ids, make_articles, pt, search, titles


def test_the_answer_is_the_bare_payload_with_each_result_whole(reader, articles):
    entry = article(articles, "Garden notes", "Tomatoes need sun.", "Water them every morning.")
    body = search(reader, "tomatoes")
    assert set(body) == {"results", "nextCursor"}
    assert body["nextCursor"] is None
    [hit] = body["results"]
    assert isinstance(hit["score"], float) and hit["score"] > 0
    assert {key: value for key, value in hit.items() if key not in ("score", "snippet")} == {
        "collection": "articles",
        "id": entry.pk,
        "slug": "garden-notes",
        "title": "Garden notes",
    }
    assert hit["snippet"].startswith("<mark>Tomatoes</mark> need sun")


def test_a_title_match_ranks_above_a_body_match(reader, articles):
    in_body = article(articles, "Garden notes", "We went running along the river this morning.")
    in_title = article(articles, "Running shoes", "A review of three pairs for the road.")
    assert ids(reader, "running") == [in_title.pk, in_body.pk]


def test_phrases_exclusions_and_alternatives(reader, articles):
    article(articles, "One", "The quick fox jumps over the dog.")
    article(articles, "Two", "The fox is quick and sleeps all day.")
    article(articles, "Three", "A garden with roses.")
    assert sorted(titles(reader, "quick fox")) == ["One", "Two"]
    assert titles(reader, '"quick fox"') == ["One"]
    assert titles(reader, "fox -jumps") == ["Two"]
    assert titles(reader, 'fox -"fox jumps"') == ["Two"]
    assert sorted(titles(reader, "jumps or roses")) == ["One", "Three"]
    # `or` binds looser than the implied AND: (sleeps AND fox) OR roses.
    assert sorted(titles(reader, "sleeps fox or roses")) == ["Three", "Two"]
    # Alternatives with nothing required match nothing rather than everything.
    assert titles(reader, "-fox") == []
    assert titles(reader, "roses or -fox") == ["Three"]


def test_stemming_finds_other_forms_of_a_word(reader, articles):
    article(articles, "Daily", "They run every day.")
    article(articles, "Weekly", "She runs on Sundays.")
    assert sorted(titles(reader, "running")) == ["Daily", "Weekly"]
    assert sorted(titles(reader, "run")) == ["Daily", "Weekly"]


def test_accents_and_case_do_not_matter(reader, articles):
    article(articles, "Le Café", "Un crème brûlée, s'il vous plaît.")
    article(articles, "Cafe racer", "A motorcycle.")
    assert sorted(titles(reader, "cafe")) == ["Cafe racer", "Le Café"]
    assert sorted(titles(reader, "CAFÉ")) == ["Cafe racer", "Le Café"]
    assert titles(reader, "creme brulee") == ["Le Café"]


def test_words_with_digits_ignore_accents_too(reader, articles):
    # Issue 17: PostgreSQL's parser types words of letters and digits apart (numword …), and those skipped unaccent.
    article(articles, "Café2024 menu", "Served at the diaé15x stand.")
    article(articles, "Cafe racer", "A motorcycle from 2024.")
    assert titles(reader, "cafe2024") == ["Café2024 menu"]
    assert titles(reader, "CAFÉ2024") == ["Café2024 menu"]
    assert titles(reader, "diae15x") == ["Café2024 menu"]


@pytest.mark.requires_postgres
def test_the_migration_reindexes_documents_indexed_without_unaccent_on_words_with_digits(reader, articles):
    call_command("migrate", "search", "0005", verbosity=0)
    article(articles, "Café2024 menu", "Served at the diaé15x stand.")
    article(articles, "Plain 2024", "Nothing accented here.")
    assert titles(reader, "cafe2024") == []

    call_command("migrate", "search", verbosity=0)

    assert titles(reader, "cafe2024") == ["Café2024 menu"]
    assert titles(reader, "diae15x") == ["Café2024 menu"]
    assert titles(reader, "plain") == ["Plain 2024"]


def test_snippets_mark_the_matches(reader, articles):
    article(articles, "Soup", "Start with onions.", "Then add the carrots and the celery, and let it simmer.")
    [hit] = search(reader, "carrots")["results"]
    assert "<mark>carrots</mark>" in hit["snippet"]
    assert hit["snippet"].count("<mark>") == hit["snippet"].count("</mark>") == 1


def test_snippets_are_escaped_html_except_the_marks(reader, articles):
    article(
        articles,
        "<b>Bold</b> title",
        'Running: <script>alert("owned")</script> and <img src=x onerror=alert(1)> & friends.',
    )
    [hit] = search(reader, "running")["results"]
    snippet = hit["snippet"]
    assert "<script" not in snippet and "<img" not in snippet and "<b>" not in snippet
    assert "&lt;script&gt;alert(&quot;owned&quot;)&lt;/script&gt;" in snippet
    assert "&lt;img src=x onerror=alert(1)&gt; &amp; friends" in snippet
    assert "<mark>Running</mark>" in snippet
    # Titles are plain text, shown as stored.
    assert hit["title"] == "<b>Bold</b> title"
    # Text that looks like markup is still text: its words are found.
    assert titles(reader, "script") == ["<b>Bold</b> title"]
    assert titles(reader, "onerror") == ["<b>Bold</b> title"]


def test_content_cannot_forge_a_mark(reader, articles):
    article(articles, "Forge", "Before \ue000evil\ue001 after, running.")
    [hit] = search(reader, "running")["results"]
    assert hit["snippet"].count("<mark>") == 1 and "<mark>running</mark>" in hit["snippet"]


def test_what_is_indexed(reader, articles):
    """Searchable fields of every text type and Portable Text's text (spans, image alt and caption, code); not the
    fields that are not searchable."""
    make_entry(
        articles,
        {
            "title": "Everything",
            "summary": "A summary about otters.",
            "category": "sport",
            "note": "internal badgers",
            "views": 12345,
            "body": [
                *pt("A paragraph about herons."),
                {
                    "_type": "image",
                    "url": "https://example.com/k.png",
                    "alt": "a kingfisher",
                    "caption": "by the pond",
                },
                {"_type": "code", "code": "print('salamander')", "language": "python"},
            ],
        },
        status="published",
    )
    for word in ("otters", "sport", "herons", "kingfisher", "pond", "salamander", "everything"):
        assert titles(reader, word) == ["Everything"], word
    for word in ("badgers", "12345"):
        assert titles(reader, word) == [], word


def test_without_a_title_field_the_first_searchable_string_field_titles_entries(reader):
    recipes = make_collection(
        "recipes",
        supports=["search"],
        fields=[
            {"slug": "code", "type": "string"},
            {"slug": "name", "type": "string", "searchable": True},
            {"slug": "tagline", "type": "string", "searchable": True},
        ],
    )
    entry = make_entry(
        recipes, {"code": "R1", "name": "Lemon tart", "tagline": "Sharp and sweet"}, status="published"
    )
    [hit] = search(reader, "lemon")["results"]
    assert (hit["id"], hit["title"], hit["collection"]) == (entry.pk, "Lemon tart", "recipes")
    assert "<mark>" in search(reader, "sweet")["results"][0]["snippet"]
    assert titles(reader, "R1") == []


def test_collections_without_search_are_not_indexed(reader, articles):
    plain = make_articles("plain", supports=["drafts"])
    article(plain, "Hidden otters", "Otters everywhere.")
    article(articles, "Visible otters", "Otters here.")
    assert titles(reader, "otters") == ["Visible otters"]
    assert not SearchDocument.objects.filter(collection=plain).exists()


def test_trashed_entries_are_never_found(reader, editor, articles):
    entry = article(articles, "Otters", "Otters everywhere.")
    content.entry_trash(actor=Actor.system(), entry=entry)
    assert titles(reader, "otters") == []
    assert titles(editor, "otters", status="draft") == []


# --- status and drafts ------------------------------------------------------------------------------------------------


def test_published_is_what_the_public_sees_and_draft_what_editors_see(reader, editor, articles):
    live = article(articles, "Riverside", "The published text about otters.")
    content.entry_update(actor=Actor.system(), entry=live, data={"body": pt("A new draft about beavers.")})
    article(articles, "Draft only", "Unpublished beavers.", status="draft")
    assert titles(reader, "otters") == ["Riverside"]
    assert titles(reader, "beavers") == []
    assert titles(editor, "otters") == ["Riverside"]
    assert titles(editor, "otters", status="draft") == []
    assert sorted(titles(editor, "beavers", status="draft")) == ["Draft only", "Riverside"]


def test_unpublished_and_scheduled_entries_are_not_public(reader, editor, articles):
    from datetime import timedelta

    from apps.core.timefmt import now

    gone = article(articles, "Unpublished otters", "Otters.")
    later = article(articles, "Scheduled otters", "Otters.", status="draft")
    content.entry_unpublish(actor=Actor.system(), entry=gone)
    content.entry_schedule(actor=Actor.system(), entry=later, scheduled_at=now() + timedelta(days=1))
    assert titles(reader, "otters") == []
    assert sorted(titles(editor, "otters", status="draft")) == ["Scheduled otters", "Unpublished otters"]


def test_searching_drafts_needs_drafts_access(reader, articles, api):
    response = reader.get(SEARCH, {"q": "otters", "status": "draft"})
    assert response.status_code == 403
    assert error_of(response) == {
        "code": "FORBIDDEN",
        "message": "Only published entries are visible to you: searching drafts needs the contributor role or higher.",
        "details": {"status": "Only 'published' is available to you."},
    }
    response = api.get(SEARCH, {"q": "otters"})
    assert response.status_code == 401
    assert error_of(response)["code"] == "UNAUTHORIZED"


def test_searching_needs_the_content_read_scope(client_for, articles):
    writer = client_for(role=Role.EDITOR, scopes=["content:write"])
    response = writer.get(SEARCH, {"q": "otters"})
    assert response.status_code == 403
    assert error_of(response)["message"] == "Insufficient scope: requires content:read."


# --- collections and locale ------------------------------------------------------------------------------------------


def test_the_collections_filter(reader, articles):
    news = make_articles("news")
    make_articles("plain", supports=["drafts"])
    article(articles, "Article otters", "Otters.")
    article(news, "News otters", "Otters.")
    assert sorted(titles(reader, "otters")) == ["Article otters", "News otters"]
    assert titles(reader, "otters", collections="news") == ["News otters"]
    assert sorted(titles(reader, "otters", collections="news, articles")) == ["Article otters", "News otters"]

    response = reader.get(SEARCH, {"q": "otters", "collections": "news,nope,plain"})
    assert response.status_code == 400
    assert error_of(response) == {
        "code": "VALIDATION_ERROR",
        "message": "Unknown collection(s) nope; plain is not searchable (add 'search' to the collection's "
        "supports). Searchable collections: articles, news.",
        "details": {
            "collections": "Unknown collection(s) nope; plain is not searchable (add 'search' to the collection's "
            "supports); searchable: articles, news."
        },
    }


@override_settings(CMS_DEFAULT_LOCALE="en", CMS_LOCALES=["en", "fr", "de"])
def test_the_locale_is_stored_and_filterable(reader, articles):
    english = make_entry(
        articles, {"title": "Otters", "body": pt("Otters in the river.")}, status="published"
    )
    make_entry(
        articles,
        {"title": "Loutres", "body": pt("Otters, ou loutres, dans la rivière.")},
        status="published",
        locale="fr",
        translation_of=english.pk,
    )
    assert sorted(titles(reader, "otters")) == ["Loutres", "Otters"]
    assert titles(reader, "otters", locale="fr") == ["Loutres"]
    assert titles(reader, "riviere", locale="fr") == ["Loutres"]
    response = reader.get(SEARCH, {"q": "otters", "locale": "xx"})
    assert response.status_code == 400
    assert error_of(response)["details"] == {"locale": "Unknown locale 'xx'; configured: en, fr, de."}


# --- validation -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "details"),
    [
        ({}, {"q": "This field is required."}),
        ({"q": ""}, {"q": "Required: the words to search for."}),
        ({"q": "   "}, {"q": "Required: the words to search for."}),
        ({"q": "x" * 501}, {"q": "At most 500 characters (got 501); shorten the query."}),
        ({"q": "otters", "limit": "0"}, {"limit": "Ensure this value is greater than or equal to 1."}),
        ({"q": "otters", "limit": "51"}, {"limit": "Ensure this value is less than or equal to 50."}),
        ({"q": "otters", "status": "scheduled"}, {"status": '"scheduled" is not a valid choice.'}),
        (
            {"q": "otters", "sort": "title"},
            {"sort": "Unknown query parameter; allowed: collections, cursor, limit, locale, q, status."},
        ),
        (
            {"q": "otters", "cursor": "garbage"},
            {
                "cursor": "Malformed or altered cursor: pass the nextCursor of the previous page unchanged, with the same ordering."
            },
        ),
    ],
)
def test_bad_parameters_are_refused(reader, articles, params, details):
    response = reader.get(SEARCH, params)
    assert response.status_code == 400
    assert error_of(response)["details"] == details


def test_a_query_of_exactly_500_characters_is_accepted(reader, articles):
    article(articles, "Otters", "Otters.")
    query = ("otters " * 71).ljust(500)
    assert len(query) == 500
    assert titles(reader, query) == ["Otters"]


# --- pagination -------------------------------------------------------------------------------------------------------


def test_pages_have_no_duplicates_or_gaps_and_follow_score_then_id(reader, articles):
    """Thirty entries with the same text tie on score (ordered by id), three rank above them."""
    tied = [article(articles, f"Entry {n}", "Otters and more otters by the river.") for n in range(30)]
    better = [article(articles, f"Otters {n}", "Otters by the river.") for n in range(3)]
    seen, scores, cursor, pages = [], [], None, 0
    while True:
        params = {"limit": 4, **({"cursor": cursor} if cursor else {})}
        body = search(reader, "otters", **params)
        seen += [hit["id"] for hit in body["results"]]
        scores += [hit["score"] for hit in body["results"]]
        pages += 1
        cursor = body["nextCursor"]
        if cursor is None:
            break
    assert pages == 9
    assert len(seen) == len(set(seen)) == 33
    assert set(seen[:3]) == {entry.pk for entry in better}
    assert seen[3:] == sorted(entry.pk for entry in tied)
    assert scores == sorted(scores, reverse=True)


def test_a_cursor_belongs_to_its_query(reader, articles):
    for n in range(3):
        article(articles, f"Entry {n}", "Otters and beavers.")
    cursor = search(reader, "otters", limit=1)["nextCursor"]
    assert cursor
    assert search(reader, "otters", limit=1, cursor=cursor)["results"]
    for params in (
        {"q": "beavers"},
        {"q": "otters", "status": "draft"},
        {"q": "otters", "collections": "articles"},
    ):
        client = reader if params.get("status") != "draft" else None
        if client is None:
            continue
        response = client.get(SEARCH, {**params, "limit": 1, "cursor": cursor})
        assert response.status_code == 400
        assert list(error_of(response)["details"]) == ["cursor"]


def test_snippets_of_long_texts_are_cut_around_the_first_match(reader, articles):
    filler = " ".join(f"word{n}" for n in range(300))
    article(articles, "Long", f"{filler} the crème brûlée was superb {filler}.")
    article(articles, "Titled kingfisher", f"{filler}.")
    [hit] = search(reader, "creme")["results"]
    snippet = hit["snippet"]
    assert snippet.startswith("… ") and snippet.endswith(" …")
    assert "<mark>crème</mark> brûlée was superb" in snippet
    assert len(snippet.split()) < 45
    # A match in the title only: the snippet is the beginning of the text.
    [hit] = search(reader, "kingfisher")["results"]
    assert hit["snippet"].startswith("word0 word1 word2") and hit["snippet"].endswith(" …")
    assert "<mark>" not in hit["snippet"]


def test_a_snippet_finds_the_match_past_a_word_that_only_starts_like_it(reader, articles):
    # "brunch" holds the beginning of "run" but is no match: the snippet comes from around the real one.
    filler = " ".join(f"word{n}" for n in range(300))
    article(articles, "Mornings", f"A brunch first. {filler} then we run along the river {filler}.")
    [hit] = search(reader, "run")["results"]
    assert "<mark>run</mark> along the river" in hit["snippet"]
    assert "brunch" not in hit["snippet"]
