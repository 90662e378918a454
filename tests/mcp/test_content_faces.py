"""REST and the tool server read the same input model for each content operation, so the same input gets the same
answer through either: the refusals that used to differ (blank text, cursor length, revision page size, dates without
an offset or as numbers) and the arguments only one face took (publishedAt on publish)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from apps.accounts.models import Role
from apps.content.models import Entry
from apps.core.timefmt import iso, now
from apps.mcp import registry
from tests.factories import make_collection, make_entry

CONTENT = "/_cms/api/content/articles"


@pytest.fixture
def articles():
    return make_collection(
        "articles",
        supports=["drafts", "revisions", "scheduling"],
        fields=[{"slug": "title", "type": "string", "required": True}],
    )


@pytest.fixture
def entry(articles):
    return make_entry(articles, {"title": "Hello"})


def rest_error(response, status: int = 400) -> dict:
    assert response.status_code == status, response.json()
    return response.json()["error"]


def tool_error(mcp, name: str, arguments: dict) -> dict:
    _, error = mcp.fails(name, arguments)
    return error


@pytest.mark.parametrize(
    ("query", "details"),
    [
        ({"locale": " "}, {"locale": "This field may not be blank."}),
        ({"orderBy": ""}, {"orderBy": "This field may not be blank."}),
        ({"cursor": ""}, {"cursor": "This field may not be blank."}),
        ({"cursor": "x" * 2001}, {"cursor": "Ensure this field has no more than 2000 characters."}),
        ({"limit": 101}, {"limit": "Ensure this value is less than or equal to 100."}),
    ],
)
def test_a_list_query_is_refused_alike(admin_api, admin_mcp, articles, query, details):
    rest = rest_error(admin_api.get(CONTENT, query))
    assert rest["details"] == details
    assert tool_error(admin_mcp, "content_list", {"collection": "articles", **query}) == rest


def test_a_long_cursor_reaches_the_cursor_check_on_both_faces(admin_api, admin_mcp, articles):
    # MCP refused cursors over 1000 characters before looking at them; REST allowed 2000.
    cursor = "x" * 1500
    rest = rest_error(admin_api.get(CONTENT, {"cursor": cursor}))
    assert tool_error(admin_mcp, "content_list", {"collection": "articles", "cursor": cursor}) == rest
    assert list(rest["details"]) == ["cursor"]


@pytest.mark.parametrize(
    ("body", "details"),
    [
        ({"data": {"title": "x"}, "translationOf": " "}, {"translationOf": "This field may not be blank."}),
        ({"data": {"title": "x"}, "locale": ""}, {"locale": "This field may not be blank."}),
        (
            {"data": {"title": "x"}, "bylines": [{"bylineId": ""}]},
            {"bylines.0.bylineId": "This field may not be blank."},
        ),
    ],
)
def test_a_create_is_refused_alike(admin_api, admin_mcp, articles, body, details):
    rest = rest_error(admin_api.post(CONTENT, body, format="json"))
    assert rest["details"] == details
    assert tool_error(admin_mcp, "content_create", {"collection": "articles", **body}) == rest
    assert not Entry.objects.exists()


def test_a_blank_rev_is_refused_alike(admin_api, admin_mcp, entry):
    # MCP used to take "" and answer CONFLICT, as no _rev is ever blank.
    rest = rest_error(admin_api.patch(f"{CONTENT}/{entry.pk}", {"_rev": ""}, format="json"))
    assert rest["details"] == {"_rev": "This field may not be blank."}
    assert (
        tool_error(admin_mcp, "content_update", {"collection": "articles", "id": entry.pk, "_rev": ""})
        == rest
    )


def test_revision_pages_have_the_same_bounds(admin_api, admin_mcp, entry):
    rest = rest_error(admin_api.get(f"{CONTENT}/{entry.pk}/revisions", {"limit": 51}))
    assert rest["details"] == {"limit": "Ensure this value is less than or equal to 50."}
    assert (
        tool_error(admin_mcp, "revision_list", {"collection": "articles", "id": entry.pk, "limit": 51})
        == rest
    )


def test_publish_takes_a_backdated_publication_on_both_faces(admin_api, admin_mcp, articles):
    when = iso(now().replace(microsecond=0) - timedelta(days=3))
    first, second = make_entry(articles, {"title": "One"}), make_entry(articles, {"title": "Two"})
    rest = admin_api.post(f"{CONTENT}/{first.pk}/publish", {"publishedAt": when}, format="json")
    assert rest.status_code == 200
    tool = admin_mcp.ok("content_publish", {"collection": "articles", "id": second.pk, "publishedAt": when})
    assert rest.json()["data"]["item"]["publishedAt"] == tool["item"]["publishedAt"] == when
    # A moment ahead is for scheduling, on either face.
    ahead = iso(now() + timedelta(days=1))
    refused = rest_error(
        admin_api.post(f"{CONTENT}/{first.pk}/publish", {"publishedAt": ahead}, format="json")
    )
    assert refused["details"] == {
        "publishedAt": f"{ahead} is in the future; schedule the entry instead (…/schedule)."
    }
    assert (
        tool_error(
            admin_mcp, "content_publish", {"collection": "articles", "id": first.pk, "publishedAt": ahead}
        )
        == refused
    )


def test_a_schedule_without_an_offset_is_in_the_site_time_zone_on_both_faces(admin_api, admin_mcp, articles):
    # MCP kept the time naive and failed comparing it with the current time (an internal error); REST read it as UTC.
    first, second = make_entry(articles, {"title": "One"}), make_entry(articles, {"title": "Two"})
    rest = admin_api.post(
        f"{CONTENT}/{first.pk}/schedule", {"scheduledAt": "2099-01-31T10:00:00"}, format="json"
    )
    assert rest.status_code == 200, rest.json()
    tool = admin_mcp.ok(
        "content_schedule", {"collection": "articles", "id": second.pk, "scheduledAt": "2099-01-31T10:00:00"}
    )
    assert (
        rest.json()["data"]["item"]["scheduledAt"]
        == tool["item"]["scheduledAt"]
        == "2099-01-31T10:00:00.000Z"
    )


@pytest.mark.parametrize("when", [4102444800, "4102444800", "next week"])
def test_a_schedule_must_be_iso_8601_text_on_both_faces(admin_api, admin_mcp, entry, when):
    # MCP read a number as seconds since 1970; REST refused it.
    rest = rest_error(admin_api.post(f"{CONTENT}/{entry.pk}/schedule", {"scheduledAt": when}, format="json"))
    assert rest["details"] == {
        "scheduledAt": "Datetime has wrong format. Use one of these formats instead: "
        "YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z]."
    }
    assert (
        tool_error(
            admin_mcp, "content_schedule", {"collection": "articles", "id": entry.pk, "scheduledAt": when}
        )
        == rest
    )


def test_a_tool_needs_the_role_its_endpoint_needs(client_for, mcp_for, articles):
    # content_publish took any content:write token up to the service, which answered NOT_FOUND for a missing entry
    # before looking at the role; REST refused the contributor first. Both now check content.publish first.
    missing = "01ARZ3NDEKTSV4RRFFQ69G5FAV"
    response = client_for(Role.CONTRIBUTOR, ["content:read", "content:write"]).post(
        f"{CONTENT}/{missing}/publish"
    )
    assert response.status_code == 403
    assert response.json()["error"]["details"] == {"requiredRole": Role.AUTHOR}
    error = mcp_for(Role.CONTRIBUTOR, ["content:read", "content:write"]).refused(
        "content_publish", {"collection": "articles", "id": missing}
    )
    assert error == {
        "code": -32600,
        "message": "Insufficient scope: requires the role author (30) or higher",
        "data": {"requiredRole": Role.AUTHOR},
    }


def test_content_tools_take_their_rule_from_the_permission_table():
    tools = [tool for tool in registry.builtin_tools() if tool.name.split("_")[0] in ("content", "revision")]
    assert len(tools) == 20
    assert [tool.name for tool in tools if tool.operation is None or tool.declared_scope is not None] == []
