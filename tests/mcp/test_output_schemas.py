"""Every built-in tool declares an ``outputSchema`` (issue 23): a precise object schema built from its presenter's
output shape, listed from 2025-06-18 on. That every answer matches it is checked on every successful call the tests
make (``McpClient.ok`` and the SDK client's recorder, whose scenario calls every tool: tests/mcp/test_sdk_client.py)."""

from __future__ import annotations

import jsonschema
import pytest

from apps.mcp import registry
from tests.mcp.wire import MODERN

TOOLS = registry.builtin_tools()


def _objects(schema: dict) -> list[dict]:
    return schema.get("anyOf") or schema.get("oneOf") or [schema]


@pytest.mark.parametrize("tool", TOOLS, ids=lambda tool: tool.name)
def test_every_builtin_tool_declares_a_precise_output_schema(tool):
    schema = tool.output_schema
    assert schema is not None, f"{tool.name} needs output=<its presenter's shape> in @tool(...)"
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["type"] == "object"
    for alternative in _objects(schema):
        # Not a bare {"type": "object"}: every answer names its keys, and which of them are always there.
        assert alternative["properties"], tool.name
        assert alternative["required"], tool.name
        assert set(alternative["required"]) <= set(alternative["properties"])


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25", MODERN])
def test_tools_list_carries_the_output_schemas(mcp_for, version):
    listed = mcp_for(version=version).request("tools/list")["result"]["tools"]
    declared = {tool.name: tool.output_schema for tool in TOOLS}
    assert {item["name"]: item.get("outputSchema") for item in listed} == declared


def test_the_2025_03_26_listing_has_no_output_schema(mcp_for):
    listed = mcp_for(version="2025-03-26").request("tools/list")["result"]["tools"]
    assert len(listed) == len(TOOLS)
    assert [item for item in listed if "outputSchema" in item] == []


def test_an_answer_outside_the_declared_schema_is_noticed():
    from tests.mcp.wire import check_output

    with pytest.raises(AssertionError, match="content_get answered outside its outputSchema"):
        check_output("content_get", {"item": {"id": "x"}, "_rev": "1"})
