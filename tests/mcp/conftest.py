"""Fixtures of the tool-server tests: in-process MCP clients by role and scope."""

from __future__ import annotations

import pytest

from apps.accounts.models import Role
from tests.factories import make_token, make_user
from tests.mcp.wire import McpClient


@pytest.fixture
def mcp_for():
    """``mcp_for(role=…, scopes=…, version=…)``: an in-process MCP client with a new user's token."""

    def build(role: int = Role.ADMIN, scopes=("admin",), version: str = "2025-11-25") -> McpClient:
        user = make_user(role)
        _, raw = make_token(user, scopes)
        client = McpClient(raw, version)
        client.user = user
        return client

    return build


@pytest.fixture
def admin_mcp(mcp_for) -> McpClient:
    return mcp_for()
