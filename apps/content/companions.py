"""What answers show beside an entry from other tables (its byline credits, and higher apps' rows such as its terms),
read in the entry's own query.

Each companion is a subquery answering the entry's rows of another table as JSON text (``apps.core.db.jsonrows``),
selected as a column ``companion_<name>`` of every query that reads entries for answers. A GET of one imported post
made four queries (token, entry, terms, credits), and on PostgreSQL each round trip was an eighth of the request;
now it makes two (issue 21). Code that gets entries another way (a service's own instance after a write) finds no
companion and falls back to a query of its own (``attach_credits``; ``taxonomy.selectors.terms_for_entries``).

Higher apps register theirs from ``AppConfig.ready()`` (``register_entry_companion``); the queries that carry them
are compiled once, at their first use, after every app is ready.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import orjson
from django.db.models import Expression, OuterRef

from apps.content.models import EntryByline
from apps.core.db.jsonrows import json_rows
from apps.core.db.prepared import PreparedQuery

PREFIX = "companion_"
# Not read with the entry (``entry_companion``): the caller queries instead.
NOT_READ = object()
_COMPANIONS: dict[str, Callable[[], Expression]] = {}


def register_entry_companion(name: str, rows: Callable[[], Expression]) -> None:
    """Have ``rows()`` (a ``json_rows`` subquery correlated with the entry by ``OuterRef("pk")``) read beside every
    entry read for an answer, as ``entry_companion(entry, name)``."""
    _COMPANIONS[name] = rows


def companion_annotations() -> dict[str, Expression]:
    return {PREFIX + name: rows() for name, rows in _COMPANIONS.items()}


def entry_companion(entry, name: str):
    """The JSON text of ``name``'s rows read with ``entry`` (None when it has none), or ``NOT_READ``."""
    companions = getattr(entry, "companions", None)
    if isinstance(companions, dict):
        return companions.get(name, NOT_READ)
    return getattr(entry, PREFIX + name, NOT_READ)


def companion_texts(entry) -> tuple:
    """Every companion's JSON text read with ``entry``, in registration order (None where not read): what the answer
    shows from other tables, for validators (a term renamed changes the answer, not the entry's row)."""
    texts = []
    for name in _COMPANIONS:
        text = entry_companion(entry, name)
        texts.append(None if text is NOT_READ else text)
    return tuple(texts)


def companion_rows(entries: Sequence, name: str) -> dict[str, list] | None:
    """``{entry id: [row, …]}`` of ``name``'s rows read with ``entries``, or None when any of them was read without."""
    carried = {}
    for entry in entries:
        text = entry_companion(entry, name)
        if text is NOT_READ:
            return None
        carried[entry.pk] = orjson.loads(text) if text else []
    return carried


# Byline credits -------------------------------------------------------------------------------------------------


class CreditedByline(NamedTuple):
    display_name: str
    user_id: int | None
    is_guest: bool


class Credit(NamedTuple):
    """One byline credit as read for answers: the attributes of an ``EntryByline`` with its ``byline`` that
    presenters use, without building two model instances per credit (tuples: built four times faster than frozen
    dataclasses)."""

    entry_id: str
    byline_id: str
    role_label: str
    byline: CreditedByline


_CREDIT_COLUMNS = ("byline_id", "role_label", "byline__display_name", "byline__user_id", "byline__is_guest")
register_entry_companion(
    "credits",
    lambda: json_rows(
        EntryByline.objects.filter(entry_id=OuterRef("pk")), "entry_id", (*_CREDIT_COLUMNS, "sort_order")
    ),
)
# The credits of entries read without them, compiled once per number of entries (see PreparedQuery).
_CREDITS_OF_ENTRIES = PreparedQuery(
    lambda entry_ids: (
        EntryByline.objects.filter(entry_id__in=entry_ids)
        .order_by("sort_order")
        .values_list("entry_id", *_CREDIT_COLUMNS)
    ),
    lists=("entry_ids",),
)


def attach_credits(entries: list) -> list:
    """Set ``entry.credit_list`` (``Credit`` items in their order) on each of ``entries``: from the credits read
    with them, else from one query, skipped when none has a primary byline (an entry has credits exactly when it has
    a primary byline)."""
    by_entry: dict[str, list[Credit]] = {}
    carried = companion_rows(entries, "credits")
    if carried is not None:
        for entry_id, rows in carried.items():
            rows.sort(key=lambda row: row[-1])
            by_entry[entry_id] = [
                # SQLite's JSON has no booleans: is_guest comes as 0 or 1 there.
                Credit(entry_id, byline_id, role, CreditedByline(name, user_id, bool(guest)))
                for byline_id, role, name, user_id, guest, _ in rows
            ]
    else:
        credited = [entry.pk for entry in entries if entry.primary_byline_id]
        for entry_id, byline_id, role, name, user_id, guest in _CREDITS_OF_ENTRIES.fetch(entry_ids=credited):
            by_entry.setdefault(entry_id, []).append(
                Credit(entry_id, byline_id, role, CreditedByline(name, user_id, guest))
            )
    for entry in entries:
        entry.credit_list = by_entry.get(entry.pk, [])
    return entries
