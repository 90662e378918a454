"""Fields over HTTP (SPEC §2.5, §4.5): list, create, get, update (PATCH and PUT), delete, reorder; the checks on a
definition (slug, reserved names, type, validation and option keys, default value, unique, searchable); type changes
that convert stored values or change nothing; removal dropping the data; unique values."""

from __future__ import annotations

import pytest

from apps.content.models import Entry
from apps.core.timefmt import iso
from apps.schema.models import Field
from tests.factories import make_collection, make_entry, make_field

FIELDS = "/_cms/api/schema/collections/posts/fields"
FIELD_TYPES = (
    "string, text, number, integer, boolean, datetime, select, multiSelect, portableText, image, file, "
    "reference, json, slug"
)


def field_body(field: Field, **overrides) -> dict:
    field.refresh_from_db()
    return {
        "id": field.pk,
        "slug": field.slug,
        "label": field.label,
        "type": field.type,
        "required": field.required,
        "unique": field.unique,
        "defaultValue": field.default_value,
        "validation": field.validation,
        "widget": field.widget,
        "options": field.options,
        "sortOrder": field.sort_order,
        "searchable": field.searchable,
        "translatable": field.translatable,
        "createdAt": iso(field.created_at),
        "updatedAt": iso(field.updated_at),
        **overrides,
    }


def problem(response) -> dict:
    body = response.json()
    assert body["success"] is False
    return body["error"]


def add(api, definition: dict, path: str = FIELDS):
    return api.post(path, definition, format="json")


# --- create ---------------------------------------------------------------------------------------------------------


def test_create_answers_201_with_the_whole_definition(admin_api, posts_collection):
    response = add(
        admin_api,
        {
            "slug": "subtitle",
            "label": "Subtitle",
            "type": "string",
            "required": False,
            "unique": True,
            "defaultValue": "none",
            "validation": {"minLength": 2, "maxLength": 80, "pattern": "^[a-z ]+$"},
            "widget": "headline",
            "searchable": True,
            "translatable": False,
        },
    )
    assert response.status_code == 201
    field = Field.objects.get(collection=posts_collection, slug="subtitle")
    assert response.json() == {
        "success": True,
        "data": field_body(
            field,
            slug="subtitle",
            label="Subtitle",
            type="string",
            required=False,
            unique=True,
            defaultValue="none",
            validation={"minLength": 2, "maxLength": 80, "pattern": "^[a-z ]+$"},
            widget="headline",
            options={},
            sortOrder=3,  # after title, body and views
            searchable=True,
            translatable=False,
        ),
    }


@pytest.mark.parametrize(
    "slug",
    [
        "id",
        "slug",
        "status",
        "author_id",
        "created_at",
        "updated_at",
        "published_at",
        "deleted_at",
        "version",
    ],
)
def test_reserved_slugs_are_refused_with_reserved_slug(admin_api, posts_collection, slug):
    response = add(admin_api, {"slug": slug, "label": "X", "type": "string"})
    assert response.status_code == 400
    assert problem(response) == {
        "code": "RESERVED_SLUG",
        "message": f"'{slug}' is reserved for the entry's own data; reserved: author_id, created_at, deleted_at, "
        "id, published_at, slug, status, updated_at, version.",
        "details": {"slug": "Reserved."},
    }
    assert not posts_collection.fields.filter(slug=slug).exists()


@pytest.mark.parametrize("slug", ["Title", "2nd", "_x", "sub-title", "sub title", "x" * 64])
def test_field_slugs_must_match_the_pattern(admin_api, posts_collection, slug):
    response = add(admin_api, {"slug": slug, "label": "X", "type": "string"})
    assert response.status_code == 400
    assert problem(response)["code"] == "VALIDATION_ERROR"
    assert list(problem(response)["details"]) == ["slug"]


