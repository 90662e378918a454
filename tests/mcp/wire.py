"""Talking to the tool server in-process (Django's test client) and checking every answer against the official MCP
JSON Schema of the protocol version it speaks (``testdata/mcp/schema/<version>/schema.json``)."""

from __future__ import annotations

import itertools
import json
from functools import cache
from typing import Any

import jsonschema
from django.test import Client

from tests.testdata import TESTDATA

SCHEMAS = TESTDATA / "mcp" / "schema"
MODERN = "2026-07-28"
LEGACY = ("2025-03-26", "2025-06-18", "2025-11-25")
ENDPOINT = "/_cms/api/mcp"

# The result type of each method, as the schemas name it.
RESULT_TYPES = {
    "initialize": "InitializeResult",
    "server/discover": "DiscoverResult",
    "tools/list": "ListToolsResult",
    "tools/call": "CallToolResult",
    "ping": "Result",
}


@cache
def _schema(version: str) -> dict:
    return json.loads((SCHEMAS / version / "schema.json").read_text())


def _definitions(version: str) -> tuple[str, dict]:
    root = _schema(version)
    key = "$defs" if "$defs" in root else "definitions"
    return key, root[key]


@cache
def _validator(version: str, name: str):
    key, definitions = _definitions(version)
    if name not in definitions:
        raise KeyError(f"{name} is not defined in the {version} schema")
    root = _schema(version)
    document = {"$schema": root["$schema"], key: definitions, "$ref": f"#/{key}/{name}"}
    cls = jsonschema.validators.validator_for(document)
    return cls(document)


def check(version: str, name: str, value: Any) -> None:
    """Fail unless ``value`` is a valid ``name`` of ``version``'s schema."""
    errors = sorted(_validator(version, name).iter_errors(value), key=lambda error: list(error.path))
    assert not errors, f"not a valid {name} of {version}: {errors[0].message} at {list(errors[0].path)}"


def check_message(version: str, method: str | None, message: dict) -> None:
    """A server answer: the JSON-RPC envelope, and its result as the method's result type."""
    _, definitions = _definitions(version)
    if "error" in message:
        check(
            version,
            "JSONRPCErrorResponse" if "JSONRPCErrorResponse" in definitions else "JSONRPCError",
            message,
        )
        return
    check(
        version,
        "JSONRPCResultResponse" if "JSONRPCResultResponse" in definitions else "JSONRPCResponse",
        message,
    )
    if method in RESULT_TYPES:
        check(version, RESULT_TYPES[method], message["result"])


def check_output(name: str, value: Any) -> None:
    """Fail unless a tool's answer is valid against the ``outputSchema`` it declares (plugin tools declare none)."""
    from apps.mcp import registry

    tool = registry.get(name)
    schema = tool.output_schema if tool is not None else None
    if schema is None:
        return
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(value), key=lambda error: list(error.path))
    assert not errors, (
        f"{name} answered outside its outputSchema: {errors[0].message} at {list(errors[0].path)}"
    )


def check_null_id(message: dict) -> dict:
    """``message`` with a null id replaced by 0, for the schemas that cannot express it (see check_refusal)."""
    assert "id" in message, message
    return message if message["id"] is not None else {**message, "id": 0}


def check_refusal(message: dict, versions=(*LEGACY, MODERN)) -> None:
    """A refusal: a JSON-RPC error that always has an ``id``. Naming the request's id, it is valid under every
    version's schema. With ``null`` (the id could not be read: JSON-RPC 2.0 §5) it is checked for everything else,
    since no version's ``RequestId`` admits null although the official SDKs send and accept it."""
    assert "error" in message and "id" in message, message
    checked = check_null_id(message)
    for version in versions:
        check_message(version, None, checked)


_ids = itertools.count(1)


def envelope(version: str, method: str, params: dict | None = None, *, request_id: Any = None) -> dict:
    body: dict[str, Any] = {
        "jsonrpc": "2.0",
        "id": next(_ids) if request_id is None else request_id,
        "method": method,
    }
    params = dict(params or {})
    if version == MODERN:
        params["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "tests", "version": "1"},
            **params.get("_meta", {}),
        }
    if params:
        body["params"] = params
    return body


def headers_for(version: str, body: dict | None = None, token: str | None = None) -> dict[str, str]:
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": version}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if version == MODERN and body is not None:
        headers["Mcp-Method"] = body["method"]
        name = (body.get("params") or {}).get("name")
        if body["method"] == "tools/call" and name is not None:
            headers["Mcp-Name"] = name
    return headers


class McpClient:
    """POSTs JSON-RPC to the endpoint with a bearer token at one protocol version; every answer is schema-checked."""

    def __init__(self, token: str | None, version: str = "2025-11-25"):
        self.token = token
        self.version = version
        self.http = Client()

    def post(
        self, body: Any, *, headers: dict[str, str] | None = None, content_type: str = "application/json"
    ):
        response = self._send(body, headers=headers, content_type=content_type)
        if response.status_code != 202 and response.get("Content-Type") == "application/json":
            # Every answer is checked, whatever the test then asserts about it.
            message = response.json()
            method = body.get("method") if isinstance(body, dict) else None
            version = self.version if self.version in (*LEGACY, MODERN) else MODERN
            if isinstance(message, list):
                # A batch answer (2025-03-26): each element a response of that version.
                for item in message:
                    check_message("2025-03-26", None, check_null_id(item))
            elif response.status_code >= 400 or message.get("id") is None:
                check_refusal(message)
            else:
                check_message(version, method, message)
        return response

    def _send(self, body: Any, *, headers: dict[str, str] | None, content_type: str):
        return self.http.post(
            ENDPOINT,
            data=json.dumps(body) if not isinstance(body, (bytes, str)) else body,
            content_type=content_type,
            headers=headers
            if headers is not None
            else headers_for(self.version, body if isinstance(body, dict) else None, self.token),
        )

    def request(self, method: str, params: dict | None = None, *, status: int = 200) -> dict:
        body = envelope(self.version, method, params)
        response = self.post(body)
        assert response.status_code == status, (response.status_code, response.content)
        message = response.json()
        assert message["id"] == body["id"]
        check_message(self.version, method, message)
        return message

    def call(self, name: str, arguments: dict | None = None, *, status: int = 200) -> dict:
        """The JSON-RPC answer of a tools/call (result or error)."""
        return self.request("tools/call", {"name": name, "arguments": arguments or {}}, status=status)

    def ok(self, name: str, arguments: dict | None = None) -> Any:
        """A successful call's JSON (text and structuredContent must agree)."""
        result = self.call(name, arguments)["result"]
        assert result["isError"] is False, result["content"][0]["text"]
        value = json.loads(result["content"][0]["text"])
        assert result["structuredContent"] == value
        check_output(name, value)
        return value

    def fails(self, name: str, arguments: dict | None = None) -> tuple[str, dict]:
        """A tool failure: its text, and the error object of structuredContent."""
        result = self.call(name, arguments)["result"]
        assert result["isError"] is True, result
        return result["content"][0]["text"], result["structuredContent"]["error"]

    def refused(self, name: str, arguments: dict | None = None) -> dict:
        """A JSON-RPC error answer to a call."""
        status = 400 if self.version == MODERN else 200
        message = self.call(name, arguments, status=status)
        assert "error" in message, message
        return message["error"]
