"""Reads use this process's cached schema while the schema's version token is unchanged; a request with a bearer token
reads that version alongside its token lookup, so reading one entry costs two queries (the token, the entry)."""

from __future__ import annotations

from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.core.ids import new_id
from apps.schema.models import Field, SchemaVersion
from tests.content.conftest import POSTS, entry_url, error_of, item_body
from tests.factories import make_entry


def test_reading_an_entry_with_a_bearer_token_costs_two_queries(admin_api, posts_collection):
    entry = make_entry(posts_collection, {"title": "Hello"})
    assert admin_api.get(entry_url(entry)).status_code == 200  # fills the cache, records the token's use

    with CaptureQueriesContext(connection) as queries:
        response = admin_api.get(entry_url(entry))

    assert response.status_code == 200
    assert response.json()["data"]["item"] == item_body(entry, meta=True)
    assert len(queries.captured_queries) == 2
    token_lookup = queries.captured_queries[0]["sql"]
    assert SchemaVersion._meta.db_table in token_lookup


def test_a_schema_change_made_by_another_process_is_seen_at_the_next_request(admin_api, posts_collection):
    make_entry(posts_collection, {"title": "Hello"})
    assert admin_api.get(POSTS, {"orderBy": "title"}).status_code == 200
    # Another process adds a field: only the database changes, this process's cache does not. Until its writer bumps
    # the version token, reads here still use the cached definition.
    Field.objects.create(
        collection_id=posts_collection.pk, slug="score", label="Score", type="number", sort_order=99
    )
    before = admin_api.get(POSTS, {"orderBy": "score"})
    assert before.status_code == 400
    assert "orderBy" in error_of(before)["details"]

    SchemaVersion.objects.filter(pk=1).update(token=new_id())
    after = admin_api.get(POSTS, {"orderBy": "score"})

    assert after.status_code == 200
    assert [item["data"]["title"] for item in after.json()["data"]["items"]] == ["Hello"]
