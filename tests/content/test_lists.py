"""Entry lists (SPEC §4.2, §8): status and locale filters, every ordering in both directions walked page by page
against the expected order (no duplicates, no gaps), stability under inserts between pages, the trash, what readers
below contributor see, and a page costing the same number of queries whatever its size."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from apps.accounts.models import Role
from apps.content.models import Entry
from tests.content.conftest import POSTS, entry_url, error_of, item_body
from tests.factories import make_byline, make_entry, make_field

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def walk(api, limit: int, **params) -> list[dict]:
    """Every item of a list, page by page; each page but the last is full."""
    items, cursor = [], None
    while True:
        response = api.get(POSTS, {"limit": limit, **params, **({"cursor": cursor} if cursor else {})})
        assert response.status_code == 200, response.json()
        data = response.json()["data"]
        items += data["items"]
        cursor = data["nextCursor"]
        if cursor is None:
            return items
        assert len(data["items"]) == limit


@pytest.fixture
def catalogue(posts_collection, admin_user):
    """Nine entries: drafts and published ones, ties in every ordering, missing values in the optional fields."""
    make_field(posts_collection, "subtitle", "string")
    make_field(posts_collection, "score", "number")
    rows = [
        # title, subtitle, views, score, status, created (minutes after T0), published (minutes) or None
        ("delta", "mango", 5, 2.5, "published", 0, 30),
        ("alpha", None, 1, -1.0, "draft", 1, None),
        ("echo", "apple", 5, None, "published", 1, 10),
        ("bravo", "kiwi", None, 10.25, "draft", 2, None),
        ("charlie", None, 3, 2.5, "published", 3, 10),
        ("foxtrot", "apple", 7, 0.0, "draft", 3, None),
        ("golf", "zucchini", 2, 100.0, "published", 4, 45),
        ("hotel", None, None, None, "draft", 5, None),
        ("india", "banana", 9, -3.5, "published", 6, 5),
    ]
    entries = []
    for title, subtitle, views, score, status, created, published in rows:
        data = {"title": title}
        data.update(
            {
                key: value
                for key, value in (("subtitle", subtitle), ("views", views), ("score", score))
                if value is not None
            }
        )
        entry = make_entry(posts_collection, data, author=admin_user, status=status, slug=title)
        moment = T0 + timedelta(minutes=created)
        Entry.objects.filter(pk=entry.pk).update(
            created_at=moment,
            # Updated in another order than created: the reverse, with a tie.
            updated_at=T0 + timedelta(minutes=10 - min(created, 5)),
            published_at=T0 + timedelta(minutes=published) if published is not None else None,
        )
        entries.append(entry)
    return entries


def expected_ids(key, *, descending: bool, only=None) -> list[str]:
    """Entry ids in the API's order: by ``key(entry)`` with NULLs lowest, then by id; descending reverses both."""
    entries = [
        entry for entry in Entry.objects.filter(deleted_at__isnull=True) if only is None or only(entry)
    ]
    ordered = sorted(entries, key=lambda entry: (key(entry) is not None, key(entry) or 0, entry.pk))
    ids = [entry.pk for entry in ordered]
    return ids[::-1] if descending else ids


ORDERINGS = {
    "createdAt": lambda entry: entry.created_at,
    "updatedAt": lambda entry: entry.updated_at,
    "publishedAt": lambda entry: entry.published_at,
    "slug": lambda entry: entry.slug,
    "title": lambda entry: entry.data.get("title"),
    "subtitle": lambda entry: entry.data.get("subtitle"),
    "views": lambda entry: entry.data.get("views"),
    "score": lambda entry: entry.data.get("score"),
}


@pytest.mark.parametrize("order_by", list(ORDERINGS))
@pytest.mark.parametrize("order", ["asc", "desc"])
@pytest.mark.parametrize("limit", [2, 4])
def test_every_ordering_pages_through_all_entries_in_order(admin_api, catalogue, order_by, order, limit):
    items = walk(admin_api, limit, orderBy=order_by, order=order)
    ids = [item["id"] for item in items]
    assert len(ids) == len(set(ids)) == 9
    # Text values are plain lowercase ASCII words, which every collation orders as Python does.
    assert ids == expected_ids(ORDERINGS[order_by], descending=order == "desc")
    assert items == [item_body(entry_id) for entry_id in ids]


def test_the_default_order_is_newest_first_with_50_per_page(admin_api, catalogue):
    response = admin_api.get(POSTS)
    assert response.status_code == 200
    ids = [item["id"] for item in response.json()["data"]["items"]]
    assert ids == expected_ids(ORDERINGS["createdAt"], descending=True)
    assert response.json()["data"]["nextCursor"] is None


def test_tool_server_spellings_of_system_orders_are_accepted(admin_api, catalogue):
    by_alias = [item["id"] for item in walk(admin_api, 3, orderBy="published_at", order="asc")]
    assert by_alias == expected_ids(ORDERINGS["publishedAt"], descending=False)


