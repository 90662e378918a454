"""The JSON request parser: orjson instead of the standard library's decoder.

The standard decoder recurses once per nesting level, so a body of a hundred thousand ``[`` raised RecursionError (a
500); orjson stops at depth 1024 with a decode error. It also refuses invalid UTF-8 and lone surrogates, which no
database can store, and it is several times faster on large Portable Text bodies.

Text containing NUL is refused here too, naming where it is: PostgreSQL cannot store it in text or JSON columns, and
a CMS that accepted it on SQLite but failed on PostgreSQL would make the two databases behave differently.
"""

from __future__ import annotations

import orjson
from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser

from apps.core.errors import ValidationError


def nul_path(value, path: str = "") -> str | None:
    """The dotted path of the first string (or object key) holding U+0000, or None."""
    if isinstance(value, str):
        return (path or "body") if "\x00" in value else None
    if isinstance(value, dict):
        for key, item in value.items():
            inner = f"{path}.{key}" if path else str(key)
            if "\x00" in key:
                return inner
            found = nul_path(item, inner)
            if found:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = nul_path(item, f"{path}.{index}" if path else str(index))
            if found:
                return found
    return None


def loads_checked(raw: bytes | str):
    """Decode a JSON document from a client: ParseError for bad JSON, ValidationError for text with NUL."""
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ParseError(f"JSON parse error - {exc}") from None
    path = nul_path(data)
    if path is not None:
        raise ValidationError(details={path: "Text may not contain the NUL character (\\u0000)."})
    return data


class JSONParser(BaseParser):
    media_type = "application/json"

    def parse(self, stream, media_type=None, parser_context=None):
        if stream is None:
            return loads_checked(b"")
        # DRF hands over the raw request stream, which Django only size-checks when read through `request.body`.
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        raw = stream.read() if limit is None else stream.read(limit + 1)
        if limit is not None and len(raw) > limit:
            raise RequestDataTooBig("Request body exceeded settings.DATA_UPLOAD_MAX_MEMORY_SIZE.")
        return loads_checked(raw)
