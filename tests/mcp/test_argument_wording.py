"""Every refusal of a tool's arguments, and of a request's params, speaks our wording (apps/core/shapes.py), never
pydantic's ("Input should be a valid dictionary"), whatever wrong type an agent sends wherever in the arguments."""

from __future__ import annotations

import re
from typing import Any

import pytest

from apps.mcp import registry
from tests.mcp.wire import MODERN

PYDANTIC = re.compile(
    r"Input should|Field required|Unable to parse|Value error,|Assertion failed|Extra inputs are not permitted|"
    r"Input tag|Unable to extract|[Ss]hould have (at least|at most)|valid dictionary"
)
WRONG: list[Any] = [{"key": 1}, [1], 1.5, "text", True, 10**30, -(10**30), None, ""]


def _paths(schema: dict, path: tuple = ()) -> list[tuple]:
    """Every place a value can go in an input schema: each property, nested objects' properties, array items."""
    found = [path] if path else []
    for name, sub in (schema.get("properties") or {}).items():
        found += _paths(sub, (*path, name))
    items = schema.get("items")
    if isinstance(items, dict):
        found += _paths(items, (*path, 0))
    return found


def _placed(path: tuple, value: Any) -> Any:
    if not path:
        return value
    head, *rest = path
    inner = _placed(tuple(rest), value)
    return [inner] if head == 0 else {head: inner}


def _texts(message: dict) -> list[str]:
    if "error" in message:
        return [message["error"]["message"]]
    result = message["result"]
    texts = [item["text"] for item in result["content"] if item["type"] == "text"]
    if result.get("isError"):
        error = result["structuredContent"]["error"]
        texts += [error["message"], *(str(value) for value in (error.get("details") or {}).values())]
    return texts


@pytest.mark.django_db
def test_wrong_types_anywhere_in_any_tools_arguments_are_named_in_our_words(admin_mcp, settings):
    settings.CMS_RATE_LIMITS = {**settings.CMS_RATE_LIMITS, "api": "off"}
    leaks = []
    calls = 0
    for tool in registry.builtin_tools():
        for path in _paths(tool.schema):
            for value in WRONG:
                arguments = _placed(path, value)
                for text in _texts(admin_mcp.call(tool.name, arguments)):
                    calls += 1
                    if PYDANTIC.search(text):
                        leaks.append(f"{tool.name} {arguments!r}: {text}")
    assert calls > 1000
    assert leaks == []


@pytest.mark.django_db
@pytest.mark.parametrize("version", ["2025-11-25", MODERN])
def test_wrong_params_of_a_request_are_named_in_our_words(mcp_for, version):
    mcp = mcp_for(version=version)
    status = 400 if version == MODERN else 200
    message = mcp.request("tools/call", {"name": "settings_get", "arguments": "all"}, status=status)
    assert message["error"] == {
        "code": -32602,
        "message": "Invalid params for tools/call: params.arguments: Expected a dictionary of items but got type "
        '"str".',
    }
    message = mcp.request("tools/call", {"arguments": {}}, status=status)
    assert message["error"] == {
        "code": -32602,
        "message": "Invalid params for tools/call: params.name: This field is required.",
    }
    message = mcp.request("tools/list", {"cursor": 5}, status=status)
    assert message["error"] == {
        "code": -32602,
        "message": "Invalid params for tools/list: params.cursor: Not a valid string.",
    }


@pytest.mark.django_db
def test_a_number_too_large_for_an_integer(admin_mcp):
    text, error = admin_mcp.fails("content_list", {"collection": "posts", "limit": 10**30})
    assert text == "[VALIDATION_ERROR] limit: The number is too large."
    assert error["details"] == {"limit": "The number is too large."}
