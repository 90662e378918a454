"""Per-collection tools (issue 23, behind CMS_MCP_COLLECTION_TOOLS): content_create_<collection> and
content_update_<collection>, whose data argument is the collection's schema, are faces over content_create and
content_update; they follow schema changes at the next tools/list."""

from __future__ import annotations

import jsonschema

from apps.accounts.models import Role
from tests.factories import make_collection
from tests.mcp.wire import MODERN


def _listed(mcp) -> dict[str, dict]:
    return {tool["name"]: tool for tool in mcp.request("tools/list")["result"]["tools"]}


def test_they_are_off_by_default(admin_mcp):
    make_collection("recipes", fields=[("title", "string", {"required": True})])
    assert not [name for name in _listed(admin_mcp) if name.endswith("_recipes")]
    assert admin_mcp.refused("content_create_recipes", {"data": {"title": "Soup"}})["message"].startswith(
        "Unknown tool: content_create_recipes."
    )


def test_each_collection_gets_typed_create_and_update_tools(admin_mcp, settings):
    settings.CMS_MCP_COLLECTION_TOOLS = True
    make_collection(
        "recipes",
        fields=[
            ("title", "string", {"required": True}),
            ("course", "select", {"validation": {"options": ["main"]}}),
        ],
    )
    listed = _listed(admin_mcp)
    create, update = listed["content_create_recipes"], listed["content_update_recipes"]

    data = create["inputSchema"]["properties"]["data"]
    assert data["required"] == ["title"]
    assert data["properties"]["course"] == {"title": "Course", "type": "string", "enum": ["main"]}
    assert "collection" not in create["inputSchema"]["properties"]
    assert create["inputSchema"]["required"] == ["data"]
    assert update["inputSchema"]["properties"]["data"]["required"] == []
    assert update["inputSchema"]["required"] == ["id"]
    assert create["outputSchema"] == listed["content_create"]["outputSchema"]
    jsonschema.Draft202012Validator.check_schema(create["inputSchema"])

    item = admin_mcp.ok("content_create_recipes", {"data": {"title": "Soup", "course": "main"}})["item"]
    assert item["type"] == "recipes"
    changed = admin_mcp.ok("content_update_recipes", {"id": item["id"], "data": {"course": None}})
    assert changed["item"]["data"] == {"title": "Soup"}
    _, error = admin_mcp.fails("content_create_recipes", {"data": {"course": "starter"}})
    assert error["pointers"] == {"course": "/data/course", "title": "/data/title"}
    _, error = admin_mcp.fails("content_create_recipes", {"collection": "other", "data": {}})
    assert error["details"]["collection"].startswith("Unknown argument; allowed: ")


def test_they_follow_the_schema_and_the_permission_table(mcp_for, admin_mcp, settings):
    settings.CMS_MCP_COLLECTION_TOOLS = True
    make_collection("recipes", fields=[("title", "string")])
    assert "content_create_recipes" in _listed(admin_mcp)
    admin_mcp.ok(
        "schema_create_field", {"collection": "recipes", "slug": "notes", "label": "Notes", "type": "text"}
    )
    listed = _listed(mcp_for(version=MODERN))
    assert "notes" in listed["content_create_recipes"]["inputSchema"]["properties"]["data"]["properties"]
    admin_mcp.ok("schema_delete_collection", {"slug": "recipes"})
    assert "content_create_recipes" not in _listed(admin_mcp)

    make_collection("notes", fields=[("title", "string")])
    reader = mcp_for(Role.ADMIN, ["content:read"])
    assert reader.refused("content_create_notes", {"data": {"title": "x"}})["message"] == (
        "Insufficient scope: requires content:write"
    )
