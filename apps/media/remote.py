"""Bytes of an upload that do not arrive as a multipart file: downloaded from a URL through the safe HTTP client
(``apps/core/safehttp.py``: public hosts only, size and time bounded), or given as base64 text (tool calls, which
carry JSON only). Either becomes a file object for ``services.media_upload``, which then checks it as it checks a
REST upload (type sniffed from the bytes, size limit, deduplication, quota).

The importer downloads attachments with ``download`` too; ``file_from_url`` and ``file_from_base64`` turn what can
go wrong into the API's errors for a caller who gave the URL or the text.
"""

from __future__ import annotations

import base64
import binascii
import io
import re
import tempfile
from pathlib import PurePosixPath
from urllib.parse import urlsplit

from django.conf import settings

from apps.core import safehttp
from apps.core.errors import ValidationError
from apps.media.errors import MediaTooLarge

# A downloaded file stays in memory up to this size, then moves to a temporary file.
SPOOL_BYTES = 4 * 1024 * 1024
# A tool call waits for its download: bounded well below a client's patience.
TOOL_READ_TIMEOUT = 20.0
TOOL_TOTAL_TIMEOUT = 60.0
_DATA_URL = re.compile(r"^data:[^,;]*(?:;[^,;]*)*;base64,", re.IGNORECASE)
_WHITESPACE = re.compile(r"\s+")


class HttpStatusError(safehttp.FetchFailed):
    """The host answered with an error status."""


def filename_from_url(url: str) -> str:
    """The last segment of the URL's path, as written ('' when the path has none)."""
    return PurePosixPath(urlsplit(url).path).name


def download(
    url: str, *, read_timeout: float = TOOL_READ_TIMEOUT, total_timeout: float = 300.0
) -> tempfile.SpooledTemporaryFile:
    """The body of ``url`` (at most ``CMS_MAX_UPLOAD_BYTES``), rewound; the caller closes it. Raises the safe
    client's errors, and ``HttpStatusError`` for an answer other than 2xx."""
    # Closed by the caller, which reads it after this returns.
    spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)  # noqa: SIM115
    try:
        with safehttp.open_stream(
            url,
            max_bytes=settings.CMS_MAX_UPLOAD_BYTES,
            read_timeout=read_timeout,
            total_timeout=total_timeout,
        ) as response:
            if not response.ok:
                raise HttpStatusError(f"{url} answered HTTP {response.status}.")
            for chunk in response.iter_bytes():
                spool.write(chunk)
    except BaseException:
        spool.close()
        raise
    spool.seek(0)
    return spool


def file_from_url(url: str) -> tempfile.SpooledTemporaryFile:
    """``download`` for a caller who gave the URL: a body over the limit is 413 as an upload would be; a refused
    address, an unreachable host or an error status is a VALIDATION_ERROR on ``url`` saying which."""
    try:
        return download(url, total_timeout=TOOL_TOTAL_TIMEOUT)
    except safehttp.ResponseTooLarge:
        limit = settings.CMS_MAX_UPLOAD_BYTES
        raise MediaTooLarge(
            f"The file at {url} is larger than the limit of {limit} bytes.",
            details={"url": f"At most {limit} bytes."},
        ) from None
    except safehttp.SafeHttpError as error:
        raise ValidationError(
            f"The file could not be fetched: {error}", details={"url": str(error)}
        ) from None


def decoded_size(text: str) -> int:
    """How many bytes base64 ``text`` (without whitespace) decodes to, without decoding it."""
    return len(text) * 3 // 4 - len(text[-2:]) + len(text[-2:].rstrip("="))


def file_from_base64(text: str) -> io.BytesIO:
    """The bytes of base64 ``text`` (whitespace and a ``data:…;base64,`` prefix allowed). Text that would decode
    to more than ``CMS_MAX_UPLOAD_BYTES`` is refused (413) before it is decoded."""
    text = _WHITESPACE.sub("", _DATA_URL.sub("", text, count=1))
    limit = settings.CMS_MAX_UPLOAD_BYTES
    size = decoded_size(text)
    if size > limit:
        raise MediaTooLarge(
            f"The file is {size} bytes; the limit is {limit} bytes.",
            details={"data": f"At most {limit} bytes."},
        )
    try:
        return io.BytesIO(base64.b64decode(text, validate=True))
    except (binascii.Error, ValueError):
        raise ValidationError(
            details={
                "data": "Not valid base64: use the standard alphabet (A-Z, a-z, 0-9, +, /) with = padding."
            }
        ) from None
