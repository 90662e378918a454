"""Entries over HTTP (SPEC §2.1, §4.2): create, get by id or slug, update with PATCH and PUT, delete; the
``{item, _rev}`` answers; data validation (unknown keys, required fields, defaults); slug generation and clashes;
``_rev`` conflict detection."""

from __future__ import annotations

import pytest
from django.test import override_settings

from apps.accounts.models import Role
from apps.content.models import Entry, Revision
from tests.content.conftest import POSTS, entry_url, error_of, item_body, written
from tests.factories import make_collection, make_entry, make_field

# --- create ---------------------------------------------------------------------------------------------------------


def test_create_a_draft(admin_api, admin_user, posts_collection):
    response = admin_api.post(POSTS, {"data": {"title": "Hello world", "views": 3}}, format="json")
    assert response.status_code == 201
    entry = Entry.objects.get()
    assert response.json() == written(
        entry,
        id=entry.pk,
        type="posts",
        slug="hello-world",
        status="draft",
        locale="en",
        translationGroup=entry.pk,
        data={"title": "Hello world", "views": 3},
        authorId=admin_user.pk,
        primaryBylineId=None,
        bylines=[],
        publishedAt=None,
        scheduledAt=None,
        deletedAt=None,
        version=1,
    )
    item = response.json()["data"]["item"]
    assert item["createdAt"] == item["updatedAt"]
    assert entry.live_data is None
    assert list(Revision.objects.values_list("entry_id", "action", "status", "data")) == [
        (entry.pk, "create", "draft", {"title": "Hello world", "views": 3})
    ]


def test_create_published(admin_api, posts_collection):
    response = admin_api.post(
        POSTS, {"data": {"title": "Out now"}, "status": "published", "slug": "out-now"}, format="json"
    )
    assert response.status_code == 201
    entry = Entry.objects.get()
    item = response.json()["data"]["item"]
    assert response.json() == written(entry, status="published", slug="out-now", data={"title": "Out now"})
    assert "liveData" not in item  # the same as data
    assert item["publishedAt"] == item["createdAt"]
    assert entry.live_data == {"title": "Out now"}
    assert list(Revision.objects.values_list("action", "status")) == [("publish", "published")]


@pytest.mark.parametrize("status", ["scheduled", "trash", "Published"])
def test_create_refuses_other_statuses(admin_api, posts_collection, status):
    response = admin_api.post(POSTS, {"data": {"title": "x"}, "status": status}, format="json")
    assert response.status_code == 400
    assert error_of(response)["details"] == {"status": f'"{status}" is not a valid choice.'}
    assert not Entry.objects.exists()


def test_create_in_an_unknown_collection_is_404(admin_api, posts_collection):
    response = admin_api.post("/_cms/api/content/nope", {"data": {"title": "x"}}, format="json")
    assert response.status_code == 404
    assert error_of(response) == {
        "code": "NOT_FOUND",
        "message": "No collection 'nope'; collections: posts.",
        "details": {},
    }


def test_unknown_data_keys_are_refused_naming_them_and_the_known_fields(admin_api, posts_collection):
    response = admin_api.post(POSTS, {"data": {"title": "x", "colour": "red", "Views": 2}}, format="json")
    assert response.status_code == 400
    known = "Unknown field '{}' in collection 'posts'; known fields: title, body, views."
    assert error_of(response) == {
        "code": "VALIDATION_ERROR",
        "message": "/data/colour: " + known.format("colour") + " (and 1 more problem; see details)",
        "details": {"colour": known.format("colour"), "Views": known.format("Views")},
        "pointers": {"colour": "/data/colour", "Views": "/data/Views"},
    }
    assert not Entry.objects.exists()


def test_unknown_body_keys_are_refused(admin_api, posts_collection):
    response = admin_api.post(POSTS, {"data": {"title": "x"}, "title": "x"}, format="json")
    assert response.status_code == 400
    assert error_of(response)["details"] == {
        "title": "Unknown field; allowed: bylines, data, locale, slug, status, translationOf."
    }


