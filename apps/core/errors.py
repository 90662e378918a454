"""Domain errors: each carries the SPEC §7 code and HTTP status; one handler turns them into the wire envelope.

Services raise these and never build responses. The REST exception handler (apps/core/api/exceptions.py) and the MCP
error mapper read the same ``code``, ``status``, ``message`` and ``details``.
"""

from __future__ import annotations

import errno
from typing import Any


class CmsError(Exception):
    code = "INTERNAL_ERROR"
    status = 500
    default_message = "An unexpected error occurred."

    def __init__(
        self, message: str | None = None, *, details: Any = None, headers: dict[str, str] | None = None
    ):
        self.message = message or self.default_message
        self.details = details if details is not None else {}
        self.headers = headers or {}
        super().__init__(self.message)

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "details": self.details}


class ValidationError(CmsError):
    """Invalid input. ``details`` maps each bad field (dotted path for nested input) to what is expected;
    ``pointers`` maps those of them that name a value inside the request to its JSON pointer (RFC 6901), such as
    ``/data/title`` for an entry's field (the message then names the pointer)."""

    code = "VALIDATION_ERROR"
    status = 400
    default_message = "The request is invalid."

    def __init__(
        self,
        message: str | None = None,
        *,
        details: dict[str, str] | None = None,
        pointers: dict[str, str] | None = None,
        **kwargs: Any,
    ):
        self.pointers = pointers or {}
        if message is None and details:
            message = summarize({self.pointers.get(key, key): problem for key, problem in details.items()})
        super().__init__(message, details=details, **kwargs)

    def as_dict(self) -> dict[str, Any]:
        answer = super().as_dict()
        if self.pointers:
            answer["pointers"] = self.pointers
        return answer


def json_pointer(*parts: str | int) -> str:
    """The JSON pointer (RFC 6901) of a value by the keys and indexes leading to it."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in parts)


class Unauthorized(CmsError):
    code = "UNAUTHORIZED"
    status = 401
    default_message = "Authentication required: send 'Authorization: Bearer <token>'."


class Forbidden(CmsError):
    code = "FORBIDDEN"
    status = 403
    default_message = "You do not have permission to do this."


class NotFound(CmsError):
    code = "NOT_FOUND"
    status = 404
    default_message = "Not found."


class MethodNotAllowed(CmsError):
    code = "METHOD_NOT_ALLOWED"
    status = 405
    default_message = "Method not allowed."


class NotAcceptable(CmsError):
    code = "NOT_ACCEPTABLE"
    status = 406
    default_message = "None of the requested representations is available."


class Conflict(CmsError):
    code = "CONFLICT"
    status = 409
    default_message = "The resource changed since you read it."


class DuplicateSlug(CmsError):
    code = "DUPLICATE_SLUG"
    status = 409
    default_message = "That slug is already taken."


class ReservedSlug(CmsError):
    code = "RESERVED_SLUG"
    status = 400
    default_message = "That slug is reserved."


class SchemaError(CmsError):
    code = "SCHEMA_ERROR"
    status = 400
    default_message = "The schema operation failed."


class PayloadTooLarge(CmsError):
    code = "PAYLOAD_TOO_LARGE"
    status = 413
    default_message = "The request body is too large."


class UnsupportedMediaType(CmsError):
    code = "UNSUPPORTED_MEDIA_TYPE"
    status = 415
    default_message = "Unsupported Content-Type."


class InsufficientStorage(CmsError):
    """The storage refused a write for want of space: the disk (or the OS quota of the server's user) is full.

    Not the client's doing and not a bug, so neither 4xx nor a plain 500: RFC 4918's 507 says "retry once space is
    freed". Whatever was partly written has been removed by the code that raises it."""

    code = "INSUFFICIENT_STORAGE"
    status = 507
    default_message = "The server's storage is full: nothing was stored. Try again once space has been freed."


_STORAGE_FULL = {errno.ENOSPC} | ({errno.EDQUOT} if hasattr(errno, "EDQUOT") else set())


def storage_full(error: BaseException) -> bool:
    """Whether an OSError says the disk, or the OS quota, is full."""
    return isinstance(error, OSError) and error.errno in _STORAGE_FULL


def storage_unreachable(error: BaseException) -> bool:
    """Whether an error of object storage (botocore, under django-storages' S3 backend) says the storage is
    unreachable, hung or failing on its side: a connection refused or timed out, a read timed out or cut, a 5xx."""
    try:
        from botocore.exceptions import ClientError, HTTPClientError
        from botocore.exceptions import ConnectionError as BotoConnectionError
    except ImportError:  # pragma: no cover - botocore is a base requirement
        return False
    if isinstance(error, (BotoConnectionError, HTTPClientError)):
        return True
    if isinstance(error, ClientError):
        status = error.response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 0
        return status >= 500
    return False


class RateLimited(CmsError):
    code = "RATE_LIMITED"
    status = 429
    default_message = "Too many requests."

    def __init__(self, retry_after: int, message: str | None = None):
        retry_after = max(1, int(retry_after))
        super().__init__(
            message or f"Too many requests; retry in {retry_after} seconds.",
            details={"retryAfter": retry_after},
            headers={"Retry-After": str(retry_after)},
        )


class ServiceUnavailable(CmsError):
    code = "SERVICE_UNAVAILABLE"
    status = 503
    default_message = "The service is temporarily unavailable; retry shortly."

    def __init__(self, message: str | None = None, *, retry_after: int = 5, **kwargs: Any):
        super().__init__(message, headers={"Retry-After": str(retry_after)}, **kwargs)


def summarize(details: dict[str, str]) -> str:
    """One sentence for the message: the first problem, and how many more there are."""
    (field, problem), *rest = details.items()
    text = f"{field}: {problem}" if field else str(problem)
    if rest:
        text += f" (and {len(rest)} more problem{'s' if len(rest) > 1 else ''}; see details)"
    return text
