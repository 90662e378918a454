"""Errors of the import pipeline (SPEC §7 import rows), with their codes. The media quota is the media service's
(``StorageQuotaExceeded``, enforced on every upload); it is named here too because SPEC §7 lists it for imports."""

from __future__ import annotations

from apps.core import safehttp
from apps.core.errors import NotFound, PayloadTooLarge, UnsupportedMediaType, ValidationError
from apps.media.errors import StorageQuotaExceeded
from apps.media.remote import HttpStatusError

__all__ = [
    "FAILURE_REASONS",
    "HttpStatusError",
    "ImportFileMissing",
    "InvalidImportFile",
    "StorageQuotaExceeded",
    "failure_reason",
]


class InvalidImportFile(ValidationError):
    """SPEC §7 "invalid file format: import stops with an error message": the message says why and names the line;
    ``details`` only has the line as a number (the reason once, not again in the details)."""

    def __init__(self, message: str, *, line: int | None = None):
        where = f" (line {line})" if line else ""
        details = {"line": line} if line else {}
        super().__init__(f"The file cannot be imported: {message}{where}", details=details)


class ImportFileMissing(NotFound):
    """The stored export of an analysis is gone from the import storage (pruned, or kept on another machine's disk
    before the storage was shared). Worded for the person importing: a server path says nothing to them and tells
    others how the server is laid out."""

    default_message = "The uploaded file of this import is no longer available; upload it again."


# Why an attachment's download or storing failed (``reason`` of each media failure), in groups a person acts on
# differently, with what the command line calls them.
FAILURE_REASONS = {
    "unreachable": "host unreachable",
    "timeout": "timed out",
    "blocked": "address refused (not a public host)",
    "httpStatus": "HTTP error status",
    "tooLarge": "too large",
    "refusedType": "refused type",
    "invalid": "empty or unreadable file",
    "other": "other",
}
_REASON_OF = (
    (safehttp.BlockedDestination, "blocked"),
    (safehttp.FetchTimeout, "timeout"),
    (safehttp.ResponseTooLarge, "tooLarge"),
    (PayloadTooLarge, "tooLarge"),
    (HttpStatusError, "httpStatus"),
    (safehttp.FetchFailed, "unreachable"),
    (UnsupportedMediaType, "refusedType"),
    (ValidationError, "invalid"),
)


def failure_reason(error: Exception) -> str:
    return next((reason for kind, reason in _REASON_OF if isinstance(error, kind)), "other")
