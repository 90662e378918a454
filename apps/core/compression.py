"""Compression of JSON (and XML) answers: brotli when the client accepts it, else gzip (issue 22).

Only answers of those types at least ``CMS_COMPRESS_MIN_BYTES`` long are compressed: smaller ones gain less than the
headers cost, and media and file downloads are already compressed (or ranged, or streamed) and keep their bytes.
Every answer of a compressible type says ``Vary: Accept-Encoding``, compressed or not, so a shared cache keeps one copy
per coding. A strong ETag stays strong and becomes distinct per coding (``"…-br"``, ``"…-gzip"``, the marks in
apps/core/httpcache.py, which ignores them when comparing validators); Django's GZipMiddleware would weaken it instead.

Brotli at quality 5 and gzip at level 6: near their best ratio on JSON at a fraction of the slowest levels' time
(docs/performance.md "Public reads (issue 22)").
"""

from __future__ import annotations

import gzip

import brotli
from django.conf import settings
from django.utils.cache import patch_vary_headers
from django.utils.deprecation import MiddlewareMixin

from apps.core.httpcache import CODING_MARKS

COMPRESSIBLE = ("application/json", "application/xml", "text/xml")
BROTLI_QUALITY = 5
GZIP_LEVEL = 6


def _compressible(content_type: str) -> bool:
    media_type = content_type.split(";")[0].strip().lower()
    return media_type in COMPRESSIBLE or media_type.endswith(("+json", "+xml"))


def accepted_coding(header: str) -> str | None:
    """``br`` or ``gzip``, the better one the ``Accept-Encoding`` header accepts (``q=0`` refuses), else None."""
    weights: dict[str, float] = {}
    for part in header.split(","):
        name, _, params = part.strip().partition(";")
        weight = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        if name:
            weights[name.strip().lower()] = weight
    for coding in ("br", "gzip"):
        if weights.get(coding, weights.get("*", 0.0)) > 0:
            return coding
    return None


def compress(body: bytes, coding: str) -> bytes:
    if coding == "br":
        return brotli.compress(body, quality=BROTLI_QUALITY)
    return gzip.compress(body, compresslevel=GZIP_LEVEL, mtime=0)


class CompressionMiddleware(MiddlewareMixin):
    def process_response(self, request, response):
        if (
            response.streaming
            or response.status_code < 200
            or response.status_code in (204, 206, 304)
            or response.has_header("Content-Encoding")
            or not _compressible(response.get("Content-Type", ""))
        ):
            return response
        patch_vary_headers(response, ("Accept-Encoding",))
        threshold = settings.CMS_COMPRESS_MIN_BYTES
        if threshold <= 0 or len(response.content) < threshold:
            return response
        coding = accepted_coding(request.headers.get("Accept-Encoding", ""))
        if coding is None:
            return response
        compressed = compress(response.content, coding)
        if len(compressed) >= len(response.content):
            return response
        response.content = compressed
        response["Content-Length"] = str(len(compressed))
        response["Content-Encoding"] = coding
        etag = response.get("ETag")
        if etag and etag.startswith('"'):
            response["ETag"] = f'{etag[:-1]}{CODING_MARKS[coding]}"'
        return response