@pytest.mark.parametrize("data", [{}, {"title": ""}, {"title": None}, {"views": 2}])
def test_required_fields_must_have_a_value_on_create(admin_api, posts_collection, data):
    response = admin_api.post(POSTS, {"data": data}, format="json")
    assert response.status_code == 400
    assert error_of(response) == {
        "code": "VALIDATION_ERROR",
        "message": "/data/title: Required: give this field a value.",
        "details": {"title": "Required: give this field a value."},
        "pointers": {"title": "/data/title"},
    }


def test_data_must_be_an_object(admin_api, posts_collection):
    response = admin_api.post(POSTS, {"data": ["title"]}, format="json")
    assert response.status_code == 400
    assert list(error_of(response)["details"]) == ["data"]


def test_defaults_fill_absent_fields_on_create_only(admin_api, posts_collection):
    make_field(
        posts_collection, "kind", "select", validation={"options": ["news", "blog"]}, default_value="news"
    )
    make_field(posts_collection, "tags", "json", default_value=["a"])
    response = admin_api.post(POSTS, {"data": {"title": "x", "kind": "blog"}}, format="json")
    assert response.json()["data"]["item"]["data"] == {"title": "x", "kind": "blog", "tags": ["a"]}
    entry_id = response.json()["data"]["item"]["id"]
    # A field cleared later stays empty: defaults are for new entries.
    response = admin_api.patch(entry_url(entry_id), {"data": {"tags": None}}, format="json")
    assert response.json()["data"]["item"]["data"] == {"title": "x", "kind": "blog"}
    # Each entry gets its own copy of a default value.
    Entry.objects.filter(pk=entry_id).update(data={"title": "x", "kind": "blog", "tags": ["changed"]})
    response = admin_api.post(POSTS, {"data": {"title": "y"}}, format="json")
    assert response.json()["data"]["item"]["data"] == {"title": "y", "kind": "news", "tags": ["a"]}


# --- slugs ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "slug"),
    [
        ("Hello World", "hello-world"),
        ("Hello, World! (Again?)", "hello-world-again"),
        ("  Many   spaces\tand\ttabs  ", "many-spaces-and-tabs"),
        ("Ünïcödé Straße über alles", "ünïcödé-straße-über-alles"),
        ("日本語のタイトル", "日本語のタイトル"),
        ("Привет, мир", "привет-мир"),
        ("snake_case_title", "snake-case-title"),
        ("Ça coûte 5€ — ou 10 $", "ça-coûte-5-ou-10"),
    ],
)
def test_slugs_are_generated_from_the_title(admin_api, posts_collection, title, slug):
    response = admin_api.post(POSTS, {"data": {"title": title}}, format="json")
    assert response.status_code == 201
    assert response.json()["data"]["item"]["slug"] == slug


def test_a_generated_slug_has_at_most_80_characters(admin_api, posts_collection):
    title = " ".join(["word"] * 30)  # 149 characters
    response = admin_api.post(POSTS, {"data": {"title": title}}, format="json")
    slug = response.json()["data"]["item"]["slug"]
    assert slug == "-".join(["word"] * 16)  # cut at the last hyphen before 80
    assert len(slug) <= 80
    response = admin_api.post(POSTS, {"data": {"title": "x" * 120}}, format="json")
    assert response.json()["data"]["item"]["slug"] == "x" * 80
    # The suffix of a taken long slug stays within the limit too.
    response = admin_api.post(POSTS, {"data": {"title": "x" * 120}}, format="json")
    assert response.json()["data"]["item"]["slug"] == "x" * 78 + "-2"


def test_taken_generated_slugs_get_a_number(admin_api, posts_collection):
    slugs = [
        admin_api.post(POSTS, {"data": {"title": "Same title"}}, format="json").json()["data"]["item"]["slug"]
        for _ in range(4)
    ]
    assert slugs == ["same-title", "same-title-2", "same-title-3", "same-title-4"]


def test_the_name_field_is_used_when_there_is_no_title(admin_api):
    make_collection("people", fields=[{"slug": "name"}])
    response = admin_api.post("/_cms/api/content/people", {"data": {"name": "Grace Hopper"}}, format="json")
    assert response.json()["data"]["item"]["slug"] == "grace-hopper"


def test_without_title_or_name_the_slug_is_the_id(admin_api):
    make_collection("notes", fields=[{"slug": "text", "type": "text"}])
    response = admin_api.post("/_cms/api/content/notes", {"data": {"text": "x"}}, format="json")
    item = response.json()["data"]["item"]
    assert item["slug"] == item["id"].lower()


