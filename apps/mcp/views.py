"""``{api}/mcp``: the tool server's one endpoint, stateless Streamable HTTP with JSON answers (SPEC §4.11).

The view does the transport checks that need no database (method, Origin, Content-Type, Accept, body size) first,
then everything that does: the bearer token, the rate limit, and the JSON-RPC request itself
(``apps.mcp.protocol``). Under ASGI it is an async view whose only thread hop is that second part; under WSGI it runs
synchronously (see ``McpEndpoint``).

HTTP answers of the transport (MCP transports spec, "Streamable HTTP"):

- POST with a request → 200 with the JSON-RPC answer (errors of the stateless revision use the SDK's status table);
  POST with a notification or a response → 202 without a body. No ``Mcp-Session-Id`` is issued or required.
- POST with a JSON-RPC batch (an array) under 2025-03-26, the one version that has batches → 200 with the array of
  answers to its requests, or 202 when it holds only notifications and responses; under any other version → 400.
- GET and DELETE → 405 with ``Allow: POST``: there is no event stream and no session to close.
- An Origin that is not ours or an allowed CORS origin → 403 (DNS-rebinding protection).
- Content-Type other than JSON → 415; an Accept that excludes JSON → 406; a body over ``CMS_MAX_JSON_BYTES`` → 413.
- No or a bad bearer token → 401 with ``WWW-Authenticate: Bearer resource_metadata="…", scope="…"`` (SPEC §5,
  RFC 9728; the scope is the least-privilege default, ``permissions.DEFAULT_SCOPES``).
- Over the rate limit → 429 with ``Retry-After``; the database unreachable → 503 with ``Retry-After``.

Every refusal has a JSON-RPC error body with an ``id``: the request's own when the body names one (then it validates
against the schema of every protocol version, two of which require the id), else ``null`` (JSON-RPC 2.0 §5: the id
could not be determined; the official Python and TypeScript SDKs' servers answer the same).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any
from urllib.parse import urlsplit

import orjson
from asgiref.sync import markcoroutinefunction, sync_to_async
from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from mcp.types.jsonrpc import INTERNAL_ERROR, INVALID_REQUEST, PARSE_ERROR

from apps.accounts import oauth
from apps.accounts.authentication import authenticate_bearer, bearer_challenge
from apps.core import ratelimit
from apps.core.api.exceptions import to_cms_error
from apps.core.errors import RateLimited, ServiceUnavailable, Unauthorized
from apps.mcp import protocol

logger = logging.getLogger("cms.mcp")

JSON = "application/json"
# The one protocol version with JSON-RPC batches (2025-06-18 removed them).
BATCH_VERSION = "2025-03-26"


def _answer(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> HttpResponse:
    response = HttpResponse(orjson.dumps(body), status=status, content_type=JSON)
    for name, value in (headers or {}).items():
        response[name] = value
    return response


def _refusal(
    status: int,
    message: str,
    headers: dict[str, str] | None = None,
    code: int = INVALID_REQUEST,
    request_id: str | int | None = None,
):
    """A transport-level refusal: a JSON-RPC error with the request's id, or null when it is not known."""
    return _answer(
        {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}, status, headers
    )


def _valid_id(value: Any) -> bool:
    return isinstance(value, (str, int)) and not isinstance(value, bool)


def _peek_id(request: HttpRequest) -> str | int | None:
    """The id a refused request carries, if its body is one JSON-RPC request (read only to name it in the refusal;
    the body's size was checked before)."""
    try:
        decoded = orjson.loads(request.body)
    except (RequestDataTooBig, orjson.JSONDecodeError):
        return None
    if isinstance(decoded, dict) and _valid_id(decoded.get("id")):
        return decoded["id"]
    return None


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def _origin_allowed(origin: str) -> bool:
    allowed = {_origin(settings.CMS_BASE_URL), *(_origin(item) for item in settings.CORS_ALLOWED_ORIGINS)}
    return origin.lower() in allowed


def _media_types(header: str) -> list[tuple[str, float]]:
    ranges = []
    for part in header.split(","):
        media, *params = (item.strip() for item in part.split(";"))
        quality = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if media:
            ranges.append((media.lower(), quality))
    return ranges


