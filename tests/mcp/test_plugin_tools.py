"""Tools of enabled plugins appear as ``<pluginId>__<name>`` with their scope checked, and disappear when disabled."""

from __future__ import annotations

import pytest

from apps.accounts.models import Role
from apps.accounts.permissions import Actor
from apps.plugins import registry, services

BUILT_IN = ["apps.plugins.builtin.callout", "apps.plugins.builtin.audit"]


@pytest.fixture
def with_sample():
    registry.load([*BUILT_IN, "tests.plugins.sample"])
    yield
    registry.load(BUILT_IN)


def _names(mcp) -> list[str]:
    return [tool["name"] for tool in mcp.request("tools/list")["result"]["tools"]]


def test_plugin_tools_are_listed_and_called(with_sample, admin_mcp, mcp_for):
    assert _names(admin_mcp)[-1] == "sample__sample_echo"
    listed = admin_mcp.request("tools/list")["result"]["tools"][-1]
    assert listed["annotations"]["readOnlyHint"] is True
    assert admin_mcp.ok("sample__sample_echo", {"text": "hi"}) == {"echo": "hi", "user": admin_mcp.user.pk}
    media_only = mcp_for(Role.ADMIN, ["media:read"])
    assert (
        media_only.refused("sample__sample_echo", {})["message"]
        == "Insufficient scope: requires content:read"
    )


def test_disabled_plugins_offer_no_tools(with_sample, admin_mcp):
    services.plugin_set_enabled(actor=Actor.system(), plugin_id="sample", enabled=False)
    registry.invalidate()
    assert "sample__sample_echo" not in _names(admin_mcp)
    error = admin_mcp.call("sample__sample_echo", {})["error"]
    assert error["code"] == -32602
