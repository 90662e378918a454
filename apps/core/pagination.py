"""Keyset (cursor) pagination shared by REST and MCP (docs/architecture.md §4).

A page is ordered by one or more sort keys ending in a unique one (the id), so the order is total and stable under
concurrent inserts. The cursor is the last row's key values, signed with the secret key and bound to the ordering it
came from: a cursor that was altered, or replayed against another ordering, is a VALIDATION_ERROR, never a 500.
Each page costs one query, whatever its position: rows are found by comparing keys, not by OFFSET.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import reduce
from operator import and_, attrgetter, or_
from typing import Any, Generic, TypeVar

from django.conf import settings
from django.db.models import F, Q, QuerySet

from apps.core.errors import ValidationError
from apps.core.timefmt import parse_iso

T = TypeVar("T")

CURSOR_HINT = (
    "Malformed or altered cursor: pass the nextCursor of the previous page unchanged, with the same ordering."
)


@dataclass(frozen=True)
class SortKey:
    """One column of the ordering. ``name`` is a field or annotation of the queryset."""

    name: str
    descending: bool = False
    nullable: bool = False
    # How a value is stored in the cursor and read back: "datetime" values travel as ISO strings.
    kind: str = "scalar"

    def encode(self, value: Any) -> Any:
        if value is None:
            return None
        if self.kind == "datetime":
            return value.isoformat()
        return value

    def decode(self, value: Any) -> Any:
        if value is None:
            if not self.nullable:
                raise ValueError("null value for a non-null key")
            return None
        if self.kind == "datetime":
            parsed = parse_iso(value) if isinstance(value, str) else None
            if parsed is None:
                raise ValueError("not a datetime")
            return parsed
        if not isinstance(value, (str, int, float, bool)):
            raise ValueError("not a scalar")
        return value

    def order_expression(self):
        # NULLs sort lowest: first ascending, last descending. That is SQLite's native order, and PostgreSQL indexes
        # built NULLS FIRST serve it in both directions.
        expression = F(self.name)
        if self.descending:
            return expression.desc(nulls_last=True) if self.nullable else expression.desc()
        return expression.asc(nulls_first=True) if self.nullable else expression.asc()


@dataclass
class Page(Generic[T]):
    items: list[T]
    next_cursor: str | None

    def to_data(self, present: Callable[[T], Any]) -> dict[str, Any]:
        return {"items": [present(item) for item in self.items], "nextCursor": self.next_cursor}


def _signature(payload: bytes) -> bytes:
    return hmac.new(settings.SECRET_KEY.encode() + b":cursor", payload, hashlib.sha256).digest()[:12]


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def ordering_tag(keys: Sequence[SortKey], scope: str) -> str:
    """Identifies the ordering a cursor belongs to, so it cannot be replayed against another one."""
    return scope + "|" + ",".join(("-" if key.descending else "") + key.name for key in keys)


def encode_cursor(values: Iterable[Any], tag: str) -> str:
    payload = json.dumps([tag, list(values)], separators=(",", ":"), default=str).encode()
    return _b64(payload) + "." + _b64(_signature(payload))


def decode_cursor(cursor: str, keys: Sequence[SortKey], tag: str) -> list[Any]:
    try:
        body, signature = cursor.split(".")
        payload = _unb64(body)
        if not hmac.compare_digest(_unb64(signature), _signature(payload)):
            raise ValueError("bad signature")
        cursor_tag, raw = json.loads(payload)
        if cursor_tag != tag or not isinstance(raw, list) or len(raw) != len(keys):
            raise ValueError("cursor of another ordering")
        return [key.decode(value) for key, value in zip(keys, raw, strict=True)]
    except (ValueError, TypeError, UnicodeDecodeError) as exc:
        raise ValidationError(details={"cursor": CURSOR_HINT}) from exc


def _after(key: SortKey, value: Any) -> Q | None:
    """Rows strictly after ``value`` in this key's order (NULLs lowest); None when no row can be."""
    if key.descending:
        if value is None:
            return None  # NULLs come last: nothing sorts after one, later keys decide among them
        condition = Q(**{f"{key.name}__lt": value})
        return condition | Q(**{f"{key.name}__isnull": True}) if key.nullable else condition
    if value is None:
        return Q(**{f"{key.name}__isnull": False})
    return Q(**{f"{key.name}__gt": value})


def _equal(key: SortKey, value: Any) -> Q:
    return Q(**{f"{key.name}__isnull": True}) if value is None else Q(**{key.name: value})


def keyset_filter(keys: Sequence[SortKey], values: Sequence[Any]) -> Q:
    """(k1 after v1) OR (k1 = v1 AND k2 after v2) OR …, plus a plain range bound on the first key for the index."""
    branches = []
    for position, key in enumerate(keys):
        after = _after(key, values[position])
        if after is None:
            continue
        equal_prefix = [_equal(keys[i], values[i]) for i in range(position)]
        branches.append(reduce(and_, [*equal_prefix, after]))
    condition = reduce(or_, branches) if branches else Q(pk__in=[])
    first, first_value = keys[0], values[0]
    if not first.nullable and first_value is not None:
        # Redundant with the branches, but a simple range lets the database seek the index instead of filtering.
        condition &= Q(**{f"{first.name}__lte" if first.descending else f"{first.name}__gte": first_value})
    return condition


def keyset_page(
    queryset: QuerySet,
    *,
    keys: Sequence[SortKey],
    cursor: str | None,
    limit: int,
    scope: str,
    row: Callable[[Any], Any] | None = None,
) -> Page:
    """One page of ``queryset`` in ``keys`` order; the last key must be unique (normally the id).

    ``row`` turns each fetched row into the page's item (for ``.values()`` querysets); it must expose the keys as
    attributes."""
    tag = ordering_tag(keys, scope)
    queryset = queryset.order_by(*(key.order_expression() for key in keys))
    if cursor:
        queryset = queryset.filter(keyset_filter(keys, decode_cursor(cursor, keys, tag)))
    rows = list(queryset[: limit + 1])
    if row is not None:
        rows = [row(item) for item in rows]
    return finish_page(rows, keys=keys, limit=limit, tag=tag)


def finish_page(rows: list, *, keys: Sequence[SortKey], limit: int, tag: str) -> Page:
    """The page of ``rows`` read in ``keys`` order, up to ``limit + 1`` of them (one more than the page, which says
    a next page exists): the page's items and the cursor after its last."""
    next_cursor = None
    if len(rows) > limit:
        rows = rows[:limit]
        getters = [attrgetter(key.name) for key in keys]
        last = rows[-1]
        next_cursor = encode_cursor(
            (key.encode(get(last)) for key, get in zip(keys, getters, strict=True)), tag
        )
    return Page(items=rows, next_cursor=next_cursor)
