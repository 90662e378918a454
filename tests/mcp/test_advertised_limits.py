"""What tools/list advertises is what the server enforces: collection and field slugs (63 characters), entry slugs
(80, the longest slug the service keeps), a field's defaultValue has a schema, and content_update is not marked
idempotent (every call writes a revision; a retry with the same _rev is a conflict)."""

from __future__ import annotations

import pytest

from apps.accounts.models import Role

pytestmark = pytest.mark.django_db

COLLECTION_SLUG = 63
ENTRY_SLUG = 80


def _tools(mcp) -> dict[str, dict]:
    return {tool["name"]: tool for tool in mcp.request("tools/list")["result"]["tools"]}


def test_every_collection_slug_argument_advertises_the_enforced_length(admin_mcp):
    advertised = {}
    for name, tool in _tools(admin_mcp).items():
        properties = tool["inputSchema"]["properties"]
        for key in ("collection", "fieldSlug"):
            if key in properties:
                advertised[f"{name}.{key}"] = properties[key]["maxLength"]
        if name.startswith("schema_") and "slug" in properties:
            advertised[f"{name}.slug"] = properties["slug"]["maxLength"]
    assert len(advertised) > 15
    assert {key for key, length in advertised.items() if length != COLLECTION_SLUG} == set()


def test_a_collection_slug_of_the_advertised_length_is_kept_and_one_more_is_refused(admin_mcp):
    longest = "c" * COLLECTION_SLUG
    assert admin_mcp.ok("schema_create_collection", {"slug": longest, "label": "Long"})["slug"] == longest
    text, _ = admin_mcp.fails("schema_create_collection", {"slug": longest + "c", "label": "Longer"})
    assert text == "[VALIDATION_ERROR] slug: Ensure this field has no more than 63 characters."
    field = "f" * COLLECTION_SLUG
    made = admin_mcp.ok(
        "schema_create_field", {"collection": longest, "slug": field, "label": "F", "type": "string"}
    )
    assert made["slug"] == field
    text, _ = admin_mcp.fails(
        "schema_create_field", {"collection": longest, "slug": field + "f", "label": "F", "type": "string"}
    )
    assert text == "[VALIDATION_ERROR] slug: Ensure this field has no more than 63 characters."
    text, _ = admin_mcp.fails("content_list", {"collection": longest + "c"})
    assert text == "[VALIDATION_ERROR] collection: Ensure this field has no more than 63 characters."


def test_an_entry_slug_of_the_advertised_length_is_kept_whole_and_one_more_is_refused(admin_mcp):
    tools = _tools(admin_mcp)
    assert tools["content_create"]["inputSchema"]["properties"]["slug"]["maxLength"] == ENTRY_SLUG
    assert tools["content_update"]["inputSchema"]["properties"]["slug"]["maxLength"] == ENTRY_SLUG
    admin_mcp.ok("schema_create_collection", {"slug": "notes", "label": "Notes"})
    admin_mcp.ok(
        "schema_create_field", {"collection": "notes", "slug": "title", "label": "T", "type": "string"}
    )
    slug = "s" * ENTRY_SLUG
    entry = admin_mcp.ok("content_create", {"collection": "notes", "data": {"title": "x"}, "slug": slug})
    assert entry["item"]["slug"] == slug
    text, _ = admin_mcp.fails(
        "content_create", {"collection": "notes", "data": {"title": "x"}, "slug": slug + "s"}
    )
    assert text == "[VALIDATION_ERROR] slug: Ensure this field has no more than 80 characters."
    text, _ = admin_mcp.fails(
        "content_update", {"collection": "notes", "id": entry["item"]["id"], "slug": slug + "s"}
    )
    assert text == "[VALIDATION_ERROR] slug: Ensure this field has no more than 80 characters."


def test_default_value_has_a_schema(admin_mcp):
    tools = _tools(admin_mcp)
    for name in ("schema_create_field",):
        assert tools[name]["inputSchema"]["properties"]["defaultValue"] == {
            "description": "The value new entries get when none is given.",
            "type": ["string", "number", "integer", "boolean", "object", "array", "null"],
        }
    admin_mcp.ok("schema_create_collection", {"slug": "notes", "label": "Notes"})
    made = admin_mcp.ok(
        "schema_create_field",
        {"collection": "notes", "slug": "count", "label": "Count", "type": "integer", "defaultValue": 3},
    )
    assert made["defaultValue"] == 3


def test_content_update_is_not_marked_idempotent(mcp_for):
    tools = _tools(mcp_for(role=Role.CONTRIBUTOR, scopes=("content:read", "content:write")))
    assert tools["content_update"]["annotations"] == {
        "title": "Update an entry",
        "readOnlyHint": False,
        "destructiveHint": False,
        "idempotentHint": False,
        "openWorldHint": False,
    }
