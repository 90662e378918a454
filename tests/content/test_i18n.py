"""Translations (SPEC §2.1 locale and translationOf): siblings in one translation group, one entry per locale,
non-translatable fields kept in sync across the group, ``GET …/translations``, and configured locales only."""

from __future__ import annotations

import pytest
from django.test import override_settings

from apps.accounts.models import Role
from apps.content.models import Entry
from tests.content.conftest import POSTS, entry_url, error_of, item_body
from tests.factories import make_collection, make_entry, make_field

pytestmark = pytest.mark.usefixtures("three_locales")


@pytest.fixture
def three_locales():
    with override_settings(CMS_DEFAULT_LOCALE="en", CMS_LOCALES=["en", "fr", "de"]):
        yield


@pytest.fixture
def product(posts_collection):
    """An English post with a price that is the same in every language."""
    make_field(posts_collection, "price", "number", translatable=False)
    make_field(posts_collection, "sku", "string", translatable=False)
    return make_entry(posts_collection, {"title": "Chair", "price": 10, "sku": "C-1"}, status="published")


def translate(api, source, locale: str, data: dict, **extra):
    return api.post(
        POSTS, {"data": data, "locale": locale, "translationOf": source.pk, **extra}, format="json"
    )


def test_translation_of_creates_a_sibling_in_the_same_group(admin_api, product):
    response = translate(admin_api, product, "fr", {"title": "Chaise"})
    assert response.status_code == 201
    item = response.json()["data"]["item"]
    assert item == item_body(
        item["id"],
        locale="fr",
        translationGroup=product.pk,
        slug="chaise",
        status="draft",
        # Non-translatable values come from the group.
        data={"title": "Chaise", "price": 10, "sku": "C-1"},
    )
    german = translate(admin_api, Entry.objects.get(pk=item["id"]), "de", {"title": "Stuhl"}).json()["data"][
        "item"
    ]
    assert german["translationGroup"] == product.pk


def test_the_default_locale_is_the_sites(admin_api, posts_collection):
    item = admin_api.post(POSTS, {"data": {"title": "x"}}, format="json").json()["data"]["item"]
    assert item["locale"] == "en" and item["translationGroup"] == item["id"]


def test_a_second_entry_in_the_same_locale_of_a_group_is_refused(admin_api, product):
    french = translate(admin_api, product, "fr", {"title": "Chaise"}).json()["data"]["item"]
    response = translate(admin_api, product, "fr", {"title": "Autre chaise"})
    assert response.status_code == 409
    assert error_of(response) == {
        "code": "CONFLICT",
        "message": f"The translation group already has a 'fr' entry ({french['id']}).",
        "details": {"locale": f"Taken by {french['id']}."},
    }
    # The source's own locale is taken too.
    response = translate(admin_api, product, "en", {"title": "Chair again"})
    assert response.status_code == 409
    assert Entry.objects.count() == 2


def test_translation_of_an_unknown_entry_is_refused(admin_api, product):
    other = make_collection("pages", fields=[{"slug": "title"}])
    page = make_entry(other, {"title": "x"})
    for source_id in ("01HZZZZZZZZZZZZZZZZZZZZZZZ", page.pk):
        response = admin_api.post(
            POSTS, {"data": {"title": "x"}, "locale": "fr", "translationOf": source_id}, format="json"
        )
        assert response.status_code == 400
        assert error_of(response)["details"] == {"translationOf": f"No entry {source_id} in 'posts'."}


@pytest.mark.parametrize("locale", ["es", "EN", "fr-FR"])
def test_an_unknown_locale_is_refused(admin_api, posts_collection, locale):
    response = admin_api.post(POSTS, {"data": {"title": "x"}, "locale": locale}, format="json")
    assert response.status_code == 400
    assert error_of(response) == {
        "code": "VALIDATION_ERROR",
        "message": f"locale: Unknown locale '{locale}'; configured: en, fr, de.",
        "details": {"locale": f"Unknown locale '{locale}'; configured: en, fr, de."},
    }