def test_a_duplicate_field_slug_is_409(admin_api, posts_collection):
    response = add(admin_api, {"slug": "title", "label": "Another title", "type": "text"})
    assert response.status_code == 409
    assert problem(response) == {
        "code": "DUPLICATE_SLUG",
        "message": "The collection 'posts' already has a field 'title'.",
        "details": {"slug": "Already taken."},
    }
    assert posts_collection.fields.get(slug="title").type == "string"


def test_the_same_field_slug_in_another_collection_is_fine(admin_api, posts_collection):
    make_collection("pages")
    response = add(
        admin_api,
        {"slug": "title", "label": "T", "type": "string"},
        "/_cms/api/schema/collections/pages/fields",
    )
    assert response.status_code == 201


def test_an_unknown_type_is_refused_with_the_fourteen_listed(admin_api, posts_collection):
    response = add(admin_api, {"slug": "colour", "label": "Colour", "type": "color"})
    assert response.status_code == 400
    assert problem(response) == {
        "code": "VALIDATION_ERROR",
        "message": f"type: Unknown field type 'color'; allowed: {FIELD_TYPES}.",
        "details": {"type": f"Unknown field type 'color'; allowed: {FIELD_TYPES}."},
    }


@pytest.mark.parametrize("type_name", ["select", "multiSelect"])
@pytest.mark.parametrize(
    ("validation", "message"),
    [
        ({}, "Required: a non-empty list of the allowed values (strings)."),
        ({"options": []}, "Required: a non-empty list of the allowed values (strings)."),
        ({"options": ["a", 2]}, "Every allowed value must be a non-empty string."),
        ({"options": ["a", "a"]}, "The allowed values must not repeat."),
    ],
)
def test_select_types_require_validation_options(admin_api, posts_collection, type_name, validation, message):
    response = add(admin_api, {"slug": "pick", "label": "Pick", "type": type_name, "validation": validation})
    assert response.status_code == 400
    assert problem(response)["details"] == {"validation.options": message}


def test_reference_requires_an_existing_target_collection(admin_api, posts_collection):
    response = add(admin_api, {"slug": "related", "label": "Related", "type": "reference"})
    assert response.status_code == 400
    assert problem(response)["details"] == {
        "options.collection": "Required: the slug of the collection this field points into."
    }
    response = add(
        admin_api,
        {"slug": "related", "label": "Related", "type": "reference", "options": {"collection": "authors"}},
    )
    assert response.status_code == 400
    assert problem(response)["details"] == {"options.collection": "No collection with the slug 'authors'."}
    response = add(
        admin_api,
        {
            "slug": "related",
            "label": "Related",
            "type": "reference",
            "options": {"collection": "posts", "allowMultiple": "yes"},
        },
    )
    assert response.status_code == 400
    assert problem(response)["details"] == {"options.allowMultiple": "Expected true or false."}
    response = add(
        admin_api,
        {
            "slug": "related",
            "label": "Related",
            "type": "reference",
            "options": {"collection": "posts", "allowMultiple": True},
        },
    )
    assert response.status_code == 201
    assert response.json()["data"]["options"] == {"collection": "posts", "allowMultiple": True}


