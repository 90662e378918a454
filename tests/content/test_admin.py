"""The Django admin for operators: entries and collections are listed and edited through the same services as the
API (revisions, indexes and checks follow), the lifecycle admin actions work, and only admins get in."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from apps.accounts.models import Role
from apps.content.models import Entry, Revision
from apps.schema.models import Collection, Field
from tests.factories import make_entry, make_user
from tests.schema.test_indexes import indexes_of

ADMIN = "/django-admin"


@pytest.fixture
def operator() -> Client:
    client = Client()
    client.force_login(make_user(Role.ADMIN))
    return client


def messages_of(response) -> list[str]:
    return [str(message) for message in response.context["messages"]]


def run_action(client: Client, action: str, entries) -> list[str]:
    response = client.post(
        f"{ADMIN}/content/entry/",
        {"action": action, "_selected_action": [entry.pk for entry in entries]},
        follow=True,
    )
    assert response.status_code == 200
    return messages_of(response)


def test_an_admin_lists_entries_and_sees_their_data(operator, draft_entry, published_entry):
    response = operator.get(f"{ADMIN}/content/entry/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "hello-world" in page and "live-post" in page
    response = operator.get(f"{ADMIN}/content/entry/{draft_entry.pk}/change/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "{&quot;title&quot;: &quot;Hello world&quot;, &quot;views&quot;: 1}" in page
    assert '<div class="readonly">Draft</div>' in page


def test_an_admin_edits_an_entry_through_the_service(operator, draft_entry):
    response = operator.post(
        f"{ADMIN}/content/entry/{draft_entry.pk}/change/",
        {
            "slug": "edited-in-admin",
            "data": json.dumps({"title": "Edited", "views": 2}),
            "credits-TOTAL_FORMS": "0",
            "credits-INITIAL_FORMS": "0",
            "credits-MIN_NUM_FORMS": "0",
            "credits-MAX_NUM_FORMS": "1000",
        },
        follow=True,
    )
    assert response.status_code == 200
    stored = Entry.objects.get(pk=draft_entry.pk)
    assert (stored.slug, stored.data, stored.version) == (
        "edited-in-admin",
        {"title": "Edited", "views": 2},
        2,
    )
    assert Revision.objects.filter(entry_id=draft_entry.pk).count() == 2


def test_the_admin_shows_refusals_as_form_errors(operator, draft_entry):
    response = operator.post(
        f"{ADMIN}/content/entry/{draft_entry.pk}/change/",
        {
            "slug": "",
            "data": json.dumps({"title": "x", "colour": "red"}),
            "credits-TOTAL_FORMS": "0",
            "credits-INITIAL_FORMS": "0",
            "credits-MIN_NUM_FORMS": "0",
            "credits-MAX_NUM_FORMS": "1000",
        },
    )
    assert response.status_code == 200  # the form again, with the error
    assert "Unknown field &#x27;colour&#x27; in collection &#x27;posts&#x27;" in response.content.decode()
    assert Entry.objects.get(pk=draft_entry.pk).version == 1


def test_an_admin_adds_an_entry(operator, posts_collection):
    response = operator.post(
        f"{ADMIN}/content/entry/add/",
        {
            "collection": posts_collection.pk,
            "slug": "",
            "locale": "en",
            "data": json.dumps({"title": "From the admin"}),
            "credits-TOTAL_FORMS": "0",
            "credits-INITIAL_FORMS": "0",
            "credits-MIN_NUM_FORMS": "0",
            "credits-MAX_NUM_FORMS": "1000",
        },
        follow=True,
    )
    assert response.status_code == 200
    entry = Entry.objects.get()
    assert (entry.slug, entry.status, entry.data) == ("from-the-admin", "draft", {"title": "From the admin"})


def test_publish_unpublish_trash_and_restore_actions(operator, posts_collection, draft_entry):
    other = make_entry(posts_collection, {"title": "Second"})
    assert run_action(operator, "publish", [draft_entry, other]) == ["Publish: 2 done."]
    assert set(Entry.objects.values_list("status", flat=True)) == {"published"}
    assert Entry.objects.get(pk=other.pk).live_data == {"title": "Second"}

    assert run_action(operator, "unpublish", [other]) == ["Unpublish: 1 done."]
    assert Entry.objects.get(pk=other.pk).status == "draft"

    assert run_action(operator, "trash", [draft_entry]) == ["Trash: 1 done."]
    assert Entry.objects.get(pk=draft_entry.pk).deleted_at is not None
    # An action that does not apply to one entry reports it and carries on with the others.
    assert run_action(operator, "restore", [draft_entry, other]) == [
        "Restore: 1 done.",
        "posts/second: The entry is not in the trash.",
    ]
    stored = Entry.objects.get(pk=draft_entry.pk)
    assert (stored.deleted_at, stored.status) == (None, "published")


def test_an_admin_lists_and_edits_collections(operator, posts_collection):
    assert operator.get(f"{ADMIN}/schema/collection/").status_code == 200
    response = operator.get(f"{ADMIN}/schema/collection/{posts_collection.pk}/change/")
    assert response.status_code == 200 and "title" in response.content.decode()
    response = operator.post(
        f"{ADMIN}/schema/collection/{posts_collection.pk}/change/",
        {
            "label": "Articles",
            "label_singular": "Article",
            "description": "",
            "icon": "",
            "supports": ["drafts", "scheduling"],
            "fields-TOTAL_FORMS": "3",
            "fields-INITIAL_FORMS": "3",
            "fields-MIN_NUM_FORMS": "0",
            "fields-MAX_NUM_FORMS": "1000",
            **{
                f"fields-{n}-id": field.pk
                for n, field in enumerate(
                    Field.objects.filter(collection=posts_collection).order_by("sort_order")
                )
            },
            **{f"fields-{n}-collection": posts_collection.pk for n in range(3)},
        },
        follow=True,
    )
    assert response.status_code == 200
    stored = Collection.objects.get(pk=posts_collection.pk)
    assert (stored.label, stored.label_singular, stored.supports) == (
        "Articles",
        "Article",
        ["drafts", "scheduling"],
    )


def test_an_admin_adds_a_collection(operator):
    response = operator.post(
        f"{ADMIN}/schema/collection/add/",
        {
            "slug": "pages",
            "label": "Pages",
            "label_singular": "",
            "description": "",
            "icon": "",
            "supports": ["drafts"],
            "fields-TOTAL_FORMS": "0",
            "fields-INITIAL_FORMS": "0",
            "fields-MIN_NUM_FORMS": "0",
            "fields-MAX_NUM_FORMS": "1000",
        },
        follow=True,
    )
    assert response.status_code == 200
    stored = Collection.objects.get()
    assert (stored.slug, stored.label, stored.supports) == ("pages", "Pages", ["drafts"])


def test_an_admin_adds_a_field_with_its_indexes(operator, posts_collection):
    response = operator.post(
        f"{ADMIN}/schema/field/add/",
        {
            "collection": posts_collection.pk,
            "slug": "rating",
            "label": "Rating",
            "type": "integer",
            "default_value": "null",
            "validation": json.dumps({"min": 0}),
            "options": "{}",
            "widget": "",
            "sort_order": "5",
        },
        follow=True,
    )
    assert response.status_code == 200
    field = Field.objects.get(collection=posts_collection, slug="rating")
    assert (field.type, field.validation) == ("integer", {"min": 0})
    assert indexes_of(field.pk) == {f"cms_sd_{field.pk.lower()}", f"cms_sl_{field.pk.lower()}"}


@pytest.mark.parametrize("role", [Role.EDITOR, Role.AUTHOR, Role.SUBSCRIBER])
@pytest.mark.parametrize("page", ["/content/entry/", "/schema/collection/", "/content/entry/{id}/change/"])
def test_non_admins_cannot_reach_the_admin(draft_entry, role, page):
    client = Client()
    client.force_login(make_user(role))
    response = client.get(ADMIN + page.format(id=draft_entry.pk))
    assert response.status_code == 302
    assert response["Location"].startswith(f"{ADMIN}/login/")
    response = client.post(
        f"{ADMIN}/content/entry/", {"action": "publish", "_selected_action": [draft_entry.pk]}
    )
    assert response.status_code == 302
    assert Entry.objects.get(pk=draft_entry.pk).status == "draft"
