"""Errors of the import pipeline (SPEC §7 import rows), with their codes."""

from __future__ import annotations

from apps.core.errors import CmsError, ValidationError


class InvalidImportFile(ValidationError):
    """SPEC §7 "invalid file format: import stops with an error message": the message names the line."""

    def __init__(self, message: str, *, line: int | None = None):
        where = f" (line {line})" if line else ""
        details = {"file": f"{message}{where}"}
        if line:
            details["line"] = line
        super().__init__(f"The file cannot be imported: {message}{where}", details=details)


class StorageQuotaExceeded(CmsError):
    """SPEC §7 "storage quota exceeded: import stops and shows usage"; ``details`` has the usage."""

    code = "STORAGE_QUOTA_EXCEEDED"
    status = 507
    default_message = "The media storage quota is exhausted."
