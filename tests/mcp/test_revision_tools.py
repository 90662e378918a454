"""Revisions over the tool server (issue 23): ``revision_list`` answers summaries naming the fields each revision
changed, ``revision_get`` one revision whole as REST's ``GET /revisions/:id``; both answers match their declared
``outputSchema``, and the summaries of five revisions are at least three times smaller than the full page."""

from __future__ import annotations

import jsonschema
import orjson
import pytest

from apps.accounts.models import Role
from apps.accounts.permissions import Actor
from apps.content import selectors
from apps.content.models import Revision
from apps.content.presenters import present_revision_page
from apps.core.timefmt import iso
from apps.mcp import registry
from tests.factories import make_collection, make_entry

PARAGRAPHS = (
    "A short post: three paragraphs of a few sentences each, the size of a news item or a note on a blog.",
    "Each revision of it saves every field again, so a list of full revisions repeats the whole text each time; "
    "the summaries name the fields that changed instead.",
    "An agent that wants the text of one revision asks for that one with revision_get.",
)
BODY = [
    {
        "_type": "block",
        "_key": f"b{number}",
        "style": "normal",
        "markDefs": [],
        "children": [{"_type": "span", "_key": f"s{number}", "text": text, "marks": []}],
    }
    for number, text in enumerate(PARAGRAPHS)
]


@pytest.fixture
def articles():
    return make_collection(
        "articles",
        supports=["drafts", "revisions"],
        fields=[
            {"slug": "title", "type": "string", "required": True},
            {"slug": "excerpt", "type": "text"},
            {"slug": "body", "type": "portableText"},
        ],
    )


def conforms(tool_name: str, value: dict) -> dict:
    jsonschema.validate(value, registry.get(tool_name).output_schema)
    return value


def test_revision_list_names_the_fields_each_revision_changed(admin_mcp, articles):
    entry = make_entry(articles, {"title": "One", "body": BODY})
    target = {"collection": "articles", "id": entry.pk}
    admin_mcp.ok("content_update", {**target, "data": {"title": "Two", "excerpt": "Short."}})
    admin_mcp.ok("content_publish", target)
    admin_mcp.ok("content_update", {**target, "data": {"excerpt": None}})
    page = conforms("revision_list", admin_mcp.ok("revision_list", target))
    revisions = list(Revision.objects.filter(entry_id=entry.pk).order_by("-created_at", "-id"))
    assert page == {
        "items": [
            {
                "id": revision.pk,
                "action": revision.action,
                "status": revision.status,
                "authorId": revision.author_id,
                "createdAt": iso(revision.created_at),
                "changedFields": changed,
            }
            for revision, changed in zip(
                revisions, [["excerpt"], [], ["excerpt", "title"], ["body", "title"]], strict=True
            )
        ],
        "nextCursor": None,
        "total": 4,
    }
    assert [item["action"] for item in page["items"]] == ["update", "publish", "update", "create"]
    assert [item["authorId"] for item in page["items"]] == [admin_mcp.user.pk] * 3 + [None]
    # A page's oldest revision is compared with the one before it, on the next page.
    first = admin_mcp.ok("revision_list", {**target, "limit": 2})
    second = admin_mcp.ok("revision_list", {**target, "limit": 2, "cursor": first["nextCursor"]})
    assert first["items"] + second["items"] == page["items"]


def test_revision_get_answers_one_revision_whole_as_rest(admin_mcp, admin_api, articles):
    entry = make_entry(articles, {"title": "One", "body": BODY})
    summary = admin_mcp.ok("revision_list", {"collection": "articles", "id": entry.pk})["items"][0]
    revision = conforms("revision_get", admin_mcp.ok("revision_get", {"revisionId": summary["id"]}))
    assert revision == admin_api.get(f"/_cms/api/revisions/{summary['id']}").json()["data"]
    assert revision == {
        "id": summary["id"],
        "collection": "articles",
        "entryId": entry.pk,
        "data": {"title": "One", "body": BODY},
        "action": "create",
        "status": "draft",
        "authorId": None,
        "createdAt": summary["createdAt"],
    }
    missing = "01ARZ3NDEKTSV4RRFFQ69G5FAV"
    text, error = admin_mcp.fails("revision_get", {"revisionId": missing})
    assert text == f"[NOT_FOUND] No revision {missing}."
    assert error == {"code": "NOT_FOUND", "message": f"No revision {missing}.", "details": {}}
    _, error = admin_mcp.fails("revision_get", {})
    assert error["details"] == {"revisionId": "This field is required."}


def test_revisions_need_drafts_access(mcp_for, articles):
    entry = make_entry(articles, {"title": "One"})
    revision_id = Revision.objects.get(entry_id=entry.pk).pk
    reader = mcp_for(Role.SUBSCRIBER, ["content:read"])
    for name, arguments in (
        ("revision_get", {"revisionId": revision_id}),
        ("revision_list", {"collection": "articles", "id": entry.pk}),
    ):
        assert reader.refused(name, arguments) == {
            "code": -32600,
            "message": "Insufficient scope: requires the role contributor (20) or higher",
            "data": {"requiredRole": Role.CONTRIBUTOR},
        }
    assert mcp_for(Role.ADMIN, ["media:read"]).refused("revision_get", {"revisionId": revision_id}) == {
        "code": -32600,
        "message": "Insufficient scope: requires content:read",
        "data": {"requiredScope": "content:read"},
    }
    contributor = mcp_for(Role.CONTRIBUTOR, ["content:read"])
    assert contributor.ok("revision_get", {"revisionId": revision_id})["id"] == revision_id


def test_five_revisions_summarised_are_at_least_three_times_smaller(admin_mcp, articles):
    entry = make_entry(articles, {"title": "A short post", "excerpt": "Its excerpt.", "body": BODY})
    target = {"collection": "articles", "id": entry.pk}
    for number in range(1, 4):
        admin_mcp.ok("content_update", {**target, "data": {"title": f"A short post, take {number}"}})
    admin_mcp.ok("content_publish", target)
    summaries = admin_mcp.call("revision_list", target)["result"]["content"][0]["text"]
    # What the tool answered before issue 23: the REST page, every revision with its data.
    page, total = selectors.revision_list(actor=Actor.system(), collection=articles, ref=entry.pk, limit=20)
    full = orjson.dumps(present_revision_page(page, total, collection_slug="articles")).decode()
    assert total == 5
    assert len(full.encode()) >= 3 * len(summaries.encode())