@pytest.mark.parametrize(
    ("definition", "details"),
    [
        (
            {"type": "string", "validation": {"min": 1}},
            {"validation.min": "Does not apply to string fields; allowed: maxLength, minLength, pattern."},
        ),
        (
            {"type": "integer", "validation": {"pattern": "x"}},
            {"validation.pattern": "Does not apply to integer fields; allowed: max, min."},
        ),
        (
            {"type": "boolean", "validation": {"options": ["a"]}},
            {"validation.options": "Does not apply to boolean fields; allowed: none."},
        ),
        (
            {"type": "string", "options": {"rows": 3}},
            {"options.rows": "Does not apply to string fields; allowed: none."},
        ),
        (
            {"type": "text", "options": {"rows": 0}},
            {"options.rows": "Expected a whole number of at least 1."},
        ),
        (
            {"type": "string", "validation": {"minLength": 5, "maxLength": 2}},
            {"validation.minLength": "Must not exceed maxLength (2)."},
        ),
        (
            {"type": "string", "validation": {"maxLength": -1}},
            {"validation.maxLength": "Expected a whole number of at least 0."},
        ),
        ({"type": "number", "validation": {"min": "low"}}, {"validation.min": "Expected a number."}),
        (
            {"type": "datetime", "validation": {"min": "yesterday"}},
            {"validation.min": "Expected an ISO 8601 date-time, e.g. 2026-01-31T12:00:00Z."},
        ),
        (
            {"type": "string", "validation": "long"},
            {"validation": 'Expected an object, e.g. {"maxLength": 120}.'},
        ),
        (
            {"type": "json", "unique": True},
            {"unique": "json fields cannot be unique; unique works on single values such as strings."},
        ),
        (
            {"type": "integer", "searchable": True},
            {
                "searchable": "Only text fields can be searchable: multiSelect, portableText, select, slug, string, text."
            },
        ),
    ],
)
def test_definitions_that_do_not_fit_the_type_are_refused(admin_api, posts_collection, definition, details):
    response = add(admin_api, {"slug": "extra", "label": "Extra", **definition})
    assert response.status_code == 400
    assert problem(response)["code"] == "VALIDATION_ERROR"
    assert problem(response)["details"] == details
    assert not posts_collection.fields.filter(slug="extra").exists()


def test_a_bad_pattern_is_refused(admin_api, posts_collection):
    response = add(
        admin_api, {"slug": "code", "label": "Code", "type": "string", "validation": {"pattern": "("}}
    )
    assert response.status_code == 400
    assert list(problem(response)["details"]) == ["validation.pattern"]
    assert problem(response)["details"]["validation.pattern"].startswith("Not a valid regular expression:")


@pytest.mark.parametrize(
    ("definition", "message"),
    [
        ({"type": "integer", "defaultValue": "many"}, 'Expected a number, got "many".'),
        ({"type": "integer", "defaultValue": 5, "validation": {"max": 3}}, "Must be at most 3 (got 5)."),
        (
            {"type": "select", "defaultValue": "huge", "validation": {"options": ["s", "m"]}},
            '"huge" is not one of the allowed values: s, m.',
        ),
        ({"type": "boolean", "defaultValue": "maybe"}, 'Expected true or false, got "maybe".'),
        (
            {"type": "string", "defaultValue": "ab", "validation": {"minLength": 3}},
            "Must be at least 3 characters long (got 2).",
        ),
    ],
)
def test_the_default_value_is_validated_by_the_type(admin_api, posts_collection, definition, message):
    response = add(admin_api, {"slug": "extra", "label": "Extra", **definition})
    assert response.status_code == 400
    assert problem(response)["details"] == {"defaultValue": message}


@pytest.mark.parametrize(
    ("definition", "stored"),
    [
        ({"type": "slug", "defaultValue": "Hello World!"}, "hello-world"),
        ({"type": "integer", "defaultValue": "7"}, 7),
        ({"type": "datetime", "defaultValue": "2026-01-31T13:00:00+01:00"}, "2026-01-31T12:00:00.000Z"),
        (
            {"type": "multiSelect", "defaultValue": ["b", "a", "b"], "validation": {"options": ["a", "b"]}},
            ["b", "a"],
        ),
    ],
)
def test_the_default_value_is_stored_normalised(admin_api, posts_collection, definition, stored):
    response = add(admin_api, {"slug": "extra", "label": "Extra", **definition})
    assert response.status_code == 201
    assert response.json()["data"]["defaultValue"] == stored


# --- list, get, update, delete, reorder ------------------------------------------------------------------------------


def test_list_gives_the_fields_in_display_order(admin_api, posts_collection):
    response = admin_api.get(FIELDS)
    assert response.status_code == 200
    fields = list(posts_collection.fields.order_by("sort_order"))
    assert response.json() == {"success": True, "data": {"items": [field_body(field) for field in fields]}}
    assert [item["slug"] for item in response.json()["data"]["items"]] == ["title", "body", "views"]


