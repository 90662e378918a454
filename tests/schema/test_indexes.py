"""Generated per-field indexes (ARCHITECTURE §3): created with the field, dropped with it, and used by lists ordered
by a field. Checked in the database catalog (sqlite_master / pg_indexes) and with EXPLAIN, on both vendors."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.accounts.models import Role
from apps.schema.models import Field
from tests.factories import make_collection, make_entry, make_field

FIELDS = "/_cms/api/schema/collections/posts/fields"


def indexes_of(field_id: str) -> set[str]:
    """Names of the generated indexes of a field, read from the database catalog."""
    suffix = field_id.lower()
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT indexname FROM pg_indexes WHERE indexname LIKE %s", [f"cms_%_{suffix}"])
        else:
            cursor.execute(
                "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE %s", [f"cms_%_{suffix}"]
            )
        return {row[0] for row in cursor.fetchall()}


def names(field_id: str, *kinds: str) -> set[str]:
    return {f"cms_{kind}_{field_id.lower()}" for kind in kinds}


@pytest.mark.parametrize(
    ("definition", "kinds"),
    [
        ({"type": "string"}, ("sd", "sl")),
        ({"type": "integer"}, ("sd", "sl")),
        ({"type": "number"}, ("sd", "sl")),
        ({"type": "datetime"}, ("sd", "sl")),
        ({"type": "boolean"}, ("sd", "sl")),
        ({"type": "slug", "unique": True}, ("sd", "sl", "uq")),
        ({"type": "text", "unique": True}, ("uq",)),
        ({"type": "json"}, ()),
        ({"type": "portableText"}, ()),
    ],
)
def test_a_new_field_gets_its_indexes_and_loses_them_when_removed(
    admin_api, posts_collection, definition, kinds
):
    response = admin_api.post(FIELDS, {"slug": "extra", "label": "Extra", **definition}, format="json")
    assert response.status_code == 201
    field_id = response.json()["data"]["id"]
    assert indexes_of(field_id) == names(field_id, *kinds)

    assert admin_api.delete(f"{FIELDS}/extra").status_code == 200
    assert indexes_of(field_id) == set()


def test_unique_on_and_off_adds_and_drops_the_unique_index(admin_api, posts_collection):
    title = Field.objects.get(collection=posts_collection, slug="title")
    assert indexes_of(title.pk) == names(title.pk, "sd", "sl")
    assert admin_api.patch(f"{FIELDS}/title", {"unique": True}, format="json").status_code == 200
    assert indexes_of(title.pk) == names(title.pk, "sd", "sl", "uq")
    assert admin_api.patch(f"{FIELDS}/title", {"unique": False}, format="json").status_code == 200
    assert indexes_of(title.pk) == names(title.pk, "sd", "sl")


def test_a_type_change_replaces_the_indexes(admin_api, posts_collection):
    views = Field.objects.get(collection=posts_collection, slug="views")
    assert admin_api.patch(f"{FIELDS}/views", {"type": "json"}, format="json").status_code == 200
    assert indexes_of(views.pk) == set()
    assert admin_api.patch(f"{FIELDS}/views", {"type": "number"}, format="json").status_code == 200
    assert indexes_of(views.pk) == names(views.pk, "sd", "sl")


def test_deleting_a_collection_drops_the_indexes_of_its_fields(admin_api, posts_collection):
    make_entry(posts_collection, {"title": "x"})
    ids = list(
        Field.objects.filter(collection=posts_collection, slug__in=["title", "views"]).values_list(
            "pk", flat=True
        )
    )
    assert [indexes_of(field_id) for field_id in ids] == [names(field_id, "sd", "sl") for field_id in ids]
    assert admin_api.delete("/_cms/api/schema/collections/posts?force=true").status_code == 200
    assert [indexes_of(field_id) for field_id in ids] == [set(), set()]


def test_a_refused_schema_change_leaves_the_indexes_as_they_were(admin_api, posts_collection):
    make_entry(posts_collection, {"title": "Same"})
    make_entry(posts_collection, {"title": "Same"})
    title = Field.objects.get(collection=posts_collection, slug="title")
    assert admin_api.patch(f"{FIELDS}/title", {"unique": True}, format="json").status_code == 400
    assert indexes_of(title.pk) == names(title.pk, "sd", "sl")


# --- the list uses them ---------------------------------------------------------------------------------------------


def assert_ordered_by_index(sql: str, index: str) -> None:
    """The query reads ``index`` and needs no sort step of its own: the index delivers the order."""
    plan = explain(sql)
    assert index in plan, plan
    assert "Sort" not in plan and "TEMP B-TREE" not in plan, plan


def explain(sql: str) -> str:
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # With a handful of rows a sequential scan, or any index and a sort of its few rows, is cheapest; forbid
            # both to learn whether an index *can* deliver the order (if none can, the plan still shows a Sort).
            cursor.execute("SET LOCAL enable_seqscan = off")
            cursor.execute("SET LOCAL enable_sort = off")
            cursor.execute(f"EXPLAIN {sql}")
            plan = "\n".join(row[0] for row in cursor.fetchall())
            cursor.execute("SET LOCAL enable_sort = on")
            cursor.execute("SET LOCAL enable_seqscan = on")
            return plan
        cursor.execute(f"EXPLAIN QUERY PLAN {sql}")
        return "\n".join(str(row[-1]) for row in cursor.fetchall())


def list_query(api, params: dict) -> str:
    """The SQL of the entry list query an HTTP list request runs."""
    with CaptureQueriesContext(connection) as captured:
        response = api.get("/_cms/api/content/posts", params)
    assert response.status_code == 200
    selects = [
        query["sql"]
        for query in captured.captured_queries
        if query["sql"].startswith("SELECT")
        and 'FROM "content_entry"' in query["sql"]
        and "ORDER BY" in query["sql"]
    ]
    assert len(selects) == 1, selects
    return selects[0]


@pytest.mark.parametrize(
    ("order_by", "field_slug"), [("title", "title"), ("views", "views"), ("score", "score"), ("day", "day")]
)
@pytest.mark.parametrize("order", ["asc", "desc"])
def test_a_list_ordered_by_a_field_uses_its_index(admin_api, client_for, order_by, field_slug, order):
    collection = make_collection(
        "posts",
        fields=[
            {"slug": "title"},
            {"slug": "views", "type": "integer"},
            {"slug": "score", "type": "number"},
            {"slug": "day", "type": "datetime"},
        ],
    )
    for number in range(5):
        make_entry(
            collection,
            {"title": f"t{number}", "views": number, "score": number / 2, "day": f"2026-01-0{number + 1}"},
            status="published",
        )
    field = Field.objects.get(collection=collection, slug=field_slug)

    # Editors order the working copies (data); the public the published versions (live_data).
    query = {"orderBy": order_by, "order": order, "limit": 2}
    assert_ordered_by_index(list_query(admin_api, query), f"cms_sd_{field.pk.lower()}")
    reader = client_for(role=Role.SUBSCRIBER, scopes=["content:read"])
    assert_ordered_by_index(list_query(reader, query), f"cms_sl_{field.pk.lower()}")


@pytest.mark.parametrize(
    ("order_by", "index"),
    [
        ("createdAt", "content_entry_created"),
        ("updatedAt", "content_entry_updated"),
        ("publishedAt", "content_entry_published"),
        ("slug", "content_entry_slug"),
    ],
)
def test_a_list_in_a_built_in_order_uses_its_index(admin_api, order_by, index):
    # content_entry_published is created by raw SQL (migration content 0002): a later migration that made SQLite
    # rebuild the table would lose it, and this order would sort the whole collection on every page.
    collection = make_collection("posts", fields=[{"slug": "title"}])
    for number in range(5):
        make_entry(collection, {"title": f"t{number}"}, status="published")
    assert_ordered_by_index(list_query(admin_api, {"orderBy": order_by, "limit": 2}), index)


def test_the_next_page_of_a_field_ordering_uses_the_index_too(admin_api):
    collection = make_collection("posts", fields=[{"slug": "views", "type": "integer"}])
    for number in range(5):
        make_entry(collection, {"views": number})
    field = Field.objects.get(collection=collection, slug="views")
    cursor = admin_api.get("/_cms/api/content/posts", {"orderBy": "views", "limit": 2}).json()["data"][
        "nextCursor"
    ]
    sql = list_query(admin_api, {"orderBy": "views", "limit": 2, "cursor": cursor})
    assert_ordered_by_index(sql, f"cms_sd_{field.pk.lower()}")


def test_an_unindexed_field_cannot_order_a_list(admin_api, posts_collection):
    make_field(posts_collection, "extra", "json")
    response = admin_api.get("/_cms/api/content/posts", {"orderBy": "extra"})
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "orderBy": "Cannot order by 'extra'; choose one of: createdAt, updatedAt, publishedAt, slug, title, views."
    }