def _accepts_json(header: str) -> bool:
    return any(
        quality > 0 and media in (JSON, "application/*", "*/*") for media, quality in _media_types(header)
    )


def transport_refusal(request: HttpRequest) -> HttpResponse | None:
    """The answer to a request the transport refuses before anything is read from the database, or None."""
    if request.method != "POST":
        return _refusal(
            405, "This endpoint answers POST only: it has no event stream and no session.", {"Allow": "POST"}
        )
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        declared = 0
    if declared > settings.DATA_UPLOAD_MAX_MEMORY_SIZE:
        return _too_large()
    origin = request.headers.get("Origin")
    if origin is not None and not _origin_allowed(origin):
        return _refusal(403, f"Origin {origin} is not allowed.", request_id=_peek_id(request))
    content_type = request.content_type.lower() if request.content_type else ""
    if content_type != JSON:
        return _refusal(
            415,
            "Send the JSON-RPC message with Content-Type: application/json.",
            request_id=_peek_id(request),
        )
    if not _accepts_json(request.headers.get("Accept", "")):
        return _refusal(
            406, "Accept must include application/json (and text/event-stream).", request_id=_peek_id(request)
        )
    return None


def _in_event_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _coroutine_marks() -> dict[str, object]:
    """The attribute(s) by which this Python recognises a function marked as a coroutine function."""

    def probe():
        return None

    markcoroutinefunction(probe)
    return {name: value for name, value in vars(probe).items()}


class McpEndpoint:
    """The view: async under ASGI, sync under WSGI, the same code either way.

    Django asks a view whether it is a coroutine function when it calls it. Under ASGI it asks from the event loop,
    and this view answers yes: the transport checks run on the loop and the rest in one ``sync_to_async`` hop.
    Under WSGI it asks from a worker thread without a loop, and the view answers no and runs directly: an async view
    there would cost a new thread and event loop for every request (``async_to_sync``), more than the whole tool
    call (measured in docs/performance.md).
    """

    csrf_exempt = True
    _marks = _coroutine_marks()

    def __getattr__(self, name: str):
        if name in self._marks and _in_event_loop():
            return self._marks[name]
        raise AttributeError(name)

    def __call__(self, request: HttpRequest):
        if _in_event_loop():
            return self.respond_async(request)
        return transport_refusal(request) or serve(request)

    async def respond_async(self, request: HttpRequest) -> HttpResponse:
        refusal = transport_refusal(request)
        if refusal is not None:
            return refusal
        return await sync_to_async(serve, thread_sensitive=True)(request)


mcp_endpoint = McpEndpoint()


def _too_large() -> HttpResponse:
    return _refusal(413, f"The request body is larger than {settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes.")


def _bearer(request: HttpRequest) -> str | None:
    scheme, _, credential = request.headers.get("Authorization", "").partition(" ")
    return credential if scheme.lower() == "bearer" and credential.strip() else None


def serve(request: HttpRequest) -> HttpResponse:
    """Authenticate, count, parse and answer one POST (runs in a worker thread: it uses the database).

    A database that cannot be reached is 503 with ``Retry-After``, as on REST: the client should retry, not report
    a bug."""
    try:
        return _serve(request)
    except Exception as exc:
        error = to_cms_error(exc)
        if isinstance(error, ServiceUnavailable):
            logger.warning("MCP request failed: database unavailable", exc_info=True)
            return _refusal(
                503, error.message, error.headers, code=INTERNAL_ERROR, request_id=_peek_id(request)
            )
        raise


def _serve(request: HttpRequest) -> HttpResponse:
    raw = _bearer(request)
    try:
        if raw is None:
            raise Unauthorized()
        actor = authenticate_bearer(raw, resource=oauth.mcp_resource())
    except Unauthorized as exc:
        challenge = bearer_challenge()
        if raw is not None:
            challenge += ', error="invalid_token"'
        return _refusal(401, exc.message, {"WWW-Authenticate": challenge}, request_id=_peek_id(request))
    request.user = actor.user
    request._cms_user_id = actor.user_id  # for the request log line
    try:
        ratelimit.enforce(request, "api")
    except RateLimited as exc:
        return _refusal(429, exc.message, exc.headers, request_id=_peek_id(request))
    try:
        body = request.body
    except RequestDataTooBig:
        return _too_large()
    try:
        decoded = orjson.loads(body)
    except orjson.JSONDecodeError:
        return _refusal(400, "Parse error: the body is not JSON.", code=PARSE_ERROR)
    headers = {name.lower(): value for name, value in request.headers.items()}
    if isinstance(decoded, list):
        return _batch(request, actor, decoded, headers)
    status, answer = _one(actor, decoded, headers)
    return HttpResponse(status=202) if answer is None else _answer(answer, status)