def test_get_one_field_and_an_unknown_one(admin_api, posts_collection):
    response = admin_api.get(f"{FIELDS}/views")
    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "data": field_body(posts_collection.fields.get(slug="views"), type="integer", sortOrder=2),
    }
    response = admin_api.get(f"{FIELDS}/colour")
    assert response.status_code == 404
    assert (
        problem(response)["message"] == "No field 'colour' in collection 'posts'; fields: title, body, views."
    )


@pytest.mark.parametrize("method", ["patch", "put"])
def test_update_changes_only_what_is_sent(admin_api, posts_collection, method):
    response = getattr(admin_api, method)(
        f"{FIELDS}/views", {"label": "View count", "validation": {"min": 0}, "required": True}, format="json"
    )
    assert response.status_code == 200
    field = posts_collection.fields.get(slug="views")
    assert response.json() == {
        "success": True,
        "data": field_body(
            field, label="View count", type="integer", required=True, validation={"min": 0}, sortOrder=2
        ),
    }


@pytest.mark.parametrize("method", ["patch", "put"])
def test_update_refuses_a_slug_change_and_bad_definitions(admin_api, posts_collection, method):
    send = getattr(admin_api, method)
    response = send(f"{FIELDS}/views", {"slug": "hits"}, format="json")
    assert response.status_code == 400
    assert problem(response)["details"] == {
        "slug": "A field's slug cannot be changed; add a new field and remove this one instead."
    }
    response = send(f"{FIELDS}/views", {"validation": {"maxLength": 3}}, format="json")
    assert response.status_code == 400
    assert problem(response)["details"] == {
        "validation.maxLength": "Does not apply to integer fields; allowed: max, min."
    }
    response = send(f"{FIELDS}/views", {"type": "colour"}, format="json")
    assert response.status_code == 400
    assert problem(response)["details"] == {"type": f"Unknown field type 'colour'; allowed: {FIELD_TYPES}."}
    assert field_body(posts_collection.fields.get(slug="views"))["validation"] == {}


def test_delete_a_field(admin_api, posts_collection):
    response = admin_api.delete(f"{FIELDS}/body")
    assert response.status_code == 200
    assert response.json() == {"success": True, "data": {"success": True}}
    assert list(posts_collection.fields.values_list("slug", flat=True)) == ["title", "views"]
    assert admin_api.delete(f"{FIELDS}/body").status_code == 404


def test_reorder_puts_the_named_fields_first(admin_api, posts_collection):
    response = admin_api.post(f"{FIELDS}/reorder", {"fieldSlugs": ["views", "title"]}, format="json")
    assert response.status_code == 200
    items = response.json()["data"]["items"]
    assert [(item["slug"], item["sortOrder"]) for item in items] == [("views", 0), ("title", 1), ("body", 2)]
    fields = list(posts_collection.fields.order_by("sort_order"))
    assert response.json() == {"success": True, "data": {"items": [field_body(field) for field in fields]}}
    listed = admin_api.get(FIELDS).json()["data"]["items"]
    assert [item["slug"] for item in listed] == ["views", "title", "body"]


@pytest.mark.parametrize(
    ("slugs", "message"),
    [
        (["views", "colour"], "No field(s) colour in 'posts'; fields: title, body, views."),
        (["views", "views"], "Listed more than once: views."),
        ([], "This list may not be empty."),
    ],
)
def test_reorder_refuses_unknown_or_repeated_slugs(admin_api, posts_collection, slugs, message):
    response = admin_api.post(f"{FIELDS}/reorder", {"fieldSlugs": slugs}, format="json")
    assert response.status_code == 400
    assert problem(response)["details"] == {"fieldSlugs": message}
    assert list(posts_collection.fields.order_by("sort_order").values_list("slug", flat=True)) == [
        "title",
        "body",
        "views",
    ]


