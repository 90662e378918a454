"""Collections over HTTP (SPEC §2.4, §4.5): list, get with and without fields, create, update (PATCH and PUT behave
the same), delete with and without ``force``, and every refusal with its code."""

from __future__ import annotations

import pytest

from apps.content.models import Entry, Revision
from apps.core.timefmt import iso
from apps.schema.models import Collection, Field
from tests.factories import make_collection, make_entry

COLLECTIONS = "/_cms/api/schema/collections"


def collection_body(collection: Collection, **overrides) -> dict:
    """The wire form of a collection row (without fields), with the values a test states explicitly."""
    collection.refresh_from_db()
    return {
        "id": collection.pk,
        "slug": collection.slug,
        "label": collection.label,
        "labelSingular": collection.label_singular,
        "description": collection.description,
        "icon": collection.icon,
        "supports": collection.supports,
        "urlPattern": collection.url_pattern or None,
        "previewUrl": collection.preview_url or None,
        "public": collection.public,
        "createdAt": iso(collection.created_at),
        "updatedAt": iso(collection.updated_at),
        **overrides,
    }


def problem(response) -> dict:
    body = response.json()
    assert body["success"] is False
    return body["error"]


# --- list and get ---------------------------------------------------------------------------------------------------


def test_list_gives_every_collection_by_slug_without_fields(admin_api, posts_collection):
    # nextCursor as in every list, and as the schema_list_collections tool always answered: null, all come at once.
    pages = make_collection("pages", label="Pages", supports=[])
    response = admin_api.get(COLLECTIONS)
    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "data": {
            "items": [
                collection_body(pages, label="Pages", supports=[]),
                collection_body(
                    posts_collection, slug="posts", supports=["drafts", "revisions", "scheduling"]
                ),
            ],
            "nextCursor": None,
        },
    }


def test_get_without_include_fields_leaves_fields_out(admin_api, posts_collection):
    response = admin_api.get(f"{COLLECTIONS}/posts")
    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "data": collection_body(posts_collection, label="Posts", labelSingular="Post"),
    }


def test_get_with_include_fields_lists_them_in_order(admin_api, posts_collection):
    response = admin_api.get(f"{COLLECTIONS}/posts", {"includeFields": "true"})
    assert response.status_code == 200
    data = response.json()["data"]
    assert {key: value for key, value in data.items() if key != "fields"} == collection_body(posts_collection)
    title = Field.objects.get(collection=posts_collection, slug="title")
    assert data["fields"][0] == {
        "id": title.pk,
        "slug": "title",
        "label": "Title",
        "type": "string",
        "required": True,
        "unique": False,
        "defaultValue": None,
        "validation": {},
        "widget": "",
        "options": {},
        "sortOrder": 0,
        "searchable": False,
        "translatable": True,
        "createdAt": iso(title.created_at),
        "updatedAt": iso(title.updated_at),
    }
    assert [(field["slug"], field["sortOrder"]) for field in data["fields"]] == [
        ("title", 0),
        ("body", 1),
        ("views", 2),
    ]


def test_unknown_collection_is_404_naming_the_known_ones(admin_api, posts_collection):
    response = admin_api.get(f"{COLLECTIONS}/nope")
    assert response.status_code == 404
    assert problem(response) == {
        "code": "NOT_FOUND",
        "message": "No collection 'nope'; collections: posts.",
        "details": {},
    }


# --- create ---------------------------------------------------------------------------------------------------------


def test_create_answers_201_with_the_collection_and_default_supports(admin_api):
    response = admin_api.post(
        COLLECTIONS,
        {"slug": "blog_posts", "label": "Blog posts", "labelSingular": "Blog post", "description": "News"},
        format="json",
    )
    assert response.status_code == 201
    created = Collection.objects.get(slug="blog_posts")
    assert response.json() == {
        "success": True,
        "data": {
            **collection_body(
                created,
                slug="blog_posts",
                label="Blog posts",
                labelSingular="Blog post",
                description="News",
                icon="",
                supports=["drafts", "revisions"],
            ),
            "fields": [],
        },
    }


def test_create_keeps_the_supports_given(admin_api):
    response = admin_api.post(
        COLLECTIONS,
        {"slug": "events", "label": "Events", "supports": ["scheduling", "search", "scheduling"]},
        format="json",
    )
    assert response.status_code == 201
    assert response.json()["data"]["supports"] == ["scheduling", "search"]


@pytest.mark.parametrize("slug", ["Posts", "1posts", "_posts", "blog-posts", "posts!", "p" * 64, "pöst"])
def test_create_refuses_slugs_outside_the_pattern(admin_api, slug):
    response = admin_api.post(COLLECTIONS, {"slug": slug, "label": "X"}, format="json")
    assert response.status_code == 400
    error = problem(response)
    assert error["code"] == "VALIDATION_ERROR"
    expected = (
        # The input model's limit, the one its schema advertises (maxLength 63).
        "Ensure this field has no more than 63 characters."
        if slug == "p" * 64
        else "Use lowercase letters, digits and underscores, starting with a letter (^[a-z][a-z0-9_]*$)."
    )
    assert error["details"] == {"slug": expected}
    assert not Collection.objects.exists()


def test_create_requires_a_label(admin_api):
    response = admin_api.post(COLLECTIONS, {"slug": "posts", "label": "  "}, format="json")
    assert response.status_code == 400
    assert problem(response)["details"] == {"label": "Required: the plural display name, e.g. 'Blog posts'."}