def test_an_explicit_slug_is_slugified(admin_api, posts_collection):
    response = admin_api.post(POSTS, {"data": {"title": "x"}, "slug": "My Custom Slug!"}, format="json")
    assert response.json()["data"]["item"]["slug"] == "my-custom-slug"
    response = admin_api.post(POSTS, {"data": {"title": "x"}, "slug": "!!!"}, format="json")
    assert response.status_code == 400
    assert error_of(response)["details"] == {"slug": "Needs at least one letter or digit."}


def test_an_explicit_taken_slug_is_duplicate_slug(admin_api, draft_entry):
    response = admin_api.post(POSTS, {"data": {"title": "Other"}, "slug": "hello-world"}, format="json")
    assert response.status_code == 409
    assert error_of(response) == {
        "code": "DUPLICATE_SLUG",
        "message": f"The slug 'hello-world' is already used by entry {draft_entry.pk} in 'posts' (en); "
        "choose another or omit slug to get a free one.",
        "details": {"slug": f"Taken by {draft_entry.pk}."},
    }
    assert Entry.objects.count() == 1
    # Renaming another entry onto it is refused the same way.
    other = make_entry(draft_entry.collection, {"title": "Other"})
    response = admin_api.patch(entry_url(other), {"slug": "hello-world"}, format="json")
    assert response.status_code == 409
    assert error_of(response)["code"] == "DUPLICATE_SLUG"
    other.refresh_from_db()
    assert other.slug == "other" and other.version == 1


def test_slugs_are_unique_per_collection(admin_api, draft_entry):
    make_collection("pages", fields=[{"slug": "title"}])
    response = admin_api.post("/_cms/api/content/pages", {"data": {"title": "Hello world"}}, format="json")
    assert response.json()["data"]["item"]["slug"] == "hello-world"


@override_settings(CMS_LOCALES=["en", "fr"])
def test_slugs_are_unique_per_locale(admin_api, draft_entry):
    response = admin_api.post(
        POSTS, {"data": {"title": "Hello world"}, "locale": "fr", "slug": "hello-world"}, format="json"
    )
    assert response.status_code == 201
    assert response.json()["data"]["item"]["slug"] == "hello-world"


# --- get ------------------------------------------------------------------------------------------------------------


def test_get_by_id_and_by_slug(admin_api, draft_entry):
    by_id = admin_api.get(entry_url(draft_entry))
    assert by_id.status_code == 200
    assert by_id.json() == {
        "success": True,
        "data": {
            "item": item_body(draft_entry, meta=True, data={"title": "Hello world", "views": 1}),
            "_rev": draft_entry.rev,
        },
    }
    assert admin_api.get(f"{POSTS}/hello-world").json() == by_id.json()
    assert admin_api.get(entry_url(draft_entry.pk.lower())).json() == by_id.json()


def test_an_entrys_metadata_is_read_back_by_editors_in_single_entry_reads_only(
    admin_api, client_for, posts_collection
):
    meta = {"import": {"sourceId": 12, "sticky": True, "parentId": 3}, "_importError": {"message": "x"}}
    entry = make_entry(posts_collection, {"title": "Imported"}, status="published", meta=meta)

    response = admin_api.get(entry_url(entry))
    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "data": {"item": item_body(entry, meta=True), "_rev": entry.rev},
    }
    assert response.json()["data"]["item"]["meta"] == meta
    # Lists (spliced stored JSON, performance-critical) and write answers never carry it.
    assert [item.get("meta") for item in admin_api.get(POSTS).json()["data"]["items"]] == [None]
    patched = admin_api.patch(entry_url(entry), {"data": {"title": "Edited"}}, format="json")
    assert patched.status_code == 200 and "meta" not in patched.json()["data"]["item"]
    # Readers without drafts access see the published entry without its metadata (commenters' addresses, originals).
    reader = client_for(role=Role.SUBSCRIBER, scopes=["content:read"])
    published = reader.get(entry_url(entry))
    assert published.status_code == 200
    assert published.json()["data"]["item"] == item_body(entry, drafts=False)
    # Metadata is read-only: a write that sends it is refused, nothing changes.
    refused = admin_api.patch(entry_url(entry), {"meta": {"x": 1}}, format="json")
    assert refused.status_code == 400
    assert error_of(refused)["details"] == {
        "meta": "Unknown field; allowed: _rev, bylines, data, publishedAt, slug, status."
    }
    assert Entry.objects.get(pk=entry.pk).meta == meta