# --- type changes ---------------------------------------------------------------------------------------------------


@pytest.fixture
def counts_as_text(posts_collection):
    """A string field ``count`` holding numbers as text: one published entry, one draft, one in the trash."""
    make_field(posts_collection, "count", "string")
    published = make_entry(posts_collection, {"title": "A", "count": "42"}, status="published")
    draft = make_entry(posts_collection, {"title": "B", "count": "7"})
    trashed = make_entry(posts_collection, {"title": "C", "count": " 3 "})
    Entry.objects.filter(pk=trashed.pk).update(deleted_at=trashed.created_at)
    return published, draft, trashed


def test_a_type_change_converts_every_stored_value(admin_api, counts_as_text):
    published, draft, trashed = counts_as_text
    response = admin_api.patch(f"{FIELDS}/count", {"type": "integer"}, format="json")
    assert response.status_code == 200
    assert response.json()["data"]["type"] == "integer"
    published.refresh_from_db()
    draft.refresh_from_db()
    trashed.refresh_from_db()
    assert published.data == {"title": "A", "count": 42} and published.live_data == {
        "title": "A",
        "count": 42,
    }
    assert draft.data == {"title": "B", "count": 7} and draft.live_data is None
    assert trashed.data == {"title": "C", "count": 3}


@pytest.mark.usefixtures("counts_as_text")
def test_a_type_change_some_value_cannot_take_changes_nothing(admin_api, posts_collection):
    make_entry(posts_collection, {"title": "D", "count": "many"})
    before = {entry.pk: (entry.data, entry.live_data) for entry in Entry.objects.all()}
    response = admin_api.put(f"{FIELDS}/count", {"type": "integer"}, format="json")
    assert response.status_code == 400
    error = problem(response)
    assert error["code"] == "SCHEMA_ERROR"
    assert error["message"] == (
        "Cannot change 'count' from string to integer: some stored values do not convert."
    )
    bad = Entry.objects.get(data__title="D")
    assert error["details"] == {bad.pk: "'many' cannot become integer: Expected a number, got \"many\"."}
    assert posts_collection.fields.get(slug="count").type == "string"
    assert {entry.pk: (entry.data, entry.live_data) for entry in Entry.objects.all()} == before


# --- removal drops the data -----------------------------------------------------------------------------------------


def test_removing_a_field_drops_its_data_from_every_entry(admin_api, posts_collection):
    published = make_entry(posts_collection, {"title": "A", "body": "text", "views": 3}, status="published")
    draft = make_entry(posts_collection, {"title": "B", "body": "more"})
    trashed = make_entry(posts_collection, {"title": "C", "body": "gone"})
    Entry.objects.filter(pk=trashed.pk).update(deleted_at=trashed.created_at)
    other = make_collection("pages", fields=[{"slug": "body", "type": "text"}])
    untouched = make_entry(other, {"body": "stays"})

    assert admin_api.delete(f"{FIELDS}/body").status_code == 200

    for entry in (published, draft, trashed, untouched):
        entry.refresh_from_db()
    assert published.data == {"title": "A", "views": 3} and published.live_data == {"title": "A", "views": 3}
    assert draft.data == {"title": "B"} and draft.live_data is None
    assert trashed.data == {"title": "C"}
    assert untouched.data == {"body": "stays"}
    # A field of the same name added later starts empty.
    make_field(posts_collection, "body", "text")
    published.refresh_from_db()
    assert "body" not in published.data


# --- unique fields --------------------------------------------------------------------------------------------------


@pytest.fixture
def isbn_collection():
    return make_collection(
        "books", fields=[{"slug": "title"}, {"slug": "isbn", "type": "string", "unique": True}]
    )


