"""The transport of the tool server: methods, headers, authentication, versions and JSON-RPC errors (in-process)."""

from __future__ import annotations

import json

import pytest

from apps.accounts.models import Role
from tests.factories import make_token, make_user
from tests.mcp.wire import (
    ENDPOINT,
    LEGACY,
    MODERN,
    McpClient,
    check_message,
    check_refusal,
    envelope,
    headers_for,
)

ALL_VERSIONS = (*LEGACY, MODERN)


@pytest.fixture
def token():
    _, raw = make_token(make_user(Role.ADMIN), ["admin"])
    return raw


@pytest.fixture
def mcp(token):
    return McpClient(token)


def test_get_and_delete_are_405_with_allow_post(client):
    for method in (client.get, client.delete):
        response = method(ENDPOINT)
        assert response.status_code == 405
        assert response["Allow"] == "POST"
        # No body was sent, so no id can be named: null, as JSON-RPC 2.0 §5 says.
        assert response.json() == {
            "jsonrpc": "2.0",
            "id": None,
            "error": {
                "code": -32600,
                "message": "This endpoint answers POST only: it has no event stream and no session.",
            },
        }
        check_refusal(response.json())


def test_no_token_is_401_with_the_resource_metadata_challenge(client, settings):
    settings.CMS_BASE_URL = "https://cms.example"
    body = envelope(
        "2025-11-25",
        "initialize",
        {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    )
    response = McpClient(None).post(body)
    assert response.status_code == 401
    # The scope to ask for is the least-privilege default: never admin or schema:write.
    assert response["WWW-Authenticate"] == (
        'Bearer resource_metadata="https://cms.example/.well-known/oauth-protected-resource", '
        'scope="content:read content:write media:read media:write schema:read"'
    )
    # The refusal names the request's id, so it is a valid error answer under every protocol version.
    assert response.json() == {
        "jsonrpc": "2.0",
        "id": body["id"],
        "error": {
            "code": -32600,
            "message": "Authentication required: send 'Authorization: Bearer <token>'.",
        },
    }
    check_refusal(response.json())


def test_a_bad_token_is_401_invalid_token(settings):
    settings.CMS_BASE_URL = "https://cms.example"
    response = McpClient("ec_pat_nope").post(envelope("2025-11-25", "tools/list"))
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == (
        'Bearer resource_metadata="https://cms.example/.well-known/oauth-protected-resource", '
        'scope="content:read content:write media:read media:write schema:read", error="invalid_token"'
    )


@pytest.mark.parametrize("version", ["2025-03-26", "2025-06-18", "2025-11-25"])
def test_initialize_answers_the_clients_version(mcp, version):
    message = mcp.request(
        "initialize",
        {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    )
    check_message(version, "initialize", message)
    result = message["result"]
    assert result["protocolVersion"] == version
    assert result["capabilities"] == {"tools": {"listChanged": False}}
    assert result["serverInfo"]["name"] == "cms"


def test_initialize_with_an_unknown_version_offers_the_newest(mcp):
    message = mcp.request(
        "initialize",
        {"protocolVersion": "2024-01-01", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    )
    assert message["result"]["protocolVersion"] == "2025-11-25"


def test_no_session_id_is_issued(mcp):
    body = envelope(
        "2025-11-25",
        "initialize",
        {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    )
    response = mcp.post(body)
    assert response.status_code == 200
    assert "Mcp-Session-Id" not in response


def test_notifications_and_responses_get_202_without_a_body(mcp):
    for body in (
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}},
        {"jsonrpc": "2.0", "id": 9, "result": {}},
    ):
        response = mcp.post(body)
        assert response.status_code == 202
        assert response.content == b""


@pytest.mark.parametrize("version", ALL_VERSIONS)
def test_ping_and_unknown_methods(token, version):
    mcp = McpClient(token, version)
    if version != MODERN:
        assert mcp.request("ping")["result"] == {}
    message = mcp.request("resources/list", status=404 if version == MODERN else 200)
    assert message["error"] == {"code": -32601, "message": "Method not found: resources/list"}


def test_an_unsupported_protocol_version_header_is_400(token):
    mcp = McpClient(token, "2024-11-05")
    body = envelope("2025-11-25", "tools/list", request_id="list-1")
    response = mcp.post(body)
    assert response.status_code == 400
    assert response.json() == {
        "jsonrpc": "2.0",
        "id": "list-1",
        "error": {
            "code": -32022,
            "message": "Unsupported protocol version",
            "data": {
                "supported": ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"],
                "requested": "2024-11-05",
            },
        },
    }
    check_refusal(response.json())


def test_without_a_version_header_2025_03_26_is_assumed(token):
    mcp = McpClient(token, "2025-03-26")
    body = envelope("2025-03-26", "tools/list")
    response = mcp.post(body, headers={"Accept": "application/json", "Authorization": f"Bearer {token}"})
    assert response.status_code == 200
    tools = response.json()["result"]["tools"]
    check_message("2025-03-26", "tools/list", response.json())
    # 2025-03-26 tools have no title; their annotations carry it.
    assert "title" not in tools[0]
    assert tools[0]["annotations"]["title"]


def test_discover_describes_the_server(token):
    mcp = McpClient(token, MODERN)
    result = mcp.request("server/discover")["result"]
    assert result["supportedVersions"] == ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"]
    assert result["capabilities"] == {"tools": {"listChanged": False}}
    assert result["resultType"] == "complete"
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"] == {"name": "cms", "version": "1.0.0"}


def test_modern_requests_need_their_envelope_and_matching_headers(token):
    mcp = McpClient(token, MODERN)
    body = envelope("2025-11-25", "tools/list")  # no _meta
    response = mcp.post(body, headers=headers_for(MODERN, body, token))
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32602
    body = envelope(MODERN, "tools/list")
    headers = headers_for(MODERN, body, token)
    headers["Mcp-Method"] = "tools/call"
    response = mcp.post(body, headers=headers)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32020
    check_message(MODERN, None, response.json())


def test_origin_must_be_ours_or_allowed(mcp, settings):
    settings.CMS_BASE_URL = "https://cms.example"
    settings.CORS_ALLOWED_ORIGINS = ["https://app.example"]
    body = envelope("2025-11-25", "tools/list")
    for origin, status in (
        ("https://evil.example", 403),
        ("https://cms.example", 200),
        ("https://app.example", 200),
    ):
        response = mcp.post(body, headers={**headers_for("2025-11-25", body, mcp.token), "Origin": origin})
        assert response.status_code == status, origin


def test_content_type_accept_and_size_are_checked(mcp, settings):
    body = envelope("2025-11-25", "tools/list")
    headers = headers_for("2025-11-25", body, mcp.token)
    assert mcp.post(json.dumps(body), headers=headers, content_type="text/plain").status_code == 415
    assert mcp.post(body, headers={**headers, "Accept": "text/html"}).status_code == 406
    assert mcp.post(body, headers={**headers, "Accept": "text/event-stream"}).status_code == 406
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100
    response = mcp.post({**body, "params": {"padding": "x" * 200}}, headers=headers)
    assert response.status_code == 413


def test_bodies_that_are_not_one_json_rpc_message(mcp):
    headers = headers_for("2025-11-25", None, mcp.token)
    response = mcp.post("{not json", headers=headers)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32700
    assert response.json() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32700, "message": "Parse error: the body is not JSON."},
    }
    response = mcp.post([envelope("2025-11-25", "ping")], headers=headers)
    assert response.status_code == 400
    assert response.json() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {
            "code": -32600,
            "message": "JSON-RPC batches exist only in protocol version 2025-03-26; send one message per request.",
        },
    }
    response = mcp.post({"jsonrpc": "2.0", "id": 7, "params": {}}, headers=headers)
    assert response.status_code == 400
    assert response.json() == {
        "jsonrpc": "2.0",
        "id": 7,
        "error": {"code": -32600, "message": "A request needs a 'method'."},
    }


