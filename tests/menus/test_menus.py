"""Menus over HTTP (SPEC §4.8): menus, items of the three types with their references resolved, nesting and order,
atomic reorder refusing cycles, and who may change them."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.accounts.models import Role
from apps.accounts.permissions import Actor
from apps.menus.models import MenuItem
from apps.taxonomy import services as taxonomy_services
from tests.factories import make_collection, make_entry

MENUS = "/_cms/api/menus"


@pytest.fixture
def primary(admin_api):
    response = admin_api.post(MENUS, {"name": "primary", "label": "Main navigation"}, format="json")
    assert response.status_code == 201
    return response.json()["data"]


@pytest.fixture
def posts():
    return make_collection("posts", fields=[("title", "string")])


def add(client, body, menu="primary"):
    response = client.post(f"{MENUS}/{menu}/items", body, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["data"]


def custom(label, url="/x", **extra):
    return {"type": "custom", "label": label, "url": url, **extra}


def test_create_list_get_update_delete_a_menu(admin_api, primary):
    assert primary == {
        "id": primary["id"],
        "name": "primary",
        "label": "Main navigation",
        "createdAt": primary["createdAt"],
        "updatedAt": primary["updatedAt"],
    }
    assert admin_api.get(MENUS).json() == {"success": True, "data": {"items": [primary], "nextCursor": None}}
    assert admin_api.get(f"{MENUS}/primary").json()["data"] == {**primary, "items": []}
    renamed = admin_api.put(f"{MENUS}/primary", {"label": "Top"}, format="json")
    assert renamed.json()["data"]["label"] == "Top"
    add(admin_api, custom("Home", "/"))
    assert admin_api.delete(f"{MENUS}/primary").json() == {"success": True, "data": {"success": True}}
    assert MenuItem.objects.count() == 0
    assert admin_api.get(f"{MENUS}/primary").status_code == 404


def test_menu_validation(admin_api, primary):
    assert admin_api.post(MENUS, {"name": "primary", "label": "Again"}, format="json").status_code == 409
    bad = admin_api.post(MENUS, {"name": "Main Menu", "label": "x"}, format="json")
    assert bad.json()["error"]["details"] == {
        "name": "Use lowercase letters, digits, '-' and '_', starting with a letter (e.g. primary, footer-links)."
    }
    assert admin_api.put(f"{MENUS}/primary", {"name": "other"}, format="json").status_code == 400


def test_items_of_each_type_are_resolved(admin_api, primary, posts):
    entry = make_entry(posts, {"title": "About us"}, slug="about", status="published")
    category = taxonomy_services.taxonomy_create(actor=Actor.system(), name="category", label="C")
    news = taxonomy_services.term_create(actor=Actor.system(), taxonomy=category, label="News")
    home = add(admin_api, custom("Home", "/"))
    assert home == {
        "id": home["id"],
        "type": "custom",
        "label": "Home",
        "url": "/",
        "referenceCollection": None,
        "referenceId": None,
        "target": None,
        "missing": False,
        "parentId": None,
        "sortOrder": 0,
        "children": [],
    }
    about = add(admin_api, {"type": "content", "referenceCollection": "posts", "referenceId": entry.pk})
    assert about == {
        "id": about["id"],
        "type": "content",
        "label": "About us",
        "url": None,
        "referenceCollection": "posts",
        "referenceId": entry.pk,
        "target": {
            "collection": "posts",
            "id": entry.pk,
            "slug": "about",
            "title": "About us",
            "status": "published",
            "trashed": False,
            "url": None,
        },
        "missing": False,
        "parentId": None,
        "sortOrder": 1,
        "children": [],
    }
    topic = add(
        admin_api,
        {"type": "taxonomy", "label": "Latest", "referenceCollection": "category", "referenceId": news.pk},
    )
    assert (topic["label"], topic["target"], topic["missing"]) == (
        "Latest",
        {
            "taxonomy": "category",
            "collection": "category",
            "id": news.pk,
            "slug": "news",
            "label": "News",
            "url": "/category/news",
        },
        False,
    )


def test_content_items_follow_their_entry_and_say_when_it_is_trashed_or_gone(admin_api, primary, posts):
    entry = make_entry(posts, {"title": "About"}, slug="about", status="published")
    add(admin_api, {"type": "content", "referenceCollection": "posts", "referenceId": entry.pk})
    admin_api.patch(
        f"/_cms/api/content/posts/{entry.pk}", {"slug": "about-us", "status": "published"}, format="json"
    )
    item = admin_api.get(f"{MENUS}/primary").json()["data"]["items"][0]
    assert (item["target"]["slug"], item["missing"]) == ("about-us", False)

    admin_api.delete(f"/_cms/api/content/posts/{entry.pk}")
    trashed = admin_api.get(f"{MENUS}/primary").json()["data"]["items"][0]
    assert (trashed["label"], trashed["target"], trashed["missing"]) == (
        "About",
        {
            "collection": "posts",
            "id": entry.pk,
            "slug": "about-us",
            "title": "About",
            "status": "published",
            "trashed": True,
            "url": None,
        },
        True,
    )

    admin_api.delete(f"/_cms/api/content/posts/{entry.pk}/permanent")
    gone = admin_api.get(f"{MENUS}/primary").json()["data"]["items"][0]
    assert (gone["label"], gone["target"], gone["missing"], gone["referenceId"]) == ("", None, True, entry.pk)


def test_a_draft_target_is_resolved_for_editors_and_hidden_from_the_public(
    admin_api, client_for, primary, posts
):
    # The audit's "url: null, an id only": a new entry is a draft, and its item showed nothing but its id.
    entry = make_entry(posts, {"title": "Coming soon"}, slug="soon")
    add(admin_api, {"type": "content", "referenceCollection": "posts", "referenceId": entry.pk})

    for_editor = admin_api.get(f"{MENUS}/primary").json()["data"]["items"][0]
    assert (for_editor["label"], for_editor["target"], for_editor["missing"]) == (
        "Coming soon",
        {
            "collection": "posts",
            "id": entry.pk,
            "slug": "soon",
            "title": "Coming soon",
            "status": "draft",
            "trashed": False,
            "url": None,
        },
        True,
    )
    public = client_for(Role.SUBSCRIBER, ["content:read"]).get(f"{MENUS}/primary").json()["data"]["items"][0]
    assert (public["label"], public["target"], public["missing"]) == ("", None, True)


def test_an_unpublished_entry_is_flagged_missing_and_the_public_sees_its_published_title(
    admin_api, client_for, primary, posts
):
    entry = make_entry(posts, {"title": "Old title"}, status="published")
    add(admin_api, {"type": "content", "referenceCollection": "posts", "referenceId": entry.pk})
    admin_api.patch(f"/_cms/api/content/posts/{entry.pk}", {"data": {"title": "New title"}}, format="json")
    public = client_for(Role.SUBSCRIBER, ["content:read"])
    assert public.get(f"{MENUS}/primary").json()["data"]["items"][0]["target"]["title"] == "Old title"
    admin_api.post(f"/_cms/api/content/posts/{entry.pk}/unpublish")
    item = admin_api.get(f"{MENUS}/primary").json()["data"]["items"][0]
    assert (item["missing"], item["target"]["status"], item["target"]["title"]) == (
        True,
        "draft",
        "New title",
    )
    assert public.get(f"{MENUS}/primary").json()["data"]["items"][0]["target"] is None


@pytest.mark.parametrize(
    ("fields", "data", "title"),
    [
        ([("name", "string"), ("title", "string")], {"name": "Ada", "title": "Dr"}, "Dr"),
        ([("bio", "text"), ("name", "string")], {"bio": "Mathematician", "name": "Ada"}, "Ada"),
        (
            [("age", "integer"), ("headline", "string")],
            {"age": 36, "headline": "Ada Lovelace"},
            "Ada Lovelace",
        ),
        ([("age", "integer")], {"age": 36}, "ada"),
        ([("title", "string")], {}, "ada"),
    ],
    ids=["title", "name", "first-string", "no-text-field", "empty"],
)
def test_an_entry_is_titled_by_its_collections_title_like_field_else_its_slug(
    admin_api, primary, fields, data, title
):
    people = make_collection("people", fields=fields)
    entry = make_entry(people, data, slug="ada", status="published")
    item = add(admin_api, {"type": "content", "referenceCollection": "people", "referenceId": entry.pk})
    assert (item["label"], item["target"]["title"]) == (title, title)


def test_a_deleted_term_is_flagged_missing(admin_api, primary):
    category = taxonomy_services.taxonomy_create(actor=Actor.system(), name="category", label="C")
    news = taxonomy_services.term_create(actor=Actor.system(), taxonomy=category, label="News")
    add(admin_api, {"type": "taxonomy", "referenceCollection": "category", "referenceId": news.pk})
    taxonomy_services.term_delete(actor=Actor.system(), term=news)
    item = admin_api.get(f"{MENUS}/primary").json()["data"]["items"][0]
    assert (item["label"], item["target"], item["missing"]) == ("", None, True)


@pytest.mark.parametrize(
    ("body", "details"),
    [
        ({"type": "custom", "label": "X"}, {"url": "A custom item needs a url."}),
        (
            {"type": "custom", "label": "X", "url": "javascript:alert(1)"},
            {"url": "Give a relative path (/about) or an http(s), mailto: or tel: address."},
        ),
        ({"type": "custom", "url": "/x"}, {"label": "A custom item needs a label."}),
        (
            {"type": "content", "referenceCollection": "posts"},
            {"referenceId": "Give referenceCollection (a collection slug) and referenceId (an entry id)."},
        ),
        (
            {"type": "content", "referenceCollection": "pages", "referenceId": "01ARZ3NDEKTSV4RRFFQ69G5FAV"},
            {"referenceCollection": "No collection 'pages'."},
        ),
        (
            {"type": "content", "referenceCollection": "posts", "referenceId": "01ARZ3NDEKTSV4RRFFQ69G5FAV"},
            {"referenceId": "No entry 01ARZ3NDEKTSV4RRFFQ69G5FAV in 'posts'."},
        ),
        (
            {"type": "taxonomy", "referenceCollection": "tag", "referenceId": "01ARZ3NDEKTSV4RRFFQ69G5FAV"},
            {"referenceCollection": "No taxonomy 'tag'."},
        ),
        (
            custom("X", parentId="01ARZ3NDEKTSV4RRFFQ69G5FAV"),
            {"parentId": "No item 01ARZ3NDEKTSV4RRFFQ69G5FAV in the menu 'primary'."},
        ),
    ],
)
def test_item_validation(admin_api, primary, posts, body, details):
    response = admin_api.post(f"{MENUS}/primary/items", body, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["details"] == details


def test_get_answers_items_ordered_and_nested(admin_api, primary):
    about = add(admin_api, custom("About", "/about"))
    home = add(admin_api, custom("Home", "/", sortOrder=-1))
    team = add(admin_api, custom("Team", "/team", parentId=about["id"]))
    jobs = add(admin_api, custom("Jobs", "/jobs", parentId=about["id"], sortOrder=-5))
    deep = add(admin_api, custom("Open roles", "/jobs/open", parentId=jobs["id"]))
    items = admin_api.get(f"{MENUS}/primary").json()["data"]["items"]

    def shape(nodes):
        return [(node["label"], shape(node["children"])) for node in nodes]

    assert shape(items) == [("Home", []), ("About", [("Jobs", [("Open roles", [])]), ("Team", [])])]
    assert [home["sortOrder"], team["sortOrder"], deep["parentId"]] == [-1, 0, jobs["id"]]


def test_update_and_delete_items(admin_api, primary, posts):
    about = add(admin_api, custom("About", "/about"))
    team = add(admin_api, custom("Team", "/team", parentId=about["id"]))
    entry = make_entry(posts, {"title": "Team page"}, status="published")
    changed = admin_api.put(
        f"{MENUS}/primary/items/{team['id']}",
        {"type": "content", "referenceCollection": "posts", "referenceId": entry.pk, "label": ""},
        format="json",
    )
    assert changed.status_code == 200
    data = changed.json()["data"]
    assert (data["type"], data["url"], data["label"], data["parentId"]) == (
        "content",
        None,
        "Team page",
        about["id"],
    )
    loop = admin_api.patch(f"{MENUS}/primary/items/{about['id']}", {"parentId": team["id"]}, format="json")
    assert loop.status_code == 400
    assert loop.json()["error"]["details"] == {
        "parentId": "An item cannot be its own parent or the child of one of its descendants."
    }
    # Deleting a parent moves its children up.
    assert admin_api.delete(f"{MENUS}/primary/items/{about['id']}").json()["data"] == {"success": True}
    items = admin_api.get(f"{MENUS}/primary").json()["data"]["items"]
    assert [(item["id"], item["parentId"]) for item in items] == [(team["id"], None)]
    assert admin_api.delete(f"{MENUS}/primary/items/{about['id']}").status_code == 404


def test_items_of_another_menu_are_not_reachable(admin_api, primary):
    admin_api.post(MENUS, {"name": "footer", "label": "Footer"}, format="json")
    other = add(admin_api, custom("Legal", "/legal"), menu="footer")
    assert (
        admin_api.put(f"{MENUS}/primary/items/{other['id']}", {"label": "x"}, format="json").status_code
        == 404
    )


# --- reorder ----------------------------------------------------------------------------------------------------------


@pytest.fixture
def tree(admin_api, primary):
    a = add(admin_api, custom("A"))
    b = add(admin_api, custom("B"))
    c = add(admin_api, custom("C", parentId=a["id"]))
    return {"a": a["id"], "b": b["id"], "c": c["id"]}


def snapshot():
    return sorted(MenuItem.objects.values_list("id", "parent_id", "sort_order"))


def test_reorder_moves_items_and_answers_the_tree(admin_api, tree):
    response = admin_api.post(
        f"{MENUS}/primary/reorder",
        {
            "items": [
                {"id": tree["b"], "parentId": None, "sortOrder": 0},
                {"id": tree["a"], "parentId": tree["b"], "sortOrder": 0},
                {"id": tree["c"], "parentId": None, "sortOrder": 1},
            ]
        },
        format="json",
    )
    assert response.status_code == 200
    items = response.json()["data"]["items"]
    assert [(i["label"], [child["label"] for child in i["children"]]) for i in items] == [
        ("B", ["A"]),
        ("C", []),
    ]


def test_reorder_with_a_cycle_is_refused_and_nothing_changes(admin_api, tree):
    before = snapshot()
    response = admin_api.post(
        f"{MENUS}/primary/reorder",
        {
            "items": [
                {"id": tree["b"], "parentId": None, "sortOrder": 5},
                {"id": tree["a"], "parentId": tree["c"], "sortOrder": 0},
            ]
        },
        format="json",
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["message"] == "The new order would make an item its own ancestor; nothing was changed."
    assert list(error["details"]) == ["items"]
    assert snapshot() == before


def test_reorder_refuses_ids_of_other_menus_and_repeats(admin_api, tree):
    admin_api.post(MENUS, {"name": "footer", "label": "Footer"}, format="json")
    other = add(admin_api, custom("Legal"), menu="footer")
    before = snapshot()
    response = admin_api.post(
        f"{MENUS}/primary/reorder",
        {
            "items": [
                {"id": tree["a"], "parentId": None, "sortOrder": 3},
                {"id": other["id"], "parentId": None, "sortOrder": 0},
                {"id": tree["a"], "parentId": None, "sortOrder": 1},
                {"id": tree["b"], "parentId": other["id"], "sortOrder": 1},
            ]
        },
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "items.1.id": f"No item {other['id']} in the menu 'primary'.",
        "items.2.id": "Listed twice.",
        "items.3.parentId": f"No item {other['id']} in the menu 'primary'.",
    }
    assert snapshot() == before


def test_reorder_needs_parent_id_and_sort_order(admin_api, tree):
    response = admin_api.post(f"{MENUS}/primary/reorder", {"items": [{"id": tree["a"]}]}, format="json")
    assert response.status_code == 400
    assert set(response.json()["error"]["details"]) == {"items.0.parentId", "items.0.sortOrder"}


# --- access and cost --------------------------------------------------------------------------------------------------


def test_reading_needs_content_read_and_writing_an_editor(client_for, primary):
    assert client_for(Role.SUBSCRIBER, ["content:read"]).get(f"{MENUS}/primary").status_code == 200
    assert client_for(Role.SUBSCRIBER, ["media:read"]).get(MENUS).status_code == 403
    body = custom("Home", "/")
    assert (
        client_for(Role.AUTHOR, ["content:write"])
        .post(f"{MENUS}/primary/items", body, format="json")
        .status_code
        == 403
    )
    assert (
        client_for(Role.EDITOR, ["content:read"])
        .post(f"{MENUS}/primary/items", body, format="json")
        .status_code
        == 403
    )
    assert (
        client_for(Role.EDITOR, ["content:write"])
        .post(f"{MENUS}/primary/items", body, format="json")
        .status_code
        == 201
    )


def test_reading_a_menu_costs_the_same_queries_whatever_its_size(admin_api, primary, posts):
    def grow(count):
        for number in range(count):
            entry = make_entry(posts, {"title": f"P{number}"}, status="published")
            parent = add(
                admin_api, {"type": "content", "referenceCollection": "posts", "referenceId": entry.pk}
            )
            add(admin_api, custom(f"Sub {number}", parentId=parent["id"]))

    def cost():
        with CaptureQueriesContext(connection) as captured:
            assert admin_api.get(f"{MENUS}/primary").status_code == 200
        return len(captured)

    grow(1)
    small = cost()
    grow(5)
    assert cost() == small


def test_resolving_entries_of_several_collections_and_terms_costs_constant_queries(
    admin_api, primary, posts, django_assert_num_queries
):
    pages = make_collection("pages", fields=[("name", "string")])
    category = taxonomy_services.taxonomy_create(actor=Actor.system(), name="category", label="C")
    for number in range(4):
        post = make_entry(posts, {"title": f"Post {number}"}, status="published")
        page = make_entry(pages, {"name": f"Page {number}"}, status="published" if number % 2 else "draft")
        term = taxonomy_services.term_create(actor=Actor.system(), taxonomy=category, label=f"Topic {number}")
        add(admin_api, {"type": "content", "referenceCollection": "posts", "referenceId": post.pk})
        add(admin_api, {"type": "content", "referenceCollection": "pages", "referenceId": page.pk})
        add(admin_api, {"type": "taxonomy", "referenceCollection": "category", "referenceId": term.pk})
    admin_api.get(f"{MENUS}/primary")  # the schema cache is warm, as on a running server

    # The token (its user and the schema version read with it), the menu, its items, every entry at once (titled
    # from two collections' different fields) and every term at once: the same for 12 items as for 1200.
    with django_assert_num_queries(5):
        items = admin_api.get(f"{MENUS}/primary").json()["data"]["items"]

    assert len(items) == 12
    assert [(item["label"], item["target"]["slug"], item["missing"]) for item in items[:6]] == [
        ("Post 0", "post-0", False),
        ("Page 0", "page-0", True),
        ("Topic 0", "topic-0", False),
        ("Post 1", "post-1", False),
        ("Page 1", "page-1", False),
        ("Topic 1", "topic-1", False),
    ]


def test_admin_shows_menu_items_in_order(admin_api, tree):
    from django.test import Client

    from tests.factories import make_user

    client = Client()
    client.force_login(make_user(Role.ADMIN))
    page = client.get("/django-admin/menus/menuitem/").content.decode()
    assert page.index(">A<") < page.index(">— C<") < page.index(">B<")
