"""PreparedQuery (apps/core/db/prepared.py) answers as the queryset it was built from would, once compiled."""

from __future__ import annotations

import pytest

from apps.content.models import Entry
from apps.core.db.prepared import PreparedQuery
from tests.factories import make_entry


def test_values_list_rows_are_the_orms_rows_converted(posts_collection):
    first = make_entry(posts_collection, {"title": "One"}, slug="one")
    make_entry(posts_collection, {"title": "Two"}, slug="two")
    columns = ("pk", "slug", "created_at", "collection__slug")

    def build(slug):
        return Entry.objects.filter(slug=slug).values_list(*columns)

    prepared = PreparedQuery(build, "slug")

    assert prepared.fetch(slug="one") == list(build("one")) == [(first.pk, "one", first.created_at, "posts")]
    assert prepared.fetch(slug="two") == list(build("two"))
    assert prepared.fetch(slug="none") == []


def test_values_dicts_are_refused(posts_collection):
    prepared = PreparedQuery(lambda slug: Entry.objects.filter(slug=slug).values("slug"), "slug")

    with pytest.raises(ValueError, match="values"):
        prepared.fetch(slug="one")


def test_list_placeholders_compile_once_per_length_and_empty_lists_match_nothing(posts_collection):
    entries = [make_entry(posts_collection, {"title": str(n)}, slug=f"e{n}") for n in range(3)]

    def build(ids):
        return Entry.objects.filter(pk__in=ids).order_by("slug").values_list("slug", flat=False)

    prepared = PreparedQuery(build, lists=("ids",))

    assert prepared.fetch(ids=[entries[2].pk, entries[0].pk]) == [("e0",), ("e2",)]
    assert prepared.fetch(ids=[entries[1].pk, entries[2].pk]) == [("e1",), ("e2",)]
    assert prepared.fetch(ids=[entry.pk for entry in entries]) == [("e0",), ("e1",), ("e2",)]
    assert prepared.fetch(ids=["missing"]) == []
    assert prepared.fetch(ids=[]) == []
    # One compiled statement per list length asked for (2, 3 and 1), none for the empty list.
    assert sorted(key[1] for key in prepared._compiled) == [1, 2, 3]