def test_rate_limit_is_429_with_retry_after(mcp, settings):
    settings.CMS_RATE_LIMITS = {**settings.CMS_RATE_LIMITS, "api": "2/m"}
    mcp.request("ping")
    mcp.request("ping")
    response = mcp.post(envelope("2025-11-25", "ping"))
    assert response.status_code == 429
    assert int(response["Retry-After"]) > 0


def test_an_unknown_tool_is_invalid_params(mcp):
    error = mcp.call("nope", {})["error"]
    assert error["code"] == -32602
    assert error["message"].startswith("Unknown tool: nope.")


def test_tools_call_params_are_validated(mcp):
    message = mcp.request("tools/call", {"arguments": {}})
    assert message["error"]["code"] == -32602


def test_the_view_is_async_under_asgi_and_sync_under_wsgi(token):
    from asgiref.sync import async_to_sync, iscoroutinefunction
    from django.test import AsyncClient

    from apps.mcp.views import mcp_endpoint

    assert iscoroutinefunction(mcp_endpoint) is False  # no event loop here: WSGI calls it directly

    async def under_asgi():
        assert iscoroutinefunction(mcp_endpoint) is True
        body = envelope("2025-11-25", "tools/list")
        response = await AsyncClient().post(
            ENDPOINT,
            json.dumps(body),
            content_type="application/json",
            headers=headers_for("2025-11-25", body, token),
        )
        return response.status_code, response.json()

    status, message = async_to_sync(under_asgi)()
    assert status == 200
    check_message("2025-11-25", "tools/list", message)
    assert len(message["result"]["tools"]) > 30