def test_a_duplicate_value_of_a_unique_field_is_409(admin_api, isbn_collection):
    first = make_entry(isbn_collection, {"title": "One", "isbn": "978-3"})
    response = admin_api.post(
        "/_cms/api/content/books", {"data": {"title": "Two", "isbn": "978-3"}}, format="json"
    )
    assert response.status_code == 409
    assert problem(response) == {
        "code": "CONFLICT",
        "message": f"'isbn' must be unique in 'books'; entry {first.pk} already has '978-3'.",
        "details": {"isbn": f"Already used by entry {first.pk}."},
    }
    assert Entry.objects.count() == 1
    # Updating another entry to the taken value is refused the same way; its own value is not a clash.
    second = make_entry(isbn_collection, {"title": "Two", "isbn": "978-4"})
    response = admin_api.patch(
        f"/_cms/api/content/books/{second.pk}", {"data": {"isbn": "978-3"}}, format="json"
    )
    assert response.status_code == 409
    response = admin_api.patch(
        f"/_cms/api/content/books/{first.pk}", {"data": {"isbn": "978-3", "title": "Uno"}}, format="json"
    )
    assert response.status_code == 200


def test_a_value_in_the_trash_does_not_block_reuse(admin_api, isbn_collection):
    first = make_entry(isbn_collection, {"title": "One", "isbn": "978-3"})
    assert admin_api.delete(f"/_cms/api/content/books/{first.pk}").status_code == 200
    response = admin_api.post(
        "/_cms/api/content/books", {"data": {"title": "Two", "isbn": "978-3"}}, format="json"
    )
    assert response.status_code == 201


def test_making_a_field_unique_over_duplicate_data_is_refused(admin_api, posts_collection):
    first = make_entry(posts_collection, {"title": "Same"})
    second = make_entry(posts_collection, {"title": "Same"})
    response = admin_api.patch(f"{FIELDS}/title", {"unique": True}, format="json")
    assert response.status_code == 400
    error = problem(response)
    assert error["code"] == "SCHEMA_ERROR"
    assert error["message"] == "'title' cannot be unique: entries of 'posts' share values. Change them first."
    ((clash, message),) = error["details"].items()
    other = first.pk if clash == second.pk else second.pk
    assert clash in {first.pk, second.pk}
    assert message == f"Has the same title as entry {other} ('Same')."
    assert posts_collection.fields.get(slug="title").unique is False
    # Once the values differ, the same change succeeds.
    Entry.objects.filter(pk=second.pk).update(data={"title": "Different"})
    assert admin_api.patch(f"{FIELDS}/title", {"unique": True}, format="json").status_code == 200


def test_restoring_an_entry_whose_unique_value_was_taken_meanwhile_is_409(admin_api, isbn_collection):
    first = make_entry(isbn_collection, {"title": "One", "isbn": "978-3"})
    admin_api.delete(f"/_cms/api/content/books/{first.pk}")
    second = make_entry(isbn_collection, {"title": "Two", "isbn": "978-3"})
    response = admin_api.post(f"/_cms/api/content/books/{first.pk}/restore", {}, format="json")
    assert response.status_code == 409
    assert problem(response) == {
        "code": "CONFLICT",
        "message": f"'isbn' must be unique in 'books'; entry {second.pk} already has '978-3'.",
        "details": {"isbn": f"Already used by entry {second.pk}."},
    }
    assert Entry.objects.get(pk=first.pk).deleted_at is not None


def test_restoring_a_revision_with_a_taken_unique_value_is_409(admin_api, isbn_collection):
    first = make_entry(isbn_collection, {"title": "One", "isbn": "978-3"})
    old = first.revisions.get()
    admin_api.patch(f"/_cms/api/content/books/{first.pk}", {"data": {"isbn": "978-4"}}, format="json")
    make_entry(isbn_collection, {"title": "Two", "isbn": "978-3"})
    response = admin_api.post(f"/_cms/api/revisions/{old.pk}/restore", {}, format="json")
    assert response.status_code == 409
    assert problem(response)["code"] == "CONFLICT"
    first.refresh_from_db()
    assert first.data == {"title": "One", "isbn": "978-4"}