@pytest.mark.parametrize("status", ["draft", "published", "scheduled"])
def test_the_status_filter(admin_api, catalogue, status):
    items = walk(admin_api, 2, status=status, orderBy="slug", order="asc")
    assert [item["id"] for item in items] == expected_ids(
        ORDERINGS["slug"], descending=False, only=lambda entry: entry.status == status
    )
    assert {item["status"] for item in items} <= {status}


@override_settings(CMS_LOCALES=["en", "fr"])
def test_the_locale_filter(admin_api, catalogue, posts_collection):
    french = make_entry(posts_collection, {"title": "bonjour"}, locale="fr")
    assert [item["id"] for item in walk(admin_api, 5, locale="fr")] == [french.pk]
    assert len(walk(admin_api, 5, locale="en")) == 9
    assert len(walk(admin_api, 5)) == 10


@pytest.mark.parametrize(
    ("params", "details"),
    [
        (
            {"orderBy": "colour"},
            {
                "orderBy": "Cannot order by 'colour'; choose one of: createdAt, updatedAt, publishedAt, slug, title, views."
            },
        ),
        (
            {"orderBy": "body"},
            {
                "orderBy": "Cannot order by 'body'; choose one of: createdAt, updatedAt, publishedAt, slug, title, views."
            },
        ),
        ({"order": "up"}, {"order": '"up" is not a valid choice.'}),
        ({"status": "trash"}, {"status": '"trash" is not a valid choice.'}),
        ({"limit": 0}, {"limit": "Ensure this value is greater than or equal to 1."}),
        ({"limit": 101}, {"limit": "Ensure this value is less than or equal to 100."}),
        (
            {"sort": "slug"},
            {
                "sort": "Unknown query parameter; allowed: cursor, fields, limit, locale, order, orderBy, status, terms."
            },
        ),
    ],
)
def test_bad_list_parameters_are_refused(admin_api, posts_collection, params, details):
    response = admin_api.get(POSTS, params)
    assert response.status_code == 400
    assert error_of(response)["code"] == "VALIDATION_ERROR"
    assert error_of(response)["details"] == details


def test_a_cursor_only_works_with_its_own_ordering(admin_api, catalogue):
    cursor = admin_api.get(POSTS, {"limit": 2, "orderBy": "views"}).json()["data"]["nextCursor"]
    response = admin_api.get(POSTS, {"limit": 2, "orderBy": "score", "cursor": cursor})
    assert response.status_code == 400
    assert list(error_of(response)["details"]) == ["cursor"]


@pytest.mark.parametrize(("order_by", "order"), [("createdAt", "desc"), ("views", "asc"), ("title", "desc")])
def test_pages_are_stable_under_inserts_between_them(admin_api, catalogue, posts_collection, order_by, order):
    before = walk(admin_api, 50, orderBy=order_by, order=order)
    first = admin_api.get(POSTS, {"limit": 3, "orderBy": order_by, "order": order}).json()["data"]
    # New entries land before, inside and after the part already read.
    for title, views in (("aaa", -100), ("delta", 5), ("zzz", 1000)):
        make_entry(posts_collection, {"title": title, "views": views})
    rest = (
        walk(admin_api, 3, orderBy=order_by, order=order, cursor=first["nextCursor"])
        if first["nextCursor"]
        else []
    )
    seen = [item["id"] for item in first["items"]] + [item["id"] for item in rest]
    assert len(seen) == len(set(seen)), "an entry was listed twice"
    # Every entry that existed before appears once, in the same relative order: nothing skipped.
    old = [item["id"] for item in before]
    assert [entry_id for entry_id in seen if entry_id in old] == old


# --- trash ----------------------------------------------------------------------------------------------------------


def test_trashed_entries_are_only_in_the_trash(admin_api, catalogue):
    trashed = [catalogue[0], catalogue[4], catalogue[7]]
    for entry in trashed:
        assert admin_api.delete(entry_url(entry)).status_code == 200
    for params in ({}, {"status": "published"}, {"orderBy": "views"}, {"orderBy": "publishedAt"}):
        listed = {item["id"] for item in walk(admin_api, 4, **params)}
        assert not listed & {entry.pk for entry in trashed}
    assert len(walk(admin_api, 50)) == 6

    items = []
    cursor = None
    while True:
        response = admin_api.get(f"{POSTS}/trash", {"limit": 2, **({"cursor": cursor} if cursor else {})})
        assert response.status_code == 200
        items += response.json()["data"]["items"]
        cursor = response.json()["data"]["nextCursor"]
        if not cursor:
            break
    # Most recently trashed first.
    stored = sorted(
        Entry.objects.filter(deleted_at__isnull=False), key=lambda e: (e.deleted_at, e.pk), reverse=True
    )
    assert [item["id"] for item in items] == [entry.pk for entry in stored]
    assert items == [item_body(entry) for entry in stored]
    assert all(item["deletedAt"] for item in items)


def test_the_trash_of_an_empty_collection(admin_api, posts_collection):
    response = admin_api.get(f"{POSTS}/trash")
    assert response.json() == {"success": True, "data": {"items": [], "nextCursor": None}}