@pytest.mark.parametrize("version", ["2025-11-25", MODERN])
def test_an_unexpected_failure_is_internal_error_without_details(token, monkeypatch, version):
    import dataclasses

    from apps.mcp import registry

    def explode(actor, args):
        raise RuntimeError("password=hunter2 in /srv/secret")

    broken = dataclasses.replace(registry.get("settings_get"), handler=explode)
    monkeypatch.setitem(registry._tools, "settings_get", broken)
    mcp = McpClient(token, version)
    message = mcp.call("settings_get", {}, status=200)
    assert message["error"] == {"code": -32603, "message": "Internal error"}
    assert b"hunter2" not in json.dumps(message).encode()


@pytest.mark.parametrize("version", ALL_VERSIONS)
def test_tool_results_in_each_version(token, version):
    mcp = McpClient(token, version)
    result = mcp.call("settings_get", {})["result"]
    check_message(version, "tools/call", {"jsonrpc": "2.0", "id": 1, "result": result})
    value = json.loads(result["content"][0]["text"])
    assert result["isError"] is False
    if version == "2025-03-26":
        assert "structuredContent" not in result  # added in 2025-06-18
    else:
        assert result["structuredContent"] == value
    if version == MODERN:
        assert result["resultType"] == "complete"
        assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "cms"
    else:
        assert "resultType" not in result


def test_an_unreachable_database_is_503_with_retry_after(token, monkeypatch):
    import dataclasses

    from django.db import OperationalError

    from apps.mcp import registry

    def unreachable(actor, args):
        raise OperationalError("connection to server at 127.0.0.1 failed: Connection refused")

    monkeypatch.setitem(
        registry._tools,
        "settings_get",
        dataclasses.replace(registry.get("settings_get"), handler=unreachable),
    )
    response = McpClient(token).post(
        envelope("2025-11-25", "tools/call", {"name": "settings_get", "arguments": {}})
    )
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert response.json()["error"]["code"] == -32603
    assert "127.0.0.1" not in response.content.decode()


def test_refusals_before_the_request_is_served_name_its_id(mcp, settings):
    settings.CMS_BASE_URL = "https://cms.example"
    body = envelope("2025-11-25", "tools/list", request_id=41)
    headers = headers_for("2025-11-25", body, mcp.token)
    refusals = [
        (mcp.post(body, headers={**headers, "Origin": "https://evil.example"}), 403),
        (mcp.post(json.dumps(body), headers=headers, content_type="text/plain"), 415),
        (mcp.post(body, headers={**headers, "Accept": "text/html"}), 406),
        (McpClient("ec_pat_nope").post(body), 401),
    ]
    for response, status in refusals:
        assert response.status_code == status
        message = response.json()
        assert message["jsonrpc"] == "2.0" and message["id"] == 41, message
        assert set(message["error"]) == {"code", "message"}
        check_refusal(message)
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100
    response = mcp.post({**body, "params": {"padding": "x" * 200}}, headers=headers)
    assert response.status_code == 413
    # The body is not read at all, so its id is unknown.
    assert response.json() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32600, "message": "The request body is larger than 100 bytes."},
    }


