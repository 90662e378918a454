"""Media, section, settings and search operations read one input model and one permission rule on both faces: the
same bad input gets the same problem through REST and MCP, and a tool needs the role its REST endpoint needs
(issue 18: these differed before)."""

from __future__ import annotations

import pytest

from apps.accounts.models import Role
from apps.mcp import registry
from tests.factories import make_collection, make_media, make_token, make_user
from tests.mcp.wire import MODERN, McpClient


def rest_problems(response) -> dict:
    assert response.status_code == 400, response.json()
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    return error["details"]


def tool_problems(mcp, name: str, arguments: dict) -> dict:
    text, error = mcp.fails(name, arguments)
    assert text.startswith("[VALIDATION_ERROR] ")
    return error["details"]


@pytest.fixture
def searchable():
    return make_collection(
        "notes", supports=["drafts", "search"], fields=[("title", "string", {"searchable": True})]
    )


# (REST path with its query string, tool, tool arguments): the same list read through each face.
LISTS = [
    ("/_cms/api/media?", "media_list", {}),
    ("/_cms/api/sections?", "section_list", {}),
    ("/_cms/api/search?q=lemon&", "search", {"query": "lemon"}),
]


@pytest.mark.parametrize(("path", "tool", "arguments"), LISTS, ids=[case[1] for case in LISTS])
@pytest.mark.parametrize(
    ("cursor", "problem"),
    [
        ("x" * 2001, "Ensure this field has no more than 2000 characters."),
        # Over the tools' old 1000-character limit: now the page reader's own refusal, as on REST.
        ("x" * 1500, None),
    ],
    ids=["too-long", "long-but-allowed"],
)
def test_cursors_are_checked_alike(admin_api, admin_mcp, searchable, path, tool, arguments, cursor, problem):
    rest = rest_problems(admin_api.get(f"{path}cursor={cursor}"))
    assert tool_problems(admin_mcp, tool, {**arguments, "cursor": cursor}) == rest
    if problem is not None:
        assert rest == {"cursor": problem}
    else:
        assert list(rest) == ["cursor"] and "characters" not in rest["cursor"]


BLANK = "This field may not be blank."


def test_blank_values_are_refused_alike(admin_api, admin_mcp, searchable):
    assert rest_problems(admin_api.get("/_cms/api/media?mimeType=")) == {"mimeType": BLANK}
    assert tool_problems(admin_mcp, "media_list", {"mimeType": ""}) == {"mimeType": BLANK}

    assert rest_problems(admin_api.put("/_cms/api/settings", {"timezone": ""}, format="json")) == {
        "timezone": BLANK
    }
    assert tool_problems(admin_mcp, "settings_update", {"timezone": ""}) == {"timezone": BLANK}

    body = {"title": "Note", "slug": " "}
    assert rest_problems(admin_api.post("/_cms/api/sections", body, format="json")) == {"slug": BLANK}
    assert tool_problems(admin_mcp, "section_create", body) == {"slug": BLANK}

    assert rest_problems(admin_api.get("/_cms/api/search?q=lemon&locale=")) == {"locale": BLANK}
    assert tool_problems(admin_mcp, "search", {"query": "lemon", "locale": ""}) == {"locale": BLANK}


@pytest.mark.parametrize(
    ("query", "problem"),
    [
        ("   ", "Required: the words to search for."),
        ("x" * 501, "At most 500 characters (got 501); shorten the query."),
    ],
    ids=["blank", "too-long"],
)
def test_the_search_query_is_checked_alike(admin_api, admin_mcp, searchable, query, problem):
    # SPEC names it q on REST and query on the tool; the selector words the problem.
    assert rest_problems(admin_api.get("/_cms/api/search", {"q": query})) == {"q": problem}
    assert tool_problems(admin_mcp, "search", {"query": query}) == {"query": problem}