# --- readers below contributor --------------------------------------------------------------------------------------


@pytest.fixture
def reader(client_for):
    return client_for(role=Role.SUBSCRIBER, scopes=["content:read"])


def test_readers_see_published_entries_only_with_their_published_data(admin_api, reader, catalogue):
    live = catalogue[0]
    # Unpublished changes to a published entry stay invisible to readers.
    admin_api.patch(entry_url(live), {"data": {"title": "secret draft title", "views": 999}}, format="json")
    items = walk(reader, 2, orderBy="createdAt", order="asc")
    assert [item["id"] for item in items] == expected_ids(
        ORDERINGS["createdAt"], descending=False, only=lambda entry: entry.status == "published"
    )
    assert items == [item_body(item["id"], drafts=False) for item in items]
    assert items[0]["data"] == {"title": "delta", "subtitle": "mango", "views": 5, "score": 2.5}
    assert "liveData" not in items[0]
    # Ordering by a field orders the published values.
    by_views = [item["data"].get("views") for item in walk(reader, 2, orderBy="views", order="desc")]
    assert by_views == [9, 5, 5, 3, 2]


def test_readers_cannot_list_drafts(reader, catalogue):
    response = reader.get(POSTS, {"status": "draft"})
    assert response.status_code == 403
    assert error_of(response) == {
        "code": "FORBIDDEN",
        "message": "Only published entries are visible to you: reading drafts needs the contributor role or higher.",
        "details": {"status": "Only 'published' is available to you."},
    }
    assert [item["status"] for item in walk(reader, 5, status="published")] == ["published"] * 5


def test_readers_get_404_for_drafts_and_the_published_data_of_live_entries(admin_api, reader, catalogue):
    draft, live = catalogue[1], catalogue[0]
    for ref in (draft.pk, draft.slug):
        response = reader.get(entry_url(ref))
        assert response.status_code == 404
        assert error_of(response)["message"] == f"No entry '{ref}' in 'posts'."
    admin_api.patch(entry_url(live), {"data": {"title": "changed"}}, format="json")
    response = reader.get(entry_url(live))
    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "data": {
            "item": item_body(
                live, drafts=False, data={"title": "delta", "subtitle": "mango", "views": 5, "score": 2.5}
            ),
            "_rev": Entry.objects.get(pk=live.pk).rev,
        },
    }
    assert reader.get(f"{POSTS}/delta").json()["data"]["item"]["id"] == live.pk
    # An unpublished entry disappears for readers; trashed ones too.
    admin_api.post(entry_url(live, "/unpublish"), {}, format="json")
    assert reader.get(entry_url(live)).status_code == 404
    other = catalogue[2]
    admin_api.delete(entry_url(other))
    assert reader.get(entry_url(other)).status_code == 404


@pytest.mark.parametrize("suffix", ["/compare", "/revisions"])
def test_readers_cannot_see_drafts_through_compare_or_revisions(reader, catalogue, suffix):
    response = reader.get(entry_url(catalogue[0], suffix))
    assert response.status_code == 403
    assert error_of(response)["details"] == {"requiredRole": 20}


def test_readers_cannot_see_the_trash(reader, posts_collection):
    assert reader.get(f"{POSTS}/trash").status_code == 403


def test_contributors_see_drafts(client_for, catalogue):
    contributor = client_for(role=Role.CONTRIBUTOR, scopes=["content:read"])
    assert len(walk(contributor, 5)) == 9
    assert contributor.get(entry_url(catalogue[1])).status_code == 200


# --- query counts ---------------------------------------------------------------------------------------------------


def test_a_page_costs_the_same_queries_whatever_its_size(
    admin_api, posts_collection, django_assert_max_num_queries
):
    bylines = [make_byline(f"Writer {n}") for n in range(3)]
    make_field(posts_collection, "summary", "string")
    for number in range(60):
        make_entry(
            posts_collection,
            {"title": f"post {number}", "views": number},
            bylines=[
                {"bylineId": bylines[number % 3].pk},
                {"bylineId": bylines[(number + 1) % 3].pk, "roleLabel": "Photos"},
            ],
        )
    for params in ({}, {"orderBy": "views"}, {"orderBy": "title", "order": "asc"}, {"status": "draft"}):
        with CaptureQueriesContext(connection) as small:
            first = admin_api.get(POSTS, {"limit": 5, **params})
        assert len(first.json()["data"]["items"]) == 5
        with django_assert_max_num_queries(len(small.captured_queries)):
            large = admin_api.get(POSTS, {"limit": 50, **params})
        assert len(large.json()["data"]["items"]) == 50
        assert all(len(item["bylines"]) == 2 for item in large.json()["data"]["items"])
        # And the next page costs the same again.
        with django_assert_max_num_queries(len(small.captured_queries)):
            admin_api.get(POSTS, {"limit": 50, "cursor": large.json()["data"]["nextCursor"], **params})
