"""An entry's terms (SPEC §4.2 ``POST /content/:collection/:id/terms/:taxonomy``), terms in entry answers, and the
term filter of content lists (``?terms[category]=news``)."""

from __future__ import annotations

import pytest
from django.db import transaction

from apps.accounts.models import Role
from apps.accounts.permissions import Actor
from apps.core.errors import ValidationError
from apps.taxonomy import services as taxonomy_services
from apps.taxonomy.models import EntryTerm, Taxonomy
from tests.factories import make_collection, make_entry, make_user

CONTENT = "/_cms/api/content/posts"


@pytest.fixture
def posts():
    return make_collection("posts", fields=[("title", "string")])


@pytest.fixture
def taxonomies(posts):
    actor = Actor.system()
    category = taxonomy_services.taxonomy_create(
        actor=actor, name="category", label="Categories", hierarchical=True, collections=["posts"]
    )
    tag = taxonomy_services.taxonomy_create(actor=actor, name="tag", label="Tags", collections=["posts"])
    make_collection("pages", fields=[("title", "string")])
    elsewhere = taxonomy_services.taxonomy_create(
        actor=actor, name="section", label="Sections", collections=["pages"]
    )

    def add(taxonomy, label, parent=None):
        return taxonomy_services.term_create(
            actor=actor, taxonomy=taxonomy, label=label, parent_id=parent.pk if parent else None
        )

    news = add(category, "News")
    local = add(category, "Local", news)
    sport = add(category, "Sport")
    python = add(tag, "Python")
    return {
        "category": category,
        "tag": tag,
        "news": news,
        "local": local,
        "sport": sport,
        "python": python,
        "foreign": add(elsewhere, "Front"),
    }


def set_terms(client, entry_id, taxonomy, term_ids):
    return client.post(f"{CONTENT}/{entry_id}/terms/{taxonomy}", {"termIds": term_ids}, format="json")


def ref(term):
    return {"id": term.pk, "slug": term.slug, "label": term.label, "parentId": term.parent_id}


def test_set_and_get_an_entrys_terms(admin_api, posts, taxonomies):
    entry = make_entry(posts, {"title": "Hello"})
    t = taxonomies
    response = set_terms(admin_api, entry.pk, "category", [t["sport"].pk, t["news"].pk])
    assert response.status_code == 200
    items = response.json()["data"]["items"]
    assert [item["slug"] for item in items] == ["sport", "news"]
    assert items[0] == {
        "id": t["sport"].pk,
        "taxonomy": "category",
        "slug": "sport",
        "label": "Sport",
        "parentId": None,
        "description": "",
        "createdAt": items[0]["createdAt"],
        "updatedAt": items[0]["updatedAt"],
    }
    assert admin_api.get(f"{CONTENT}/{entry.pk}/terms/category").json()["data"]["items"] == items
    # By slug too, like every entry route.
    assert admin_api.get(f"{CONTENT}/hello/terms/category").json()["data"]["items"] == items
    replaced = set_terms(admin_api, entry.pk, "category", [t["local"].pk])
    assert [item["slug"] for item in replaced.json()["data"]["items"]] == ["local"]
    assert set_terms(admin_api, entry.pk, "category", []).json()["data"]["items"] == []


def test_entry_answers_carry_terms_by_taxonomy(admin_api, posts, taxonomies):
    t = taxonomies
    entry = make_entry(posts, {"title": "Hello"})
    set_terms(admin_api, entry.pk, "category", [t["local"].pk])
    set_terms(admin_api, entry.pk, "tag", [t["python"].pk])
    item = admin_api.get(f"{CONTENT}/{entry.pk}").json()["data"]["item"]
    assert item["terms"] == {"category": [ref(t["local"])], "tag": [ref(t["python"])]}
    other = make_entry(posts, {"title": "Other"})
    listed = {item["id"]: item["terms"] for item in admin_api.get(CONTENT).json()["data"]["items"]}
    assert listed == {entry.pk: item["terms"], other.pk: {"category": [], "tag": []}}
    # Writes answer with the terms too.
    patched = admin_api.patch(f"{CONTENT}/{entry.pk}", {"data": {"title": "Hi"}}, format="json")
    assert patched.json()["data"]["item"]["terms"] == item["terms"]


