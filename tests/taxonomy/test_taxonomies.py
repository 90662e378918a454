"""Taxonomies and terms over HTTP (SPEC §2.7, §4.8): definitions, hierarchical and flat terms, cycles, deletion."""

from __future__ import annotations

import pytest

from apps.accounts.models import Role
from apps.taxonomy.models import EntryTerm, Term
from tests.factories import make_collection, make_entry

TAXONOMIES = "/_cms/api/taxonomies"


@pytest.fixture
def posts():
    return make_collection("posts", fields=[("title", "string")])


@pytest.fixture
def categories(admin_api, posts):
    response = admin_api.post(
        TAXONOMIES,
        {
            "name": "category",
            "label": "Categories",
            "labelSingular": "Category",
            "hierarchical": True,
            "collections": ["posts"],
        },
        format="json",
    )
    assert response.status_code == 201
    return response.json()["data"]


@pytest.fixture
def tags(admin_api, posts):
    response = admin_api.post(
        TAXONOMIES, {"name": "tag", "label": "Tags", "collections": ["posts"]}, format="json"
    )
    return response.json()["data"]


def term(client, taxonomy: str, **body):
    response = client.post(f"{TAXONOMIES}/{taxonomy}/terms", body, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["data"]


def test_create_and_read_a_taxonomy(admin_api, categories):
    assert categories == {
        "id": categories["id"],
        "name": "category",
        "label": "Categories",
        "labelSingular": "Category",
        "hierarchical": True,
        "collections": ["posts"],
        "createdAt": categories["createdAt"],
        "updatedAt": categories["updatedAt"],
    }
    assert admin_api.get(f"{TAXONOMIES}/category").json()["data"] == categories
    # nextCursor as in every list, and as the taxonomy_list tool always answered: null, all come at once.
    assert admin_api.get(TAXONOMIES).json() == {
        "success": True,
        "data": {"items": [categories], "nextCursor": None},
    }


def test_taxonomy_validation(admin_api, posts, categories):
    duplicate = admin_api.post(TAXONOMIES, {"name": "category", "label": "Again"}, format="json")
    assert duplicate.status_code == 409
    assert duplicate.json()["error"]["code"] == "DUPLICATE_SLUG"
    bad = admin_api.post(
        TAXONOMIES, {"name": "Post Tags", "label": "x", "collections": ["pages"]}, format="json"
    )
    assert bad.status_code == 400
    assert bad.json()["error"]["details"] == {
        "name": "Use lowercase letters, digits and underscores, starting with a letter (e.g. category, post_tag)."
    }
    unknown = admin_api.post(
        TAXONOMIES, {"name": "tag", "label": "Tags", "collections": ["pages"]}, format="json"
    )
    assert unknown.status_code == 400
    assert unknown.json()["error"]["details"] == {
        "collections": "Unknown collection(s) pages; collections: posts."
    }


def test_update_keeps_the_name_and_detaches_dropped_collections(admin_api, posts, categories):
    pages = make_collection("pages", fields=[("title", "string")])
    news = term(admin_api, "category", label="News")
    entry = make_entry(posts, {"title": "Hello"})
    admin_api.post(
        f"/_cms/api/content/posts/{entry.pk}/terms/category", {"termIds": [news["id"]]}, format="json"
    )
    response = admin_api.put(
        f"{TAXONOMIES}/category", {"label": "Sections", "collections": ["pages"]}, format="json"
    )
    assert response.status_code == 200
    data = response.json()["data"]
    assert (data["name"], data["label"], data["collections"]) == ("category", "Sections", ["pages"])
    assert not EntryTerm.objects.filter(entry=entry).exists()
    assert pages.pk
    renamed = admin_api.put(f"{TAXONOMIES}/category", {"name": "sections"}, format="json")
    assert renamed.status_code == 400
    assert list(renamed.json()["error"]["details"]) == ["name"]


def test_a_hierarchical_taxonomy_with_nested_terms_cannot_become_flat(admin_api, categories):
    news = term(admin_api, "category", label="News")
    term(admin_api, "category", label="Local", parentId=news["id"])
    response = admin_api.put(f"{TAXONOMIES}/category", {"hierarchical": False}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "hierarchical": "1 term(s) have a parent; clear their parentId before making 'category' flat."
    }


def test_delete_a_taxonomy_with_its_terms(admin_api, categories):
    term(admin_api, "category", label="News")
    response = admin_api.delete(f"{TAXONOMIES}/category")
    assert response.json() == {"success": True, "data": {"success": True}}
    assert Term.objects.count() == 0
    assert admin_api.get(f"{TAXONOMIES}/category").status_code == 404


def test_term_body_and_generated_slugs(admin_api, categories):
    news = term(admin_api, "category", label="News & Views", description="What happened")
    assert news == {
        "id": news["id"],
        "taxonomy": "category",
        "slug": "news-views",
        "label": "News & Views",
        "parentId": None,
        "description": "What happened",
        "createdAt": news["createdAt"],
        "updatedAt": news["updatedAt"],
    }
    assert term(admin_api, "category", label="News & Views")["slug"] == "news-views-2"
    assert admin_api.get(f"{TAXONOMIES}/category/terms/news-views").json()["data"] == {**news, "count": 0}
    taken = admin_api.post(
        f"{TAXONOMIES}/category/terms", {"label": "X", "slug": "news-views"}, format="json"
    )
    assert taken.status_code == 409
    assert taken.json()["error"]["details"] == {"slug": "Taken."}


def test_terms_list_by_slug_in_pages_and_by_level(admin_api, categories):
    world = term(admin_api, "category", label="World")
    arts = term(admin_api, "category", label="Arts")
    music = term(admin_api, "category", label="Music", parentId=arts["id"])
    listing = admin_api.get(f"{TAXONOMIES}/category/terms").json()["data"]
    assert [item["slug"] for item in listing["items"]] == ["arts", "music", "world"]
    first = admin_api.get(f"{TAXONOMIES}/category/terms", {"limit": 2}).json()["data"]
    rest = admin_api.get(f"{TAXONOMIES}/category/terms", {"limit": 2, "cursor": first["nextCursor"]}).json()[
        "data"
    ]
    assert [item["id"] for item in first["items"] + rest["items"]] == [arts["id"], music["id"], world["id"]]
    roots = admin_api.get(f"{TAXONOMIES}/category/terms", {"parentId": ""}).json()["data"]["items"]
    assert [item["slug"] for item in roots] == ["arts", "world"]
    children = admin_api.get(f"{TAXONOMIES}/category/terms", {"parentId": arts["id"]}).json()["data"]["items"]
    assert [item["slug"] for item in children] == ["music"]


def test_flat_taxonomies_refuse_parents(admin_api, tags):
    first = term(admin_api, "tag", label="Python")
    response = admin_api.post(
        f"{TAXONOMIES}/tag/terms", {"label": "Django", "parentId": first["id"]}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "parentId": "'tag' is not hierarchical: its terms have no parent."
    }


def test_parents_must_be_in_the_same_taxonomy(admin_api, categories, tags):
    python = term(admin_api, "tag", label="Python")
    response = admin_api.post(
        f"{TAXONOMIES}/category/terms", {"label": "Code", "parentId": python["id"]}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {"parentId": f"No term {python['id']} in 'category'."}


def test_cycles_are_refused(admin_api, categories):
    a = term(admin_api, "category", label="A")
    b = term(admin_api, "category", label="B", parentId=a["id"])
    c = term(admin_api, "category", label="C", parentId=b["id"])
    expected = {"parentId": "A term cannot be its own parent or the child of one of its descendants."}
    for parent in (a["id"], c["id"]):
        response = admin_api.put(f"{TAXONOMIES}/category/terms/a", {"parentId": parent}, format="json")
        assert response.status_code == 400
        assert response.json()["error"]["details"] == expected
    assert Term.objects.get(pk=a["id"]).parent_id is None
    moved = admin_api.put(f"{TAXONOMIES}/category/terms/c", {"parentId": None, "label": "C!"}, format="json")
    assert (moved.json()["data"]["parentId"], moved.json()["data"]["label"]) == (None, "C!")


def test_update_a_term(admin_api, categories):
    term(admin_api, "category", label="News")
    response = admin_api.patch(
        f"{TAXONOMIES}/category/terms/news", {"slug": "Latest News", "description": "New"}, format="json"
    )
    assert response.status_code == 200
    assert (response.json()["data"]["slug"], response.json()["data"]["description"]) == ("latest-news", "New")
    assert admin_api.get(f"{TAXONOMIES}/category/terms/news").status_code == 404


def test_deleting_a_parent_moves_its_children_up(admin_api, posts, categories):
    world = term(admin_api, "category", label="World")
    europe = term(admin_api, "category", label="Europe", parentId=world["id"])
    france = term(admin_api, "category", label="France", parentId=europe["id"])
    entry = make_entry(posts, {"title": "Paris"})
    admin_api.post(
        f"/_cms/api/content/posts/{entry.pk}/terms/category",
        {"termIds": [europe["id"], france["id"]]},
        format="json",
    )
    response = admin_api.delete(f"{TAXONOMIES}/category/terms/europe")
    assert response.json() == {"success": True, "data": {"success": True}}
    assert Term.objects.get(pk=france["id"]).parent_id == world["id"]
    remaining = admin_api.get(f"/_cms/api/content/posts/{entry.pk}/terms/category").json()["data"]["items"]
    assert [item["id"] for item in remaining] == [france["id"]]


@pytest.mark.parametrize(
    ("role", "scopes", "status"),
    [
        (Role.SUBSCRIBER, ["content:read"], 403),
        (Role.ADMIN, ["content:read"], 403),
        (Role.CONTRIBUTOR, ["content:write"], 403),
        (Role.AUTHOR, ["content:write"], 201),
    ],
)
def test_who_may_create_terms(client_for, categories, role, scopes, status):
    response = client_for(role, scopes).post(f"{TAXONOMIES}/category/terms", {"label": "News"}, format="json")
    assert response.status_code == status


def test_a_content_read_token_cannot_create_a_term_but_can_list_them(client_for, admin_api, categories):
    reader = client_for(Role.ADMIN, ["content:read"])
    refused = reader.post(f"{TAXONOMIES}/category/terms", {"label": "News"}, format="json")
    assert refused.status_code == 403
    assert refused.json()["error"] == {
        "code": "FORBIDDEN",
        "message": "Insufficient scope: requires content:write.",
        "details": {"requiredScope": "content:write"},
    }
    term(admin_api, "category", label="News")
    assert [item["slug"] for item in reader.get(f"{TAXONOMIES}/category/terms").json()["data"]["items"]] == [
        "news"
    ]
    assert reader.get(TAXONOMIES).status_code == 200


def test_changing_and_deleting_terms_needs_an_editor(client_for, admin_api, categories):
    term(admin_api, "category", label="News")
    author = client_for(Role.AUTHOR, ["content:write"])
    assert author.put(f"{TAXONOMIES}/category/terms/news", {"label": "N"}, format="json").status_code == 403
    assert author.delete(f"{TAXONOMIES}/category/terms/news").status_code == 403
    editor = client_for(Role.EDITOR, ["content:write"])
    assert editor.put(f"{TAXONOMIES}/category/terms/news", {"label": "N"}, format="json").status_code == 200


def test_taxonomy_definitions_need_schema_write_and_admin(client_for, posts):
    body = {"name": "tag", "label": "Tags"}
    assert client_for(Role.EDITOR, ["content:write"]).post(TAXONOMIES, body, format="json").status_code == 403
    assert client_for(Role.ADMIN, ["content:write"]).post(TAXONOMIES, body, format="json").status_code == 403
    assert client_for(Role.ADMIN, ["schema:write"]).post(TAXONOMIES, body, format="json").status_code == 201


def test_admin_lists_terms_as_a_tree(admin_api, categories):
    from django.test import Client

    from tests.factories import make_user

    world = term(admin_api, "category", label="World")
    term(admin_api, "category", label="Arts")
    term(admin_api, "category", label="Zurich", parentId=world["id"])
    client = Client()
    client.force_login(make_user(Role.ADMIN))
    page = client.get("/django-admin/taxonomy/term/").content.decode()
    assert page.index(">Arts<") < page.index(">World<") < page.index(">— Zurich<")


def test_terms_carry_the_count_of_entries_using_them(admin_api, posts, tags):
    news, sport = term(admin_api, "tag", label="News"), term(admin_api, "tag", label="Sport")
    first, second = make_entry(posts, {"title": "A"}), make_entry(posts, {"title": "B"})
    for entry, ids in ((first, [news["id"], sport["id"]]), (second, [news["id"]])):
        response = admin_api.post(
            f"/_cms/api/content/posts/{entry.pk}/terms/tag", {"termIds": ids}, format="json"
        )
        assert response.status_code == 200
    admin_api.delete(
        f"/_cms/api/content/posts/{second.pk}"
    )  # trashed entries still carry (and would lose) it
    listed = admin_api.get(f"{TAXONOMIES}/tag/terms").json()["data"]["items"]
    assert [(item["slug"], item["count"]) for item in listed] == [("news", 2), ("sport", 1)]
    assert admin_api.get(f"{TAXONOMIES}/tag/terms/sport").json()["data"]["count"] == 1
    lonely = term(admin_api, "tag", label="Lonely")
    assert "count" not in lonely  # writes answer with the term; its count is a read's
    assert admin_api.get(f"{TAXONOMIES}/tag/terms/lonely").json()["data"]["count"] == 0


def test_terms_list_as_a_tree_on_request(admin_api):
    admin_api.post(
        "/_cms/api/taxonomies", {"name": "place", "label": "Places", "hierarchical": True}, format="json"
    )
    terms = "/_cms/api/taxonomies/place/terms"
    europe = admin_api.post(terms, {"label": "Europe"}, format="json").json()["data"]
    france = admin_api.post(terms, {"label": "France", "parentId": europe["id"]}, format="json").json()[
        "data"
    ]
    asia = admin_api.post(terms, {"label": "Asia"}, format="json").json()["data"]
    response = admin_api.get(f"{terms}?tree=true")
    assert response.status_code == 200
    assert response.json()["data"] == {
        "items": [
            {**asia, "count": 0, "children": []},
            {**europe, "count": 0, "children": [{**france, "count": 0, "children": []}]},
        ],
        "nextCursor": None,
    }
    flat = admin_api.get(terms).json()["data"]["items"]
    assert [(item["slug"], "children" in item) for item in flat] == [
        ("asia", False),
        ("europe", False),
        ("france", False),
    ]
    assert admin_api.get(f"{terms}?tree=maybe").status_code == 400


def test_terms_nest_at_most_a_hundred_levels_and_the_deepest_tree_is_answered(admin_api):
    from apps.accounts.permissions import Actor
    from apps.taxonomy import services

    taxonomy = services.taxonomy_create(actor=Actor.system(), name="place", label="Places", hierarchical=True)
    chain = [services.term_create(actor=Actor.system(), taxonomy=taxonomy, label="Level 1")]
    for level in range(2, 101):
        chain.append(
            services.term_create(
                actor=Actor.system(), taxonomy=taxonomy, label=f"Level {level}", parent_id=chain[-1].pk
            )
        )
    terms = "/_cms/api/taxonomies/place/terms"
    too_deep = admin_api.post(terms, {"label": "Level 101", "parentId": chain[-1].pk}, format="json")
    assert too_deep.status_code == 400
    assert too_deep.json()["error"]["details"] == {"parentId": "Terms nest at most 100 levels deep."}
    # Moving a branch counts its own levels too: a two-level branch cannot go below level 99.
    branch = admin_api.post(terms, {"label": "Branch"}, format="json").json()["data"]
    admin_api.post(terms, {"label": "Leaf", "parentId": branch["id"]}, format="json")
    moved = admin_api.patch(f"{terms}/branch", {"parentId": chain[98].pk}, format="json")
    assert moved.json()["error"]["details"] == {"parentId": "Terms nest at most 100 levels deep."}
    assert admin_api.patch(f"{terms}/branch", {"parentId": chain[97].pk}, format="json").status_code == 200
    tree = admin_api.get(f"{terms}?tree=true&limit=1").json()["data"]["items"]
    depth = 0
    while tree:
        depth += 1
        tree = tree[0]["children"]
    assert depth == 100