def test_create_refuses_unknown_supports_listing_the_allowed(admin_api):
    response = admin_api.post(
        COLLECTIONS, {"slug": "posts", "label": "Posts", "supports": ["drafts", "comments"]}, format="json"
    )
    assert response.status_code == 400
    assert problem(response) == {
        "code": "VALIDATION_ERROR",
        "message": "supports: Unknown value(s) comments; allowed: drafts, revisions, preview, scheduling, search.",
        "details": {
            "supports": "Unknown value(s) comments; allowed: drafts, revisions, preview, scheduling, search."
        },
    }


def test_a_duplicate_collection_slug_is_409(admin_api, posts_collection):
    response = admin_api.post(COLLECTIONS, {"slug": "posts", "label": "Again"}, format="json")
    assert response.status_code == 409
    assert problem(response) == {
        "code": "DUPLICATE_SLUG",
        "message": "A collection with the slug 'posts' already exists.",
        "details": {"slug": "Already taken."},
    }
    assert Collection.objects.get(slug="posts").label == "Posts"


def test_create_refuses_unknown_keys(admin_api):
    response = admin_api.post(
        COLLECTIONS, {"slug": "posts", "label": "Posts", "colour": "red"}, format="json"
    )
    assert response.status_code == 400
    assert problem(response)["details"] == {
        "colour": "Unknown field; allowed: description, icon, label, labelSingular, previewUrl, public, slug, supports, "
        "urlPattern."
    }


# --- update ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["patch", "put"])
def test_update_changes_only_what_is_sent(admin_api, posts_collection, method):
    response = getattr(admin_api, method)(
        f"{COLLECTIONS}/posts", {"label": "Articles", "supports": ["drafts"], "icon": "pen"}, format="json"
    )
    assert response.status_code == 200
    data = response.json()["data"]
    assert {key: value for key, value in data.items() if key != "fields"} == collection_body(
        posts_collection, label="Articles", labelSingular="Post", icon="pen", supports=["drafts"]
    )
    assert [field["slug"] for field in data["fields"]] == ["title", "body", "views"]


@pytest.mark.parametrize("method", ["patch", "put"])
def test_update_refuses_a_new_slug_and_bad_supports(admin_api, posts_collection, method):
    send = getattr(admin_api, method)
    response = send(f"{COLLECTIONS}/posts", {"slug": "articles"}, format="json")
    assert response.status_code == 400
    assert problem(response)["details"] == {
        "slug": "A collection's slug cannot be changed; create a new collection."
    }
    response = send(f"{COLLECTIONS}/posts", {"supports": ["everything"]}, format="json")
    assert response.status_code == 400
    assert problem(response)["details"] == {
        "supports": "Unknown value(s) everything; allowed: drafts, revisions, preview, scheduling, search."
    }
    # The same slug is accepted (a client sending the object back unchanged).
    assert send(f"{COLLECTIONS}/posts", {"slug": "posts"}, format="json").status_code == 200
    assert Collection.objects.get(slug="posts").supports == ["drafts", "revisions", "scheduling"]


def test_update_of_an_unknown_collection_is_404(admin_api):
    assert admin_api.patch(f"{COLLECTIONS}/nope", {"label": "X"}, format="json").status_code == 404


# --- delete ---------------------------------------------------------------------------------------------------------


def test_delete_an_empty_collection(admin_api, posts_collection):
    response = admin_api.delete(f"{COLLECTIONS}/posts")
    assert response.status_code == 200
    assert response.json() == {"success": True, "data": {"success": True}}
    assert not Collection.objects.exists() and not Field.objects.exists()


def test_delete_is_refused_while_entries_exist_trash_included(admin_api, posts_collection):
    make_entry(posts_collection, {"title": "One"})
    trashed = make_entry(posts_collection, {"title": "Two"})
    Entry.objects.filter(pk=trashed.pk).update(deleted_at=trashed.created_at)
    response = admin_api.delete(f"{COLLECTIONS}/posts")
    assert response.status_code == 400
    assert problem(response) == {
        "code": "SCHEMA_ERROR",
        "message": "The collection 'posts' has 2 entries (trash included); delete them first or pass force=true "
        "to delete the collection with its entries.",
        "details": {"entries": 2},
    }
    assert Collection.objects.filter(slug="posts").exists()
    assert Entry.objects.count() == 2


def test_force_deletes_the_collection_with_its_entries_and_revisions(admin_api, posts_collection):
    make_entry(posts_collection, {"title": "One"}, status="published")
    other = make_collection("pages", fields=[{"slug": "title"}])
    kept = make_entry(other, {"title": "Stays"})
    response = admin_api.delete(f"{COLLECTIONS}/posts?force=true")
    assert response.status_code == 200
    assert response.json() == {"success": True, "data": {"success": True}}
    assert list(Entry.objects.values_list("pk", flat=True)) == [kept.pk]
    assert list(Revision.objects.values_list("entry_id", flat=True)) == [kept.pk]
    assert list(Collection.objects.values_list("slug", flat=True)) == ["pages"]


def test_delete_refuses_unknown_query_parameters(admin_api, posts_collection):
    response = admin_api.delete(f"{COLLECTIONS}/posts?forced=1")
    assert response.status_code == 400
    assert problem(response)["details"] == {"forced": "Unknown query parameter; allowed: force."}
    assert Collection.objects.filter(slug="posts").exists()