def test_a_rate_limit_refusal_names_the_request_id(mcp, settings):
    settings.CMS_RATE_LIMITS = {**settings.CMS_RATE_LIMITS, "api": "1/m"}
    mcp.request("ping")
    response = mcp.post(envelope("2025-11-25", "ping", request_id="p-2"))
    assert response.status_code == 429
    assert response.json()["id"] == "p-2"
    check_refusal(response.json())


def _legacy_headers(token: str) -> dict[str, str]:
    # No version header: 2025-03-26 is assumed, the version with batches.
    return {"Accept": "application/json, text/event-stream", "Authorization": f"Bearer {token}"}


@pytest.mark.parametrize("header", [None, "2025-03-26"])
def test_a_2025_03_26_batch_gets_an_array_of_answers(token, header):
    mcp = McpClient(token, "2025-03-26")
    headers = _legacy_headers(token)
    if header:
        headers["MCP-Protocol-Version"] = header
    batch = [
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": "two", "method": "resources/list"},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "settings_get", "arguments": {}},
        },
        {"jsonrpc": "2.0", "id": 4, "result": {}},
        {"jsonrpc": "2.0", "id": 5, "method": "initialize", "params": {}},
        "not a message",
    ]
    response = mcp.post(batch, headers=headers)
    assert response.status_code == 200
    answers = response.json()
    assert [answer.get("id") for answer in answers] == [1, "two", 3, 5, None]
    assert answers[0] == {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert answers[1] == {
        "jsonrpc": "2.0",
        "id": "two",
        "error": {"code": -32601, "message": "Method not found: resources/list"},
    }
    check_message("2025-03-26", "tools/call", answers[2])
    assert answers[2]["result"]["isError"] is False
    assert "structuredContent" not in answers[2]["result"]
    assert answers[3] == {
        "jsonrpc": "2.0",
        "id": 5,
        "error": {"code": -32600, "message": "initialize cannot be part of a batch."},
    }
    assert answers[4] == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {
            "code": -32600,
            "message": "The body must be a JSON-RPC 2.0 request, notification or response object.",
        },
    }


def test_a_batch_of_notifications_only_is_202(token):
    mcp = McpClient(token, "2025-03-26")
    batch = [
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}},
    ]
    response = mcp.post(batch, headers=_legacy_headers(token))
    assert response.status_code == 202
    assert response.content == b""


def test_an_empty_batch_or_one_under_a_later_version_is_refused(token):
    mcp = McpClient(token, "2025-03-26")
    response = mcp.post([], headers=_legacy_headers(token))
    assert response.status_code == 400
    assert response.json() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32600, "message": "An empty batch: send at least one JSON-RPC message."},
    }
    for version in ("2025-06-18", "2025-11-25", MODERN):
        response = McpClient(token, version).post(
            [{"jsonrpc": "2.0", "id": 1, "method": "ping"}],
            headers={**_legacy_headers(token), "MCP-Protocol-Version": version},
        )
        assert response.status_code == 400, version
        assert response.json()["error"]["message"] == (
            "JSON-RPC batches exist only in protocol version 2025-03-26; send one message per request."
        )


def test_every_request_of_a_batch_counts_against_the_rate_limit(token, settings):
    settings.CMS_RATE_LIMITS = {**settings.CMS_RATE_LIMITS, "api": "3/m"}
    mcp = McpClient(token, "2025-03-26")
    batch = [{"jsonrpc": "2.0", "id": n, "method": "ping"} for n in range(3)]
    assert mcp.post(batch, headers=_legacy_headers(token)).status_code == 200
    response = mcp.post(batch[:1], headers=_legacy_headers(token))
    assert response.status_code == 429
    check_refusal(response.json())