def test_non_translatable_fields_stay_in_sync_across_the_group(admin_api, product):
    french = translate(admin_api, product, "fr", {"title": "Chaise"}).json()["data"]["item"]
    german = translate(admin_api, product, "de", {"title": "Stuhl", "price": 12}).json()["data"]["item"]
    # The new translation's value went to the whole group.
    assert [Entry.objects.get(pk=pk).data["price"] for pk in (product.pk, french["id"], german["id"])] == [
        12,
        12,
        12,
    ]

    response = admin_api.patch(
        entry_url(french["id"]), {"data": {"price": 15, "title": "Chaise!"}}, format="json"
    )
    assert response.status_code == 200
    stored = {entry.locale: entry for entry in Entry.objects.all()}
    assert stored["en"].data == {"title": "Chair", "price": 15, "sku": "C-1"}
    assert stored["fr"].data == {"title": "Chaise!", "price": 15, "sku": "C-1"}
    assert stored["de"].data == {"title": "Stuhl", "price": 15, "sku": "C-1"}
    # Published versions change when each is published again, like any edit.
    assert stored["en"].live_data == {"title": "Chair", "price": 10, "sku": "C-1"}

    # Clearing a shared value clears it everywhere.
    admin_api.patch(entry_url(product), {"data": {"sku": None}}, format="json")
    assert {entry.locale: "sku" in entry.data for entry in Entry.objects.all()} == {
        "en": False,
        "fr": False,
        "de": False,
    }


def test_a_sibling_synced_by_another_write_gets_a_new_rev(admin_api, product):
    french = translate(admin_api, product, "fr", {"title": "Chaise"}).json()["data"]
    rev = french["_rev"]
    admin_api.patch(entry_url(product), {"data": {"price": 20}}, format="json")
    response = admin_api.patch(
        entry_url(french["item"]["id"]), {"data": {"title": "x"}, "_rev": rev}, format="json"
    )
    assert response.status_code == 409


def test_translations_lists_the_group_by_locale(admin_api, client_for, product):
    french = translate(admin_api, product, "fr", {"title": "Chaise"}).json()["data"]["item"]
    german = translate(admin_api, product, "de", {"title": "Stuhl"}, status="published").json()["data"][
        "item"
    ]
    unrelated = make_entry(product.collection, {"title": "Table"})

    response = admin_api.get(entry_url(french["id"], "/translations"))
    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "data": {
            "translationGroup": product.pk,
            "items": [item_body(german["id"]), item_body(product.pk), item_body(french["id"])],
        },
    }
    assert unrelated.pk not in [item["id"] for item in response.json()["data"]["items"]]

    # Readers see the published members of the group only, as published.
    reader = client_for(role=Role.SUBSCRIBER, scopes=["content:read"])
    response = reader.get(entry_url(product, "/translations"))
    assert [item["locale"] for item in response.json()["data"]["items"]] == ["de", "en"]
    assert reader.get(entry_url(french["id"], "/translations")).status_code == 404


def test_a_trashed_translation_leaves_the_group_listing_and_frees_its_locale(admin_api, product):
    french = translate(admin_api, product, "fr", {"title": "Chaise"}).json()["data"]["item"]
    admin_api.delete(entry_url(french["id"]))
    listed = admin_api.get(entry_url(product, "/translations")).json()["data"]["items"]
    assert [item["locale"] for item in listed] == ["en"]
    assert translate(admin_api, product, "fr", {"title": "Nouvelle chaise"}).status_code == 201


def test_the_list_filters_by_locale(admin_api, product):
    translate(admin_api, product, "fr", {"title": "Chaise"})
    items = admin_api.get(POSTS, {"locale": "fr"}).json()["data"]["items"]
    assert [item["data"]["title"] for item in items] == ["Chaise"]


def test_restoring_a_translation_whose_locale_was_taken_meanwhile_is_refused(admin_api, product):
    old = translate(admin_api, product, "fr", {"title": "Chaise"}).json()["data"]["item"]
    admin_api.delete(entry_url(old["id"]))
    new = translate(admin_api, product, "fr", {"title": "Nouvelle chaise"}).json()["data"]["item"]
    response = admin_api.post(entry_url(old["id"], "/restore"), {}, format="json")
    assert response.status_code == 409
    assert error_of(response) == {
        "code": "CONFLICT",
        "message": f"The translation group already has a 'fr' entry ({new['id']}); trash it first to restore this one.",
        "details": {"locale": f"Taken by {new['id']}."},
    }
    assert Entry.objects.get(pk=old["id"]).deleted_at is not None
    assert [item["id"] for item in admin_api.get(POSTS, {"locale": "fr"}).json()["data"]["items"]] == [
        new["id"]
    ]
