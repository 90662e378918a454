"""Content and revision tools: each one's success through the tool server, answers equal to REST's, Markdown in and
out, terms and bylines on writes, conflicts and lifecycle errors as ``[CODE]`` tool failures."""

from __future__ import annotations

import json

import pytest

from apps.accounts.models import Role
from apps.accounts.permissions import Actor
from apps.content.models import Entry
from apps.taxonomy import services as taxonomy_services
from tests.factories import make_byline, make_collection, make_entry, make_user

BODY_MD = "# Hello\n\nSome *emphasis* and a [link](https://example.com).\n\n- one\n- two\n"


@pytest.fixture
def articles():
    collection = make_collection(
        "articles",
        supports=["drafts", "revisions", "scheduling"],
        fields=[
            {"slug": "title", "type": "string", "required": True},
            {"slug": "body", "type": "portableText"},
        ],
    )
    taxonomy_services.taxonomy_create(
        actor=Actor.system(), name="category", label="Categories", collections=["articles"]
    )
    return collection


@pytest.fixture
def news():
    from apps.taxonomy.selectors import taxonomy_get

    return taxonomy_services.term_create(
        actor=Actor.system(), taxonomy=taxonomy_get(name="category"), label="News"
    )


def test_get_answers_what_rest_answers(admin_mcp, admin_api, articles, news):
    entry = make_entry(articles, {"title": "Hi"}, status="published")
    value = admin_mcp.ok("content_get", {"collection": "articles", "id": entry.pk})
    rest = admin_api.get(f"/_cms/api/content/articles/{entry.pk}").json()["data"]
    assert value == rest
    assert value["_rev"] == Entry.objects.get(pk=entry.pk).rev
    by_slug = admin_mcp.ok("content_get", {"collection": "articles", "id": entry.slug})
    assert by_slug == rest


def test_get_shows_the_entrys_metadata_to_editors_only(admin_mcp, mcp_for, articles):
    meta = {
        "import": {"sourceId": 7, "sticky": True},
        "_importError": {"message": "broken", "content": "<p>"},
    }
    entry = make_entry(articles, {"title": "Hi"}, status="published", meta=meta)

    value = admin_mcp.ok("content_get", {"collection": "articles", "id": entry.pk})
    assert value["item"]["meta"] == meta
    markdown = admin_mcp.ok("content_get", {"collection": "articles", "id": entry.pk, "format": "markdown"})
    assert markdown["item"]["meta"] == meta
    assert "meta" not in admin_mcp.ok("content_list", {"collection": "articles"})["items"][0]
    reader = mcp_for(role=Role.SUBSCRIBER, scopes=("content:read",))
    assert "meta" not in reader.ok("content_get", {"collection": "articles", "id": entry.pk})["item"]


def test_list_answers_what_rest_answers(admin_mcp, admin_api, articles):
    for number in range(3):
        make_entry(articles, {"title": f"Post {number}"})
    # The full format answers what REST answers; the default is compact (tests/mcp/test_compact_answers.py).
    first = admin_mcp.ok("content_list", {"collection": "articles", "limit": 2, "format": "portableText"})
    rest = admin_api.get("/_cms/api/content/articles?limit=2").json()["data"]
    assert first == rest
    assert len(first["items"]) == 2
    second = admin_mcp.ok(
        "content_list", {"collection": "articles", "limit": 2, "cursor": first["nextCursor"]}
    )
    assert [item["data"]["title"] for item in second["items"]] == ["Post 0"]
    assert second["nextCursor"] is None
    ordered = admin_mcp.ok(
        "content_list", {"collection": "articles", "orderBy": "updated_at", "order": "asc"}
    )
    assert [item["data"]["title"] for item in ordered["items"]] == ["Post 0", "Post 1", "Post 2"]


def test_create_takes_markdown_terms_and_bylines_and_get_gives_markdown_back(admin_mcp, articles, news):
    byline = make_byline("Grace Hopper")
    created = admin_mcp.ok(
        "content_create",
        {
            "collection": "articles",
            "data": {"title": "Hello world", "body": BODY_MD},
            "taxonomies": {"category": ["news"]},
            "bylines": [{"bylineId": byline.pk, "roleLabel": "Words"}],
        },
    )
    item = created["item"]
    assert item["slug"] == "hello-world"
    assert item["status"] == "draft"
    assert item["terms"] == {"category": [{"id": news.pk, "slug": "news", "label": "News", "parentId": None}]}
    assert [(credit["bylineId"], credit["roleLabel"]) for credit in item["bylines"]] == [(byline.pk, "Words")]
    blocks = item["data"]["body"]
    assert [block.get("style") for block in blocks] == ["h1", "normal", "normal", "normal"]
    assert [block.get("listItem") for block in blocks] == [None, None, "bullet", "bullet"]
    markdown = admin_mcp.ok("content_get", {"collection": "articles", "id": item["id"], "format": "markdown"})
    assert markdown["item"]["data"]["body"] == BODY_MD
    listed = admin_mcp.ok("content_list", {"collection": "articles", "format": "markdown"})
    assert listed["items"][0]["data"]["body"] == BODY_MD