def test_collections_without_taxonomies_show_no_terms_key(admin_api, taxonomies):
    notes = make_collection("notes", fields=[("title", "string")])
    entry = make_entry(notes, {"title": "Note"})
    assert "terms" not in admin_api.get(f"/_cms/api/content/notes/{entry.pk}").json()["data"]["item"]


def test_terms_of_another_taxonomy_are_refused(admin_api, posts, taxonomies):
    entry = make_entry(posts, {"title": "Hello"})
    t = taxonomies
    response = set_terms(
        admin_api, entry.pk, "category", [t["news"].pk, t["python"].pk, "01ARZ3NDEKTSV4RRFFQ69G5FAV"]
    )
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "termIds.1": f"Term {t['python'].pk} belongs to another taxonomy, not 'category'.",
        "termIds.2": "No term 01ARZ3NDEKTSV4RRFFQ69G5FAV.",
    }
    repeated = set_terms(admin_api, entry.pk, "category", [t["news"].pk, t["news"].pk])
    assert repeated.json()["error"]["details"] == {"termIds": "Name each term once."}


def test_a_taxonomy_not_attached_to_the_collection_is_refused(admin_api, posts, taxonomies):
    entry = make_entry(posts, {"title": "Hello"})
    response = set_terms(admin_api, entry.pk, "section", [taxonomies["foreign"].pk])
    assert response.status_code == 400
    assert response.json()["error"] == {
        "code": "VALIDATION_ERROR",
        "message": "The taxonomy 'section' does not apply to 'posts'; it applies to: pages.",
        "details": {"taxonomy": "Not attached to 'posts'."},
    }
    read = admin_api.get(f"{CONTENT}/{entry.pk}/terms/section")
    assert read.status_code == 404
    assert read.json()["error"]["message"] == "The taxonomy 'section' does not apply to 'posts'."


def test_setting_terms_follows_the_entry_update_rules(client_for, posts, taxonomies):
    owner = client_for(Role.CONTRIBUTOR, ["content:write"])
    mine = make_entry(posts, {"title": "Mine"}, author=owner.user)
    theirs = make_entry(posts, {"title": "Theirs"}, author=make_user(Role.AUTHOR))
    news = taxonomies["news"].pk
    assert set_terms(owner, mine.pk, "category", [news]).status_code == 200
    refused = set_terms(owner, theirs.pk, "category", [news])
    assert refused.status_code == 403
    assert refused.json()["error"]["details"] == {"requiredRole": 40}
    assert set_terms(client_for(Role.ADMIN, ["content:read"]), mine.pk, "category", [news]).status_code == 403


def test_deleting_a_term_detaches_it(admin_api, posts, taxonomies):
    entry = make_entry(posts, {"title": "Hello"})
    set_terms(admin_api, entry.pk, "tag", [taxonomies["python"].pk])
    admin_api.delete("/_cms/api/taxonomies/tag/terms/python")
    assert admin_api.get(f"{CONTENT}/{entry.pk}").json()["data"]["item"]["terms"]["tag"] == []


# --- the term filter ----------------------------------------------------------------------------------------------


@pytest.fixture
def tagged(admin_api, posts, taxonomies):
    t = taxonomies
    entries = {
        "a": make_entry(posts, {"title": "A"}),
        "b": make_entry(posts, {"title": "B"}),
        "c": make_entry(posts, {"title": "C"}),
        "d": make_entry(posts, {"title": "D"}),
    }
    set_terms(admin_api, entries["a"].pk, "category", [t["news"].pk])
    set_terms(admin_api, entries["b"].pk, "category", [t["local"].pk])
    set_terms(admin_api, entries["b"].pk, "tag", [t["python"].pk])
    set_terms(admin_api, entries["c"].pk, "category", [t["sport"].pk])
    set_terms(admin_api, entries["c"].pk, "tag", [t["python"].pk])
    return entries


def titles(response) -> list[str]:
    assert response.status_code == 200, response.json()
    return sorted(item["data"]["title"] for item in response.json()["data"]["items"])


def test_filter_by_a_term_includes_its_descendants(admin_api, tagged):
    assert titles(admin_api.get(f"{CONTENT}?terms[category]=news")) == ["A", "B"]
    assert titles(admin_api.get(f"{CONTENT}?terms[category]=local")) == ["B"]


