"""Least privilege on the tool server: the 401 challenge names the default scopes, a call lacking a scope is JSON-RPC
-32600 with the request id (what both official SDKs hand their caller, see docs/mcp.md), and tools/list may be
limited to the tools the token can call (CMS_MCP_LIST_CALLABLE_TOOLS_ONLY)."""

from __future__ import annotations

import pytest

from apps.accounts.models import Role
from apps.mcp import registry
from tests.mcp.wire import MODERN, McpClient, check_refusal, envelope

pytestmark = pytest.mark.django_db

DEFAULT = "content:read content:write media:read media:write schema:read"


def _names(mcp) -> list[str]:
    return [tool["name"] for tool in mcp.request("tools/list")["result"]["tools"]]


def test_the_challenge_names_the_default_scopes_while_discovery_lists_all_seven(client, settings):
    settings.CMS_BASE_URL = "https://cms.example"
    response = McpClient(None).post(envelope("2025-06-18", "tools/list", request_id="a"))
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == (
        f'Bearer resource_metadata="https://cms.example/.well-known/oauth-protected-resource", scope="{DEFAULT}"'
    )
    check_refusal(response.json())
    metadata = client.get("/.well-known/oauth-protected-resource").json()
    assert metadata["scopes_supported"] == [
        "content:read",
        "content:write",
        "media:read",
        "media:write",
        "schema:read",
        "schema:write",
        "admin",
    ]
    server = client.get("/_cms/.well-known/oauth-authorization-server").json()
    assert server["scopes_supported"] == metadata["scopes_supported"]


@pytest.mark.parametrize("version", ["2025-03-26", "2025-06-18", "2025-11-25", MODERN])
def test_a_call_lacking_a_scope_is_invalid_request_with_the_request_id(mcp_for, version):
    mcp = mcp_for(role=Role.ADMIN, scopes=("content:read",), version=version)
    body = envelope(
        version, "tools/call", {"name": "schema_list_collections", "arguments": {}}, request_id="x-1"
    )
    response = mcp.post(body)
    # 200 on the handshake era; the stateless revision maps -32600 to 400 (the SDK's table). Never 403: see docs/mcp.md.
    assert response.status_code == (400 if version == MODERN else 200)
    assert "WWW-Authenticate" not in response
    assert response.json() == {
        "jsonrpc": "2.0",
        "id": "x-1",
        "error": {
            "code": -32600,
            "message": "Insufficient scope: requires schema:read",
            "data": {"requiredScope": "schema:read"},
        },
    }


def test_tools_list_names_every_tool_by_default(mcp_for):
    reader = mcp_for(role=Role.SUBSCRIBER, scopes=("content:read",))
    assert _names(reader) == [tool.name for tool in registry.all_tools()]


def test_tools_list_can_be_limited_to_the_tools_the_token_may_call(mcp_for, settings):
    settings.CMS_MCP_LIST_CALLABLE_TOOLS_ONLY = True
    settings.CMS_RATE_LIMITS = {**settings.CMS_RATE_LIMITS, "api": "off"}
    reader = mcp_for(role=Role.EDITOR, scopes=("content:read",))
    listed = _names(reader)
    assert "content_list" in listed and "content_get" in listed
    assert "content_create" not in listed and "schema_list_collections" not in listed
    assert {registry.get(name).scope for name in listed} == {"content:read"}
    # Whatever it lists, it may call: no listed tool is refused for scope or role.
    for name in listed:
        message = reader.call(name, {})
        assert "error" not in message or message["error"]["code"] != -32600, (name, message)
    # The role limits the list too: a subscriber's content:read does not show the drafts tools of contributors.
    subscriber = mcp_for(role=Role.SUBSCRIBER, scopes=("content:read",))
    shown = _names(subscriber)
    assert {registry.get(name).min_role for name in shown} == {Role.SUBSCRIBER}
    assert set(shown) < set(listed)
    everything = mcp_for(role=Role.ADMIN, scopes=("admin",))
    assert _names(everything) == [tool.name for tool in registry.all_tools()]