def _batch(request: HttpRequest, actor, messages: list, headers: dict[str, str]) -> HttpResponse:
    """A JSON-RPC batch, which only 2025-03-26 has (2025-06-18 removed it): each message is answered as if sent
    alone, the answers come back as one array in the order of their requests (JSON-RPC 2.0 §6)."""
    version = headers.get("mcp-protocol-version") or protocol.DEFAULT_HEADER_VERSION
    if version != BATCH_VERSION:
        return _refusal(
            400,
            f"JSON-RPC batches exist only in protocol version {BATCH_VERSION}; send one message per request.",
        )
    if not messages:
        return _refusal(400, "An empty batch: send at least one JSON-RPC message.")
    requests = sum(1 for item in messages if isinstance(item, dict) and "method" in item and "id" in item)
    try:
        # Every request of the batch counts against the rate limit, as if sent alone (the first already did).
        for _ in range(requests - 1):
            ratelimit.enforce(request, "api")
    except RateLimited as exc:
        return _refusal(429, exc.message, exc.headers)
    answers = []
    for item in messages:
        if isinstance(item, dict) and item.get("method") == "initialize":
            # 2025-03-26 (Lifecycle): the initialize request must not be part of a batch.
            request_id = item.get("id") if _valid_id(item.get("id")) else None
            answers.append(
                protocol.error_body(request_id, INVALID_REQUEST, "initialize cannot be part of a batch.")
            )
            continue
        _, answer = _one(actor, item, headers)
        if answer is not None:
            answers.append(answer)
    return _answer(answers) if answers else HttpResponse(status=202)


def _one(actor, decoded: Any, headers: dict[str, str]) -> tuple[int, dict[str, Any] | None]:
    """The HTTP status and JSON-RPC answer of one message (None for a notification or a response)."""
    if not isinstance(decoded, dict) or decoded.get("jsonrpc") != "2.0":
        return 400, protocol.error_body(
            None, INVALID_REQUEST, "The body must be a JSON-RPC 2.0 request, notification or response object."
        )
    if "id" not in decoded:
        # A notification: nothing to answer on a stateless server (`initialized`, `cancelled`, progress …).
        if not isinstance(decoded.get("method"), str):
            return 400, protocol.error_body(None, INVALID_REQUEST, "A notification needs a string 'method'.")
        return 202, None
    if "method" not in decoded:
        if "result" in decoded or "error" in decoded:
            return 202, None  # a response to a request we never send; accepted and dropped
        request_id = decoded["id"] if _valid_id(decoded["id"]) else None
        return 400, protocol.error_body(request_id, INVALID_REQUEST, "A request needs a 'method'.")
    request_id = decoded["id"]
    if not _valid_id(request_id) or not isinstance(decoded["method"], str):
        return 400, protocol.error_body(
            request_id if _valid_id(request_id) else None,
            INVALID_REQUEST,
            "A request needs a string or integer 'id' and a string 'method'.",
        )
    modern = protocol.is_modern(decoded, headers.get("mcp-protocol-version"))
    try:
        message = protocol.classify(decoded, headers)
        result = protocol.dispatch(actor, message)
    except protocol.RpcError as exc:
        return protocol.http_status(exc.code, modern), protocol.error_body(
            request_id, exc.code, exc.message, exc.data
        )
    except Exception as exc:
        if isinstance(to_cms_error(exc), ServiceUnavailable):
            raise
        logger.exception("MCP request failed", extra={"method": decoded.get("method")})
        return protocol.http_status(INTERNAL_ERROR, modern), protocol.error_body(
            request_id, INTERNAL_ERROR, "Internal error"
        )
    return 200, {"jsonrpc": "2.0", "id": request_id, "result": result}
