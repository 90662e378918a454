"""The ``search`` tool: the same hits as ``GET /search``, as {items, nextCursor}, with the same refusals."""

from __future__ import annotations

import pytest

from apps.accounts.models import Role
from tests.factories import make_collection, make_entry


@pytest.fixture
def recipes():
    collection = make_collection(
        "recipes",
        supports=["drafts", "revisions", "search"],
        fields=[("title", "string", {"searchable": True}), ("method", "text", {"searchable": True})],
    )
    make_entry(collection, {"title": "Lemon tart", "method": "Bake the lemon curd."}, status="published")
    make_entry(collection, {"title": "Lemonade", "method": "Squeeze lemons into water."}, status="published")
    make_entry(collection, {"title": "Secret lemon cake", "method": "Not yet."})
    return collection


def test_search_answers_what_rest_answers(admin_mcp, admin_api, recipes):
    first = admin_mcp.ok("search", {"query": "lemon", "limit": 1})
    rest = admin_api.get("/_cms/api/search?q=lemon&limit=1").json()
    assert first == {"items": rest["results"], "nextCursor": rest["nextCursor"]}
    assert len(first["items"]) == 1
    assert "<mark>" in first["items"][0]["snippet"]
    second = admin_mcp.ok("search", {"query": "lemon", "limit": 1, "cursor": first["nextCursor"]})
    assert {first["items"][0]["title"], second["items"][0]["title"]} == {"Lemon tart", "Lemonade"}
    assert second["nextCursor"] is None
    drafts = admin_mcp.ok("search", {"query": "secret", "status": "draft", "collections": ["recipes"]})
    assert [item["title"] for item in drafts["items"]] == ["Secret lemon cake"]
    assert admin_mcp.ok("search", {"query": "secret"}) == {"items": [], "nextCursor": None}


def test_search_refusals(admin_mcp, mcp_for, recipes):
    make_collection("pages", fields=[("title", "string")])
    text, error = admin_mcp.fails("search", {"query": "lemon", "collections": ["pages"]})
    assert text.startswith("[VALIDATION_ERROR] ")
    assert list(error["details"]) == ["collections"]
    text, error = admin_mcp.fails("search", {"query": "lemon", "limit": 51})
    assert error["details"] == {"limit": "Ensure this value is less than or equal to 50."}
    reader = mcp_for(Role.SUBSCRIBER, ["content:read"])
    assert [item["title"] for item in reader.ok("search", {"query": "lemonade"})["items"]] == ["Lemonade"]
    refused = reader.refused("search", {"query": "secret", "status": "draft"})
    assert refused["message"].startswith("Insufficient scope: Only published entries are visible to you")
