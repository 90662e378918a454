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


def test_an_entry_with_terms_and_bylines_costs_the_same_two_queries(admin_api, posts_collection):
    """Terms and byline credits are read in the entry's own query (apps/content/companions.py), as imported posts
    all have them: a GET of one is the token and the entry, and a list page the token and its rows."""
    from apps.accounts.permissions import Actor
    from apps.taxonomy import services as taxonomy
    from tests.factories import make_byline

    system = Actor.system()
    tags = taxonomy.taxonomy_create(actor=system, name="tag", label="Tags", collections=["posts"])
    first, second = (
        taxonomy.term_create(actor=system, taxonomy=tags, label=label) for label in ("Zeta", "Alpha")
    )
    writers = [make_byline("Ada", user=admin_api.user), make_byline("Grace")]
    entries = []
    for number in range(3):
        entry = make_entry(
            posts_collection,
            {"title": f"Post {number}"},
            bylines=[{"bylineId": writers[1].pk, "roleLabel": "Photos"}, {"bylineId": writers[0].pk}],
        )
        taxonomy.entry_terms_set(actor=system, entry=entry, taxonomy=tags, term_ids=[first.pk, second.pk])
        entries.append(entry)
    admin_api.get(entry_url(entries[0]))

    with CaptureQueriesContext(connection) as one:
        item = admin_api.get(entry_url(entries[0])).json()["data"]["item"]
    with CaptureQueriesContext(connection) as page:
        items = admin_api.get(POSTS, {"limit": 3}).json()["data"]["items"]

    assert len(one.captured_queries) == 2
    assert len(page.captured_queries) == 2
    for shown in [item, *items]:
        # In the order they were given, not by name or id.
        assert [term["label"] for term in shown["terms"]["tag"]] == ["Zeta", "Alpha"]
        assert [(b["displayName"], b["roleLabel"], b["isGuest"], b["userId"]) for b in shown["bylines"]] == [
            ("Grace", "Photos", True, None),
            ("Ada", "", False, admin_api.user.pk),
        ]
