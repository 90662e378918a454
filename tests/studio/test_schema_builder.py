"""The studio's schema builder (/_cms/admin/schema/): collections and fields over the schema services, each write
checked afterwards through REST (/_cms/api/schema/…), destructive changes announced with their counts first."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from apps.accounts.models import Role
from tests.factories import make_collection, make_entry, make_user

pytestmark = pytest.mark.django_db
SCHEMA = "/_cms/admin/schema/"


@pytest.fixture
def admin(admin_user) -> Client:
    client = Client()
    client.force_login(admin_user)
    return client


def rest_collection(admin_api, slug: str) -> dict:
    response = admin_api.get(f"/_cms/api/schema/collections/{slug}", {"includeFields": "true"})
    assert response.status_code == 200, response.content
    return response.json()["data"]


def rest_fields(admin_api, slug: str) -> dict[str, dict]:
    return {field["slug"]: field for field in rest_collection(admin_api, slug)["fields"]}


def html(response) -> str:
    return response.content.decode()


def test_the_nav_offers_the_schema_to_admins_only(admin, posts_collection):
    page = html(admin.get("/_cms/admin/"))
    assert '<a href="/_cms/admin/schema/">Schema</a>' in page
    editor = Client()
    editor.force_login(make_user(Role.EDITOR, email="editor@example.com"))
    assert "/_cms/admin/schema/" not in html(editor.get("/_cms/admin/"))


@pytest.mark.parametrize("role", [Role.CONTRIBUTOR, Role.EDITOR])
def test_non_admins_get_the_403_page(role, posts_collection, admin_api):
    client = Client()
    client.force_login(make_user(role, email=f"r{role}@example.com"))
    for url in (
        SCHEMA,
        f"{SCHEMA}new",
        f"{SCHEMA}posts/",
        f"{SCHEMA}posts/fields/title/remove",
        f"{SCHEMA}export.ts",
    ):
        response = client.get(url)
        assert response.status_code == 403, url
        assert "<h1>Not allowed</h1>" in html(response)
        assert "This requires the role " in html(response)
        assert f"or higher; you are {Role(role).label} ({role})." in html(response)
    response = client.post(f"{SCHEMA}new", {"slug": "pages", "label": "Pages"})
    assert response.status_code == 403
    response = client.post(f"{SCHEMA}posts/fields/title/remove")
    assert response.status_code == 403
    assert "title" in rest_fields(admin_api, "posts")
    assert admin_api.get("/_cms/api/schema/collections/pages").status_code == 404


def test_the_list_shows_entries_fields_and_supports(admin, posts_collection):
    make_entry(posts_collection, {"title": "One"})
    make_entry(posts_collection, {"title": "Two"})
    make_collection("pages", label="Pages", supports=[])
    page = html(admin.get(SCHEMA))
    row = re.search(
        r'<th scope="row"><a href="/_cms/admin/schema/posts/">Posts</a></th>(.*?)</tr>', page, re.S
    )
    assert row
    # Each cell names its column for phones, where the header row is hidden.
    cells = re.findall(r'<td data-label="([^"]+)">(.*?)</td>', row.group(1), re.S)
    assert cells == [
        ("Slug", "<code>posts</code>"),
        ("Entries", "2"),
        ("Fields", "3"),
        ("Supports", "drafts, revisions, scheduling"),
    ]
    assert '<a href="/_cms/admin/schema/pages/">Pages</a>' in page
    assert '<td data-label="Supports">none</td>' in page


def test_create_a_collection_shows_the_slug_rules_and_refuses_a_bad_slug(admin, admin_api):
    page = html(admin.get(f"{SCHEMA}new"))
    assert (
        "Use lowercase letters, digits and underscores, starting with a letter (^[a-z][a-z0-9_]*$)." in page
    )
    assert 'data-slug-rules="^[a-z][a-z0-9_]*$"' in page
    assert '<input type="checkbox" name="supports" value="drafts" checked>' in page

    refused = admin.post(f"{SCHEMA}new", {"slug": "Blog-Posts", "label": "Blog posts"})
    assert refused.status_code == 400
    assert '<p class="error" id="c-slug-error">Use lowercase letters' in html(refused)
    assert 'value="Blog-Posts"' in html(refused)

    response = admin.post(
        f"{SCHEMA}new",
        {
            "slug": "blog_posts",
            "label": "Blog posts",
            "label_singular": "Blog post",
            "description": "News",
            "icon": "file-text",
            "supports": ["drafts", "search"],
        },
    )
    assert response.status_code == 302
    assert response["Location"] == f"{SCHEMA}blog_posts/"
    created = rest_collection(admin_api, "blog_posts")
    assert {key: created[key] for key in ("label", "labelSingular", "description", "icon", "supports")} == {
        "label": "Blog posts",
        "labelSingular": "Blog post",
        "description": "News",
        "icon": "file-text",
        "supports": ["drafts", "search"],
    }
    assert "Created the collection Blog posts." in html(admin.get(response["Location"]))

    taken = admin.post(f"{SCHEMA}new", {"slug": "blog_posts", "label": "Again"})
    assert taken.status_code == 409
    assert "A collection with the slug &#x27;blog_posts&#x27; already exists." in html(taken)


def test_edit_a_collection(admin, admin_api, posts_collection):
    page = html(admin.get(f"{SCHEMA}posts/edit"))
    assert 'value="posts" readonly' in page
    assert '<input type="checkbox" name="supports" value="scheduling" checked>' in page
    response = admin.post(
        f"{SCHEMA}posts/edit", {"label": "Articles", "label_singular": "Article", "supports": ["drafts"]}
    )
    assert response.status_code == 302
    data = rest_collection(admin_api, "posts")
    assert (data["label"], data["labelSingular"], data["supports"]) == ("Articles", "Article", ["drafts"])
    blank = admin.post(f"{SCHEMA}posts/edit", {"label": " "})
    assert blank.status_code == 400
    assert '<p class="error" id="c-label-error">Must not be empty.</p>' in html(blank)


def test_delete_a_collection_says_how_many_entries_go_first(admin, admin_api, posts_collection):
    for title in ("a", "b", "c"):
        make_entry(posts_collection, {"title": title})
    page = html(admin.get(f"{SCHEMA}posts/delete"))
    assert "This deletes <strong>3 entries</strong> (trash included), the collection's 3 fields" in page
    assert rest_collection(admin_api, "posts")["slug"] == "posts"  # nothing happened on GET
    response = admin.post(f"{SCHEMA}posts/delete", {"confirmed": "yes"})
    assert response.status_code == 302
    assert response["Location"] == SCHEMA
    assert admin_api.get("/_cms/api/schema/collections/posts").status_code == 404
    # Without the confirmation the service's own refusal (it has entries) stands.
    pages = make_collection("pages", fields=[("title", "string")])
    make_entry(pages, {"title": "x"})
    refused = admin.post(f"{SCHEMA}pages/delete")
    assert refused.status_code == 400
    assert "has 1 entry (trash included)" in html(refused)


FIELD_KINDS = [
    (
        {
            "slug": "headline",
            "label": "Headline",
            "type": "string",
            "validation.minLength": "3",
            "validation.maxLength": "80",
            "validation.pattern": "[A-Z].*",
            "required": "on",
            "unique": "on",
            "searchable": "on",
            "translatable": "on",
            "defaultValue": "Hello",
        },
        {
            "type": "string",
            "validation": {"minLength": 3, "maxLength": 80, "pattern": "[A-Z].*"},
            "options": {},
            "required": True,
            "unique": True,
            "searchable": True,
            "translatable": True,
            "defaultValue": "Hello",
        },
    ),
    (
        {
            "slug": "summary",
            "label": "Summary",
            "type": "text",
            "options.rows": "4",
            "validation.maxLength": "500",
        },
        {"type": "text", "validation": {"maxLength": 500}, "options": {"rows": 4}, "translatable": False},
    ),
    (
        {
            "slug": "rating",
            "label": "Rating",
            "type": "number",
            "validation.min": "0",
            "validation.max": "4.5",
            "defaultValue": "2.5",
            "translatable": "on",
        },
        {"type": "number", "validation": {"min": 0, "max": 4.5}, "defaultValue": 2.5},
    ),
    (
        {
            "slug": "mood",
            "label": "Mood",
            "type": "select",
            "validation.options": "happy\nsad\r\n\nangry\n",
            "defaultValue": "sad",
        },
        {"type": "select", "validation": {"options": ["happy", "sad", "angry"]}, "defaultValue": "sad"},
    ),
    (
        {
            "slug": "tags",
            "label": "Tags",
            "type": "multiSelect",
            "validation.options": "red\ngreen\nblue",
            "defaultValue": "green\nred",
        },
        {
            "type": "multiSelect",
            "validation": {"options": ["red", "green", "blue"]},
            "defaultValue": ["green", "red"],
        },
    ),
    (
        {
            "slug": "related",
            "label": "Related",
            "type": "reference",
            "options.collection": "posts",
            "options.allowMultiple": "on",
        },
        {"type": "reference", "options": {"collection": "posts", "allowMultiple": True}},
    ),
    (
        {"slug": "when", "label": "When", "type": "datetime", "validation.min": "2020-01-01T00:00:00Z"},
        {"type": "datetime", "validation": {"min": "2020-01-01T00:00:00Z"}},
    ),
    (
        {"slug": "hero", "label": "Hero", "type": "image", "options.showPreview": "on"},
        {"type": "image", "options": {"showPreview": True}},
    ),
    (
        {"slug": "extra", "label": "Extra", "type": "json", "defaultValue": '{"a": [1, 2]}'},
        {"type": "json", "defaultValue": {"a": [1, 2]}},
    ),
]


@pytest.mark.parametrize(("posted", "expected"), FIELD_KINDS, ids=[kind[1]["type"] for kind in FIELD_KINDS])
def test_add_each_kind_of_field_with_its_options(admin, admin_api, posts_collection, posted, expected):
    response = admin.post(f"{SCHEMA}posts/fields/new", posted)
    assert response.status_code == 302, html(response)
    assert response["Location"] == f"{SCHEMA}posts/"
    field = rest_fields(admin_api, "posts")[posted["slug"]]
    assert {key: field[key] for key in expected} == expected
    assert field["sortOrder"] == 3


def test_settings_of_another_type_are_not_sent_with_the_chosen_one(admin, admin_api, posts_collection):
    # Without JavaScript every setting is on the page; only the chosen type's are read.
    response = admin.post(
        f"{SCHEMA}posts/fields/new",
        {
            "slug": "age",
            "label": "Age",
            "type": "integer",
            "validation.min": "0",
            "validation.options": "x\ny",
            "options.rows": "3",
            "validation.pattern": "\\d+",
        },
    )
    assert response.status_code == 302
    field = rest_fields(admin_api, "posts")["age"]
    assert (field["validation"], field["options"]) == ({"min": 0}, {})


def test_the_field_form_names_the_types_of_each_setting(admin, posts_collection):
    page = html(admin.get(f"{SCHEMA}posts/fields/new"))
    assert '<div class="field" data-for-types="select multiSelect">' in page
    assert 'name="validation.options"' in page
    assert '<div class="field" data-for-types="reference">' in page
    assert '<option value="posts">Posts (posts)</option>' in page
    assert '<div class="field" data-for-types="number integer datetime">' in page
    assert "For select, multiSelect fields." in page
    assert '<option value="string" selected>string: Single-line text.</option>' in page


def test_a_refused_field_keeps_what_was_typed_with_the_message_beside_it(admin, admin_api, posts_collection):
    response = admin.post(
        f"{SCHEMA}posts/fields/new",
        {"slug": "mood", "label": "Mood", "type": "select", "validation.options": ""},
    )
    assert response.status_code == 400
    page = html(response)
    assert (
        '<p class="error" id="f-validation-options-error">Required: a non-empty list of the allowed values '
        "(strings).</p>" in page
    )
    assert (
        'aria-describedby="f-validation-options-hint f-validation-options-error" aria-invalid="true"' in page
    )
    assert 'value="mood"' in page
    reserved = admin.post(
        f"{SCHEMA}posts/fields/new", {"slug": "status", "label": "Status", "type": "string"}
    )
    assert reserved.status_code == 400
    assert '<p class="error" id="f-slug-error">Reserved.</p>' in html(reserved)
    bad_json = admin.post(
        f"{SCHEMA}posts/fields/new",
        {"slug": "extra", "label": "Extra", "type": "json", "defaultValue": "{nope"},
    )
    assert bad_json.status_code == 400
    assert '<p class="error" id="f-defaultValue-error">Not valid JSON:' in html(bad_json)
    assert set(rest_fields(admin_api, "posts")) == {"title", "body", "views"}


def test_edit_a_field(admin, admin_api, posts_collection):
    page = html(admin.get(f"{SCHEMA}posts/fields/title/"))
    assert 'value="title" readonly' in page
    assert 'name="required" value="on" checked' in page
    response = admin.post(
        f"{SCHEMA}posts/fields/title/",
        {"label": "Heading", "type": "string", "validation.maxLength": "60", "searchable": "on"},
    )
    assert response.status_code == 302
    field = rest_fields(admin_api, "posts")["title"]
    assert (
        field["label"],
        field["validation"],
        field["required"],
        field["searchable"],
        field["translatable"],
    ) == (
        "Heading",
        {"maxLength": 60},
        False,
        True,
        False,
    )
    again = html(admin.get(f"{SCHEMA}posts/fields/title/"))
    assert 'name="validation.maxLength" value="60"' in again


def test_reorder_in_one_request_and_by_a_move_button(admin, admin_api, posts_collection):
    page = html(admin.get(f"{SCHEMA}posts/"))
    assert re.findall(r'name="order" value="(\w+)"', page) == ["title", "body", "views"]
    assert 'id="move-title-up" data-move="up" disabled' in page

    response = admin.post(f"{SCHEMA}posts/reorder", {"order": ["views", "title", "body"]})
    assert response.status_code == 302
    fields = rest_fields(admin_api, "posts")
    assert sorted(fields, key=lambda slug: fields[slug]["sortOrder"]) == ["views", "title", "body"]

    # Without JavaScript, a Move down button posts the order shown and its move.
    moved = admin.post(f"{SCHEMA}posts/reorder", {"order": ["views", "title", "body"], "move": "views:down"})
    assert moved["Location"] == f"{SCHEMA}posts/#move-views-down"
    fields = rest_fields(admin_api, "posts")
    assert sorted(fields, key=lambda slug: fields[slug]["sortOrder"]) == ["title", "views", "body"]

    unknown = admin.post(f"{SCHEMA}posts/reorder", {"order": ["title", "nope"]})
    assert unknown.status_code == 400
    assert "No field(s) nope in &#x27;posts&#x27;" in html(unknown)


def test_remove_a_field_shows_how_many_entries_lose_data(admin, admin_api, posts_collection):
    make_entry(posts_collection, {"title": "a", "views": 3})
    make_entry(posts_collection, {"title": "b", "views": 4})
    make_entry(posts_collection, {"title": "c"})
    page = html(admin.get(f"{SCHEMA}posts/fields/views/remove"))
    assert "This removes the field's data from <strong>2 entries</strong>" in page
    assert "views" in rest_fields(admin_api, "posts")
    response = admin.post(f"{SCHEMA}posts/fields/views/remove")
    assert response.status_code == 302
    assert "views" not in rest_fields(admin_api, "posts")
    entries = admin_api.get("/_cms/api/content/posts").json()["data"]["items"]
    assert len(entries) == 3
    assert all("views" not in entry["data"] for entry in entries)


def test_a_type_change_is_confirmed_then_refused_with_the_services_message(
    admin, admin_api, posts_collection
):
    make_entry(posts_collection, {"title": "a", "body": "12"})
    words = make_entry(posts_collection, {"title": "b", "body": "twelve"})
    posted = {"label": "Body", "type": "integer", "validation.min": "0"}
    confirm = admin.post(f"{SCHEMA}posts/fields/body/", posted)
    assert confirm.status_code == 200
    page = html(confirm)
    assert "<h1>Change Body from text to integer?</h1>" in page
    assert "This converts the stored values of <strong>2 entries</strong> to integer." in page
    assert '<input type="hidden" name="validation.min" value="0">' in page
    assert rest_fields(admin_api, "posts")["body"]["type"] == "text"

    refused = admin.post(f"{SCHEMA}posts/fields/body/", {**posted, "confirmed": "yes"})
    assert refused.status_code == 400
    page = html(refused)
    assert "Cannot change &#x27;body&#x27; from text to integer: some stored values do not convert." in page
    assert f"<code>{words.pk}</code>: &#x27;twelve&#x27; cannot become integer: Expected a number" in page
    assert '<option value="integer" selected>' in page
    assert rest_fields(admin_api, "posts")["body"]["type"] == "text"


def test_a_type_change_every_value_takes_converts_them(admin, admin_api, posts_collection):
    entry = make_entry(posts_collection, {"title": "a", "body": " 12"})
    response = admin.post(
        f"{SCHEMA}posts/fields/body/", {"label": "Body", "type": "integer", "confirmed": "yes"}
    )
    assert response.status_code == 302
    assert rest_fields(admin_api, "posts")["body"]["type"] == "integer"
    data = admin_api.get(f"/_cms/api/content/posts/{entry.pk}").json()["data"]["item"]["data"]
    assert data["body"] == 12


def test_downloads_serve_the_exports_as_files(admin, admin_api, posts_collection):
    ts = admin.get(f"{SCHEMA}export.ts")
    assert ts.status_code == 200
    assert ts["Content-Disposition"] == 'attachment; filename="cms-schema.ts"'
    assert ts.content == admin_api.get("/_cms/api/schema", {"format": "typescript"}).content
    as_json = admin.get(f"{SCHEMA}export.json")
    assert as_json["Content-Disposition"] == 'attachment; filename="cms-schema.json"'
    assert json.loads(as_json.content) == admin_api.get("/_cms/api/schema").json()["data"]
    assert admin.get(f"{SCHEMA}export.xml").status_code == 404
    page = html(admin.get(SCHEMA))
    assert (
        '<a class="button" href="/_cms/admin/schema/export.ts" download>Download TypeScript interfaces</a>'
        in page
    )


def test_writes_need_the_csrf_token(admin_user, posts_collection, admin_api):
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin_user)
    for url, data in (
        (f"{SCHEMA}new", {"slug": "pages", "label": "Pages"}),
        (f"{SCHEMA}posts/fields/new", {"slug": "x", "label": "X", "type": "string"}),
        (f"{SCHEMA}posts/reorder", {"order": ["views"]}),
        (f"{SCHEMA}posts/fields/title/remove", {}),
        (f"{SCHEMA}posts/delete", {"confirmed": "yes"}),
    ):
        assert client.post(url, data).status_code == 403, url
    page = html(client.get(f"{SCHEMA}posts/fields/new"))
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    ok = client.post(
        f"{SCHEMA}posts/fields/new",
        {"slug": "x", "label": "X", "type": "string", "csrfmiddlewaretoken": token},
    )
    assert ok.status_code == 302
    assert set(rest_fields(admin_api, "posts")) == {"title", "body", "views", "x"}
