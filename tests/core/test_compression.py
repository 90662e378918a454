"""Long JSON and text values are compressed with lz4 on PostgreSQL (apps/core/migration_operations.py), and read
back unchanged through the API."""

from __future__ import annotations

import pytest
from django.db import connection

from tests.factories import make_collection, make_entry

pytestmark = pytest.mark.requires_postgres


def test_entries_and_their_revisions_are_stored_with_lz4(admin_api):
    collection = make_collection("notes", [("title", "string"), ("body", "text")], supports=["revisions"])
    # Varied text, long enough to be compressed (PostgreSQL compresses rows past about 2 kB).
    body = " ".join(f"line {number} of the note, with words that repeat" for number in range(400))
    entry = make_entry(collection, {"title": "Long", "body": body}, status="published")

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_column_compression(data), pg_column_compression(live_data) FROM content_entry WHERE id = %s",
            [entry.pk],
        )
        assert cursor.fetchone() == ("lz4", "lz4")
        cursor.execute(
            "SELECT pg_column_compression(data) FROM content_revision WHERE entry_id = %s", [entry.pk]
        )
        assert cursor.fetchone() == ("lz4",)

    response = admin_api.get(f"/_cms/api/content/notes/{entry.pk}")
    assert response.status_code == 200
    assert response.json()["data"]["item"]["data"] == {"title": "Long", "body": body}