def test_list_filters_by_terms(admin_mcp, articles, news):
    tagged = admin_mcp.ok(
        "content_create",
        {"collection": "articles", "data": {"title": "Tagged"}, "taxonomies": {"category": ["news"]}},
    )["item"]
    admin_mcp.ok("content_create", {"collection": "articles", "data": {"title": "Plain"}})
    listed = admin_mcp.ok("content_list", {"collection": "articles", "terms": {"category": ["news"]}})
    assert [item["id"] for item in listed["items"]] == [tagged["id"]]
    text, _ = admin_mcp.fails("content_list", {"collection": "articles", "terms": {"nope": ["x"]}})
    assert text.startswith("[VALIDATION_ERROR] ")


def test_unknown_terms_are_refused_and_nothing_is_created(admin_mcp, articles):
    text, error = admin_mcp.fails(
        "content_create",
        {"collection": "articles", "data": {"title": "T"}, "taxonomies": {"category": ["nope"]}},
    )
    assert text.startswith("[VALIDATION_ERROR] taxonomies.category.0: No term 'nope' in 'category'")
    assert error["code"] == "VALIDATION_ERROR"
    assert Entry.objects.count() == 0


def test_update_with_rev_detects_conflicts(admin_mcp, articles, news):
    entry = make_entry(articles, {"title": "One"})
    read = admin_mcp.ok("content_get", {"collection": "articles", "id": entry.pk})
    updated = admin_mcp.ok(
        "content_update",
        {
            "collection": "articles",
            "id": entry.pk,
            "data": {"body": "Plain **bold**"},
            "_rev": read["_rev"],
            "taxonomies": {"category": ["news"]},
        },
    )
    assert updated["item"]["data"]["title"] == "One"
    assert updated["item"]["data"]["body"][0]["children"][1]["marks"] == ["strong"]
    assert [term["slug"] for term in updated["item"]["terms"]["category"]] == ["news"]
    text, error = admin_mcp.fails(
        "content_update",
        {"collection": "articles", "id": entry.pk, "data": {"title": "Two"}, "_rev": read["_rev"]},
    )
    assert text.startswith("[CONFLICT] The entry changed since you read it")
    assert error["details"] == {"currentRev": updated["_rev"]}


def test_validation_failures_name_every_field(admin_mcp, articles):
    text, error = admin_mcp.fails("content_create", {"collection": "articles", "data": {"colour": "red"}})
    assert text.splitlines()[0].startswith("[VALIDATION_ERROR] ")
    assert set(error["details"]) == {"colour", "title"}
    assert len(text.splitlines()) == 3


def test_not_found_is_a_tool_failure(admin_mcp, articles):
    text, error = admin_mcp.fails("content_get", {"collection": "articles", "id": "missing"})
    assert text == "[NOT_FOUND] No entry 'missing' in 'articles'."
    assert error == {"code": "NOT_FOUND", "message": "No entry 'missing' in 'articles'.", "details": {}}
    text, _ = admin_mcp.fails("content_list", {"collection": "nope"})
    assert text.startswith("[NOT_FOUND] ")


def test_lifecycle(admin_mcp, articles):
    entry = make_entry(articles, {"title": "Life"})
    target = {"collection": "articles", "id": entry.pk}
    assert admin_mcp.ok("content_publish", target)["item"]["status"] == "published"
    admin_mcp.ok("content_update", {**target, "data": {"title": "Changed"}})
    compared = admin_mcp.ok("content_compare", target)
    assert compared == {"hasChanges": True, "live": {"title": "Life"}, "draft": {"title": "Changed"}}
    discarded = admin_mcp.ok("content_discard_draft", target)
    assert discarded["item"]["data"] == {"title": "Life"}
    assert admin_mcp.ok("content_unpublish", target)["item"]["status"] == "draft"
    scheduled = admin_mcp.ok("content_schedule", {**target, "scheduledAt": "2099-01-01T10:00:00Z"})
    assert scheduled["item"]["status"] == "scheduled"
    assert scheduled["item"]["scheduledAt"] == "2099-01-01T10:00:00.000Z"
    assert admin_mcp.ok("content_unschedule", target)["item"]["status"] == "draft"
    copy = admin_mcp.ok("content_duplicate", target)["item"]
    assert copy["data"]["title"] == "Life (Copy)"
    assert admin_mcp.ok("content_delete", target) == {"success": True}
    trash = admin_mcp.ok("content_list_trashed", {"collection": "articles"})
    assert [item["id"] for item in trash["items"]] == [entry.pk]
    assert admin_mcp.ok("content_restore", target)["item"]["deletedAt"] is None
    text, _ = admin_mcp.fails("content_permanent_delete", target)
    assert text.startswith("[")  # only entries in the trash can be deleted for good
    admin_mcp.ok("content_delete", target)
    assert admin_mcp.ok("content_permanent_delete", target) == {"success": True}
    assert not Entry.objects.filter(pk=entry.pk).exists()