def test_section_content_is_checked_alike(admin_api, admin_mcp):
    # The tool also takes Markdown, converted while its arguments are parsed; blocks are checked as REST checks them.
    body = {"title": "Note", "content": ["x"]}
    expected = {"content.0": 'Expected a dictionary of items but got type "str".'}
    assert rest_problems(admin_api.post("/_cms/api/sections", body, format="json")) == expected
    assert tool_problems(admin_mcp, "section_create", body) == expected


def test_a_too_long_alt_text_is_refused_alike(admin_api, admin_mcp):
    item = make_media()
    expected = {"alt": "Ensure this field has no more than 1000 characters."}
    assert (
        rest_problems(admin_api.patch(f"/_cms/api/media/{item.pk}", {"alt": "a" * 1001}, format="json"))
        == expected
    )
    assert tool_problems(admin_mcp, "media_update", {"id": item.pk, "alt": "a" * 1001}) == expected


def test_sections_are_listed_by_source_on_both_faces(admin_api, admin_mcp):
    admin_mcp.ok("section_create", {"title": "Made here"})
    imported = admin_mcp.ok("section_create", {"title": "Brought in", "source": "import"})
    assert imported["source"] == "import"
    listed = admin_mcp.ok("section_list", {"source": "import"})
    assert [item["slug"] for item in listed["items"]] == ["brought-in"]
    assert listed == admin_api.get("/_cms/api/sections?source=import").json()["data"]
    choice = {"source": '"other" is not a valid choice.'}
    assert rest_problems(admin_api.get("/_cms/api/sections?source=other")) == choice
    assert tool_problems(admin_mcp, "section_list", {"source": "other"}) == choice


def test_creating_a_section_needs_an_editor_on_both_faces(client_for, mcp_for):
    body = {"title": "Note"}
    response = client_for(Role.AUTHOR, ["content:write"]).post("/_cms/api/sections", body, format="json")
    assert response.status_code == 403
    assert response.json()["error"]["details"] == {"requiredRole": Role.EDITOR}
    # Refused by the rule before the arguments are read, as REST refuses before the body is.
    for arguments in (body, {}):
        error = mcp_for(Role.AUTHOR, ["content:write"]).refused("section_create", arguments)
        assert error == {
            "code": -32600,
            "message": "Insufficient scope: requires the role editor (40) or higher",
            "data": {"requiredRole": Role.EDITOR},
        }


@pytest.mark.parametrize("tool", ["media_update", "media_delete"])
def test_changing_media_needs_an_author_on_both_faces(client_for, tool):
    item = make_media()
    user = make_user(Role.AUTHOR)
    _, raw = make_token(user, ["media:write"])
    # Tokens never carry a scope beyond their user's role: a demoted author keeps media:write until it is revoked.
    user.role = Role.CONTRIBUTOR
    user.save(update_fields=["role"])
    rest = client_for(Role.ADMIN).as_token(raw)
    response = (
        rest.patch(f"/_cms/api/media/{item.pk}", {"alt": "x"}, format="json")
        if tool == "media_update"
        else rest.delete(f"/_cms/api/media/{item.pk}")
    )
    assert response.status_code == 403
    assert response.json()["error"]["details"] == {"requiredRole": Role.AUTHOR}
    error = McpClient(raw, MODERN).refused(tool, {"id": item.pk})
    assert error == {
        "code": -32600,
        "message": "Insufficient scope: requires the role author (30) or higher",
        "data": {"requiredRole": Role.AUTHOR},
    }


CONVERTED = ["media", "section", "settings", "search"]


def test_these_tools_take_their_rule_from_the_permission_table():
    tools = [tool for tool in registry.builtin_tools() if tool.name.split("_")[0] in CONVERTED]
    # media_usages (apps/content/tools.py) is the eleventh, media_rendition_url (issue 22) the twelfth, section_update
    # and section_delete (issue 23) the thirteenth and fourteenth.
    assert len(tools) == 14
    assert [tool.name for tool in tools if tool.operation is None or tool.declared_scope is not None] == []
