"""content_list takes the same ``fields`` projection as the REST list (tests/content/test_list_fields.py)."""

from __future__ import annotations

from tests.content.test_list_fields import stories  # noqa: F401 (the fixture)


def test_the_tool_server_takes_the_same_projection(admin_mcp, stories):  # noqa: F811
    listed = admin_mcp.ok("content_list", {"collection": "stories", "fields": ["summary"]})

    assert [item["data"] for item in listed["items"]] == [{}, {"summary": "One"}]
    assert "fields" in admin_mcp.fails("content_list", {"collection": "stories", "fields": ["nope"]})[0]
