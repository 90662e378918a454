"""The JSON request parser: orjson instead of the standard library's decoder.

The standard decoder recurses once per nesting level, so a body of a hundred thousand ``[`` raised RecursionError (a
500); orjson stops at depth 1024 with a decode error. It also refuses invalid UTF-8 and lone surrogates, which no
database can store, and it is several times faster on large Portable Text bodies.

Text containing NUL, and nesting deeper than any document we define (``MAX_DEPTH``), are refused here too, naming
where they are: PostgreSQL cannot store NUL in text or JSON columns (and the two databases must answer alike), and
nesting of a few hundred levels made recursive validators downstream fail with a 500.
"""

from __future__ import annotations

import orjson
from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser

from apps.core.errors import ValidationError

# Deep enough for any document the API defines (Portable Text, nested menus); shallow enough that no recursive
# validator or serialiser downstream can hit Python's recursion limit.
MAX_DEPTH = 64
NUL_MESSAGE = "Text may not contain the NUL character (\\u0000)."


def json_problem(value, *, root: str = "body") -> tuple[str, str] | None:
    """``(dotted path, message)`` of the first string or key holding U+0000 or the first container nested deeper
    than ``MAX_DEPTH``, else None. Iterative, so the check itself cannot overflow the stack."""
    stack = [(value, "", 0)]
    while stack:
        node, path, depth = stack.pop()
        if isinstance(node, str):
            if "\x00" in node:
                return path or root, NUL_MESSAGE
        elif isinstance(node, (dict, list)):
            if depth >= MAX_DEPTH:
                return path or root, f"Nested more than {MAX_DEPTH} levels deep."
            for key, item in node.items() if isinstance(node, dict) else enumerate(node):
                inner = f"{path}.{key}" if path else str(key)
                if isinstance(key, str) and "\x00" in key:
                    return inner, NUL_MESSAGE
                stack.append((item, inner, depth + 1))
    return None


def loads_checked(raw: bytes | str):
    """Decode a JSON document from a client: ParseError for bad JSON, ValidationError for text with NUL."""
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ParseError(f"JSON parse error - {exc}") from None
    problem = json_problem(data)
    if problem is not None:
        raise ValidationError(details={problem[0]: problem[1]})
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
