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