def test_several_slugs_are_any_of_and_several_taxonomies_all_of(admin_api, tagged):
    assert titles(admin_api.get(f"{CONTENT}?terms[category]=local,sport")) == ["B", "C"]
    assert titles(admin_api.get(f"{CONTENT}?terms[category]=news&terms[tag]=python")) == ["B"]
    assert titles(admin_api.get(f"{CONTENT}?terms[tag]=python&orderBy=slug&order=asc")) == ["B", "C"]


def test_an_unknown_slug_matches_nothing(admin_api, tagged):
    assert titles(admin_api.get(f"{CONTENT}?terms[category]=nothing")) == []


def test_the_filter_pages_with_cursors(admin_api, tagged):
    first = admin_api.get(f"{CONTENT}?terms[category]=news&limit=1").json()["data"]
    second = admin_api.get(f"{CONTENT}?terms[category]=news&limit=1&cursor={first['nextCursor']}").json()[
        "data"
    ]
    assert sorted(item["data"]["title"] for item in first["items"] + second["items"]) == ["A", "B"]
    assert second["nextCursor"] is None


def test_taxonomies_that_do_not_apply_and_other_brackets_are_refused(admin_api, tagged):
    response = admin_api.get(f"{CONTENT}?terms[section]=front")
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "terms[section]": "No taxonomy 'section' applies to 'posts'; taxonomies that do: category, tag."
    }
    empty = admin_api.get(f"{CONTENT}?terms[tag]=")
    assert empty.json()["error"]["details"] == {"terms[tag]": "Give one or more term slugs, comma-separated."}
    other = admin_api.get(f"{CONTENT}?filter[tag]=python")
    assert other.status_code == 400
    assert list(other.json()["error"]["details"]) == ["filter[tag]"]


def test_public_readers_filter_published_entries(client_for, admin_api, posts, taxonomies):
    published = make_entry(posts, {"title": "Out"}, status="published")
    draft = make_entry(posts, {"title": "Draft"})
    for entry in (published, draft):
        set_terms(admin_api, entry.pk, "tag", [taxonomies["python"].pk])
    reader = client_for(Role.SUBSCRIBER, ["content:read"])
    assert titles(reader.get(f"{CONTENT}?terms[tag]=python")) == ["Out"]


# --- the importer's batches refuse terms in REST's words ------------------------------------------------------------
# ``entry_terms_set_many`` (one entry, several taxonomies) and ``entry_terms_add_many`` (many new entries) have no HTTP
# face of their own (the importer calls them), so they are called as the importer calls them.

BAD_TERMS = {
    "another taxonomy's term and an unknown one": (
        "category",
        ["news", "python", "01ARZ3NDEKTSV4RRFFQ69G5FAV"],
    ),
    "a term named twice": ("category", ["news", "news"]),
    "a taxonomy of another collection": ("section", ["foreign"]),
}


@pytest.mark.parametrize("case", list(BAD_TERMS))
def test_a_batch_refuses_terms_in_the_words_of_rest(admin_api, posts, taxonomies, case):
    name, refs = BAD_TERMS[case]
    term_ids = [taxonomies[ref].pk if ref in taxonomies else ref for ref in refs]
    entry = make_entry(posts, {"title": "Hello"})
    taxonomy = Taxonomy.objects.get(name=name)

    response = set_terms(admin_api, entry.pk, name, term_ids)
    assert response.status_code == 400
    over_rest = response.json()["error"]["details"]

    with pytest.raises(ValidationError) as one_entry, transaction.atomic():
        taxonomy_services.entry_terms_set_many(actor=Actor.system(), entry=entry, terms={taxonomy: term_ids})
    assert one_entry.value.details == {f"{name}.{key}": problem for key, problem in over_rest.items()}

    with pytest.raises(ValidationError) as many, transaction.atomic():
        taxonomy_services.entry_terms_add_many(
            actor=Actor.system(), assignments=[(entry, {taxonomy: term_ids})]
        )
    assert many.value.details == {f"{entry.pk}.{name}.{key}": problem for key, problem in over_rest.items()}
    assert not EntryTerm.objects.filter(entry=entry).exists()