@override_settings(CMS_LOCALES=["en", "fr"])
def test_get_by_slug_in_a_locale(admin_api, draft_entry):
    french = make_entry(draft_entry.collection, {"title": "Bonjour"}, slug="hello-world", locale="fr")
    assert admin_api.get(f"{POSTS}/hello-world").json()["data"]["item"]["id"] == draft_entry.pk
    response = admin_api.get(f"{POSTS}/hello-world", {"locale": "fr"})
    assert response.json()["data"]["item"]["id"] == french.pk
    assert admin_api.get(f"{POSTS}/hello-world", {"locale": "de"}).status_code == 404


def test_get_unknown_entry_is_404(admin_api, draft_entry):
    response = admin_api.get(f"{POSTS}/no-such-post")
    assert response.status_code == 404
    assert error_of(response) == {
        "code": "NOT_FOUND",
        "message": "No entry 'no-such-post' in 'posts'.",
        "details": {},
    }
    # An entry is found only through its own collection.
    make_collection("pages")
    assert admin_api.get(f"/_cms/api/content/pages/{draft_entry.pk}").status_code == 404


def test_get_refuses_unknown_query_parameters(admin_api, draft_entry):
    response = admin_api.get(entry_url(draft_entry), {"lang": "fr"})
    assert response.status_code == 400
    assert error_of(response)["details"] == {
        "lang": "Unknown query parameter; allowed: locale, resolveLinks."
    }


# --- update ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["patch", "put"])
def test_update_changes_only_what_is_sent(admin_api, draft_entry, method):
    response = getattr(admin_api, method)(entry_url(draft_entry), {"data": {"body": "Text"}}, format="json")
    assert response.status_code == 200
    assert response.json() == written(
        draft_entry, data={"title": "Hello world", "views": 1, "body": "Text"}, slug="hello-world", version=2
    )
    item = response.json()["data"]["item"]
    assert item["updatedAt"] > item["createdAt"]


@pytest.mark.parametrize("method", ["patch", "put"])
def test_null_clears_a_field_but_not_a_required_one(admin_api, draft_entry, method):
    send = getattr(admin_api, method)
    response = send(entry_url(draft_entry), {"data": {"views": None}}, format="json")
    assert response.json()["data"]["item"]["data"] == {"title": "Hello world"}
    response = send(entry_url(draft_entry), {"data": {"title": None}}, format="json")
    assert response.status_code == 400
    assert error_of(response)["details"] == {"title": "Required: give this field a value."}
    response = send(entry_url(draft_entry), {"data": {"title": ""}}, format="json")
    assert response.status_code == 400
    draft_entry.refresh_from_db()
    assert draft_entry.data == {"title": "Hello world"}


def test_changing_the_title_keeps_the_slug(admin_api, draft_entry):
    response = admin_api.patch(entry_url(draft_entry), {"data": {"title": "New title"}}, format="json")
    assert response.json()["data"]["item"]["slug"] == "hello-world"
    response = admin_api.patch(entry_url(draft_entry), {"slug": "New Slug"}, format="json")
    assert response.json()["data"]["item"]["slug"] == "new-slug"
    assert admin_api.get(f"{POSTS}/new-slug").status_code == 200
    assert admin_api.get(f"{POSTS}/hello-world").status_code == 404


def test_update_refuses_unknown_data_keys_and_writes_nothing(admin_api, draft_entry):
    response = admin_api.patch(entry_url(draft_entry), {"data": {"views": 2, "likes": 3}}, format="json")
    assert response.status_code == 400
    assert error_of(response)["details"] == {
        "likes": "Unknown field 'likes' in collection 'posts'; known fields: title, body, views."
    }
    draft_entry.refresh_from_db()
    assert draft_entry.data == {"title": "Hello world", "views": 1} and draft_entry.version == 1


def test_update_by_slug(admin_api, draft_entry):
    response = admin_api.patch(f"{POSTS}/hello-world", {"data": {"views": 5}}, format="json")
    assert response.status_code == 200
    assert response.json()["data"]["item"]["id"] == draft_entry.pk


