"""JSON rendering with orjson: several times faster than the standard library on the large, nested documents content
lists carry, and able to splice stored JSON in unparsed (``orjson.Fragment``) so entry data read from the database is
not decoded and re-encoded on the way out."""

from __future__ import annotations

import datetime
import decimal
import uuid

import orjson
from django.utils.functional import Promise
from rest_framework.renderers import BaseRenderer


def _fallback(value):
    if isinstance(value, Promise):
        return str(value)
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, (uuid.UUID,)):
        return str(value)
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if isinstance(value, datetime.timedelta):
        return value.total_seconds()
    raise TypeError(f"Cannot serialize {type(value).__name__}")


class JSONRenderer(BaseRenderer):
    media_type = "application/json"
    format = "json"
    charset = None  # JSON is UTF-8 by definition (RFC 8259); no charset parameter

    def render(self, data, accepted_media_type=None, renderer_context=None) -> bytes:
        if data is None:
            return b""
        return orjson.dumps(data, default=_fallback, option=orjson.OPT_NON_STR_KEYS)