def test_revisions_list_and_restore(admin_mcp, articles):
    entry = make_entry(articles, {"title": "First"})
    target = {"collection": "articles", "id": entry.pk}
    admin_mcp.ok("content_update", {**target, "data": {"title": "Second"}})
    revisions = admin_mcp.ok("revision_list", {**target, "limit": 1})
    assert revisions["total"] == 2
    assert revisions["items"][0]["changedFields"] == ["title"]
    older = admin_mcp.ok("revision_list", {**target, "cursor": revisions["nextCursor"]})["items"][0]
    assert admin_mcp.ok("revision_get", {"revisionId": older["id"]})["data"] == {"title": "First"}
    restored = admin_mcp.ok("revision_restore", {"revisionId": older["id"]})
    assert restored["item"]["data"] == {"title": "First"}
    assert restored["item"]["status"] == "draft"
    text, _ = admin_mcp.fails("revision_restore", {"revisionId": "01ARZ3NDEKTSV4RRFFQ69G5FAV"})
    assert text == "[NOT_FOUND] No revision 01ARZ3NDEKTSV4RRFFQ69G5FAV."


def test_translations(admin_mcp, articles, settings):
    settings.CMS_LOCALES = ["en", "fr"]
    entry = make_entry(articles, {"title": "Hello"})
    french = admin_mcp.ok(
        "content_create",
        {"collection": "articles", "data": {"title": "Bonjour"}, "locale": "fr", "translationOf": entry.pk},
    )["item"]
    answer = admin_mcp.ok("content_translations", {"collection": "articles", "id": entry.pk})
    assert answer["translationGroup"] == entry.translation_group
    assert [item["id"] for item in answer["items"]] == [entry.pk, french["id"]]


def test_readers_see_published_entries_only(mcp_for, articles):
    make_entry(articles, {"title": "Draft"})
    published = make_entry(articles, {"title": "Live"}, status="published")
    reader = mcp_for(Role.SUBSCRIBER, ["content:read"])
    listed = reader.ok("content_list", {"collection": "articles"})
    assert [item["id"] for item in listed["items"]] == [published.pk]
    error = reader.refused("content_compare", {"collection": "articles", "id": published.pk})
    # The tool names its operation (content.read_drafts), so the role is checked before the tool runs.
    assert error == {
        "code": -32600,
        "message": "Insufficient scope: requires the role contributor (20) or higher",
        "data": {"requiredRole": 20},
    }


def test_contributors_cannot_edit_other_peoples_entries(mcp_for, articles):
    entry = make_entry(articles, {"title": "Theirs"}, author=make_user(Role.EDITOR))
    contributor = mcp_for(Role.CONTRIBUTOR, ["content:read", "content:write"])
    error = contributor.refused(
        "content_update", {"collection": "articles", "id": entry.pk, "data": {"title": "x"}}
    )
    assert error["code"] == -32600
    assert error["message"].startswith("Insufficient scope: ")


def test_nul_text_is_refused_naming_its_place(admin_mcp, articles):
    text, error = admin_mcp.fails("content_create", {"collection": "articles", "data": {"title": "a\u0000b"}})
    assert text == "[VALIDATION_ERROR] data.title: Text may not contain the NUL character (\\u0000)."
    assert error["details"] == {"data.title": "Text may not contain the NUL character (\\u0000)."}
    assert Entry.objects.count() == 0


def test_absurdly_nested_arguments_are_refused_not_an_internal_error(admin_mcp):
    make_collection("notes", fields=[("title", "string"), ("extra", "json")])
    nested = json.loads("[" * 900 + "]" * 900)
    text, error = admin_mcp.fails(
        "content_create", {"collection": "notes", "data": {"title": "x", "extra": nested}}
    )
    assert text.startswith("[VALIDATION_ERROR] data.extra.0.0.0")
    assert text.endswith(": Nested more than 64 levels deep.")
    assert list(error["details"]) == ["data.extra" + ".0" * 62]
    shallow = json.loads("[" * 40 + "]" * 40)
    created = admin_mcp.ok(
        "content_create", {"collection": "notes", "data": {"title": "y", "extra": shallow}}
    )
    assert created["item"]["data"]["extra"] == shallow