def test_update_of_an_unknown_entry_is_404(admin_api, posts_collection):
    assert admin_api.patch(f"{POSTS}/nothing", {"data": {}}, format="json").status_code == 404


# --- _rev -----------------------------------------------------------------------------------------------------------


def test_rev_changes_on_every_write(admin_api, draft_entry):
    revs = [admin_api.get(entry_url(draft_entry)).json()["data"]["_rev"]]
    for body in (
        {"data": {"views": 2}},
        {"data": {"views": 2}},
        {"slug": "renamed"},
        {"status": "published"},
    ):
        response = admin_api.patch(entry_url(draft_entry), body, format="json")
        revs.append(response.json()["data"]["_rev"])
        assert admin_api.get(entry_url(draft_entry)).json()["data"]["_rev"] == revs[-1]
    for action in ("unpublish", "publish"):
        revs.append(
            admin_api.post(entry_url(draft_entry, f"/{action}"), {}, format="json").json()["data"]["_rev"]
        )
    assert len(set(revs)) == len(revs) == 7


@pytest.mark.parametrize("method", ["patch", "put"])
def test_a_current_rev_is_accepted(admin_api, draft_entry, method):
    rev = admin_api.get(entry_url(draft_entry)).json()["data"]["_rev"]
    response = getattr(admin_api, method)(
        entry_url(draft_entry), {"data": {"views": 2}, "_rev": rev}, format="json"
    )
    assert response.status_code == 200
    assert response.json()["data"]["_rev"] != rev


@pytest.mark.parametrize("method", ["patch", "put"])
def test_a_stale_rev_is_a_conflict_and_nothing_is_written(admin_api, draft_entry, method):
    stale = admin_api.get(entry_url(draft_entry)).json()["data"]["_rev"]
    current = admin_api.patch(entry_url(draft_entry), {"data": {"views": 2}}, format="json").json()["data"][
        "_rev"
    ]
    revisions = Revision.objects.count()

    response = getattr(admin_api, method)(
        entry_url(draft_entry),
        {"data": {"views": 99, "body": "lost?"}, "status": "published", "_rev": stale},
        format="json",
    )
    assert response.status_code == 409
    assert error_of(response) == {
        "code": "CONFLICT",
        "message": f"The entry changed since you read it (your _rev {stale}, current {current}); "
        "fetch it again and reapply your change.",
        "details": {"currentRev": current},
    }
    draft_entry.refresh_from_db()
    assert draft_entry.data == {"title": "Hello world", "views": 2}
    assert (draft_entry.version, draft_entry.status, draft_entry.live_data) == (2, "draft", None)
    assert Revision.objects.count() == revisions


def test_a_made_up_rev_is_a_conflict(admin_api, draft_entry):
    response = admin_api.patch(
        entry_url(draft_entry), {"data": {"views": 3}, "_rev": "garbage"}, format="json"
    )
    assert response.status_code == 409
    assert error_of(response)["code"] == "CONFLICT"


# --- delete ---------------------------------------------------------------------------------------------------------


def test_delete_moves_the_entry_to_the_trash(admin_api, draft_entry):
    response = admin_api.delete(entry_url(draft_entry))
    assert response.status_code == 200
    assert response.json() == {"success": True, "data": {"success": True}}
    draft_entry.refresh_from_db()
    assert draft_entry.deleted_at is not None and draft_entry.status == "draft"
    assert admin_api.get(f"{POSTS}/hello-world").status_code == 404
    assert admin_api.delete(f"{POSTS}/hello-world").status_code == 404
    # By id it is still there for editors, marked as trashed.
    item = admin_api.get(entry_url(draft_entry)).json()["data"]["item"]
    assert item == item_body(draft_entry, meta=True) and item["deletedAt"] is not None


def test_deleting_twice_is_an_invalid_transition(admin_api, draft_entry):
    assert admin_api.delete(entry_url(draft_entry)).status_code == 200
    response = admin_api.delete(entry_url(draft_entry))
    assert response.status_code == 400
    assert error_of(response) == {
        "code": "INVALID_TRANSITION",
        "message": "Cannot trash an entry in the trash; restore it first.",
        "details": {"state": "trashed", "action": "trash"},
    }
