"""Every registered tool, refused the same ways: without its scope (-32600 naming the scope), below its minimum role
(-32600 naming the role), and with an argument it does not declare (a ``[VALIDATION_ERROR]`` naming it)."""

from __future__ import annotations

import pytest

from apps.accounts.models import Role
from apps.mcp import registry
from tests.factories import make_token, make_user
from tests.mcp.wire import MODERN, McpClient

TOOLS = registry.builtin_tools()


def _other_scope(scope: str) -> str:
    return "media:read" if scope != "media:read" else "content:read"


@pytest.mark.parametrize("tool", TOOLS, ids=lambda tool: tool.name)
def test_a_token_without_the_scope_is_refused(mcp_for, tool):
    mcp = mcp_for(Role.ADMIN, [_other_scope(tool.scope)])
    error = mcp.refused(tool.name, {})
    assert error == {
        "code": -32600,
        "message": f"Insufficient scope: requires {tool.scope}",
        "data": {"requiredScope": tool.scope},
    }


@pytest.mark.parametrize(
    "tool", [tool for tool in TOOLS if tool.min_role > Role.SUBSCRIBER], ids=lambda t: t.name
)
def test_a_role_below_the_minimum_is_refused(tool):
    user = make_user(Role.ADMIN)
    _, raw = make_token(user, [tool.scope])
    user.role = tool.min_role - 10
    user.save(update_fields=["role"])
    error = McpClient(raw, MODERN).refused(tool.name, {})
    assert error["code"] == -32600
    assert error["message"].startswith(
        f"Insufficient scope: requires the role {Role(tool.min_role).label.lower()}"
    )


@pytest.mark.parametrize("tool", TOOLS, ids=lambda tool: tool.name)
def test_an_unknown_argument_is_refused_not_dropped(admin_mcp, tool):
    text, error = admin_mcp.fails(tool.name, {"bogus": 1})
    assert text.startswith("[VALIDATION_ERROR] ")
    assert error["code"] == "VALIDATION_ERROR"
    allowed = ", ".join(sorted(tool.schema["properties"])) or "none"
    assert error["details"]["bogus"] == f"Unknown argument; allowed: {allowed}."
    required = set(tool.schema.get("required", []))
    assert {key for key, value in error["details"].items() if value == "This field is required."} == required


@pytest.mark.parametrize("tool", TOOLS, ids=lambda tool: tool.name)
def test_schemas_are_closed_and_annotated(tool):
    assert tool.schema["type"] == "object"
    assert tool.schema["additionalProperties"] is False
    annotations = tool.annotations()
    assert annotations["title"] == tool.title
    assert annotations["readOnlyHint"] is tool.read_only
    assert len(tool.description) > 60
