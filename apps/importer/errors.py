"""Errors of the import pipeline (SPEC §7 import rows), with their codes. The media quota is the media service's
(``StorageQuotaExceeded``, enforced on every upload); it is named here too because SPEC §7 lists it for imports."""

from __future__ import annotations

from apps.core.errors import ValidationError
from apps.media.errors import StorageQuotaExceeded

__all__ = ["InvalidImportFile", "StorageQuotaExceeded"]


class InvalidImportFile(ValidationError):
    """SPEC §7 "invalid file format: import stops with an error message": the message names the line."""

    def __init__(self, message: str, *, line: int | None = None):
        where = f" (line {line})" if line else ""
        details = {"file": f"{message}{where}"}
        if line:
            details["line"] = line
        super().__init__(f"The file cannot be imported: {message}{where}", details=details)
