"""The studio's taxonomy pages: the list, a taxonomy's form, its terms as a tree with counts, a term's form (rename,
slug, parent with cycles refused, description) and the delete confirmation; each write checked through REST."""

from __future__ import annotations

import pytest
from django.test import Client

from apps.accounts.models import Role
from tests.factories import make_collection, make_entry, make_user

pytestmark = pytest.mark.django_db
PAGES = "/_cms/admin/taxonomies/"
API = "/_cms/api/taxonomies"


def signed_in(role: int = Role.ADMIN) -> Client:
    client = Client()
    client.force_login(make_user(role, email=f"tax{role}@example.com"))
    return client


@pytest.fixture
def collections():
    return make_collection("posts", [("title", "string")], label="Posts"), make_collection(
        "pages", [("title", "string")], label="Pages"
    )


@pytest.fixture
def admin():
    return signed_in(Role.ADMIN)


@pytest.fixture
def categories(admin, collections):
    response = admin.post(
        f"{PAGES}new",
        {
            "name": "category",
            "label": "Categories",
            "label_singular": "Category",
            "hierarchical": "on",
            "collections": ["posts"],
        },
    )
    assert response.status_code == 302
    assert response["Location"] == f"{PAGES}category/"
    return "category"


def add_term(client, label: str, **fields):
    response = client.post(f"{PAGES}category/", {"label": label, **fields})
    assert response.status_code == 302, response.content.decode()
    return response


def terms(client) -> dict[str, dict]:
    return {item["slug"]: item for item in client.get(f"{API}/category/terms").json()["data"]["items"]}


def test_create_list_and_edit_a_taxonomy(admin, categories, admin_api):
    assert admin_api.get(f"{API}/category").json()["data"] | {"id": "", "createdAt": "", "updatedAt": ""} == {
        "id": "",
        "name": "category",
        "label": "Categories",
        "labelSingular": "Category",
        "hierarchical": True,
        "collections": ["posts"],
        "createdAt": "",
        "updatedAt": "",
    }
    listed = admin.get(PAGES).content.decode()
    assert '<a href="/_cms/admin/taxonomies/category/">Categories</a>' in listed
    assert '<td data-label="Kind">Hierarchical</td>' in listed
    assert '<td data-label="Collections">Posts</td>' in listed
    # The shell's nav items.
    assert '<a href="/_cms/admin/taxonomies/" aria-current="page">Taxonomies</a>' in listed
    assert '<a href="/_cms/admin/menus/">Menus</a>' in listed

    form = admin.get(f"{PAGES}category/edit").content.decode()
    assert 'value="Categories"' in form and 'name="collections" value="posts" checked' in form
    response = admin.post(f"{PAGES}category/edit", {"label": "Topics", "collections": ["posts", "pages"]})
    assert response.status_code == 302
    data = admin_api.get(f"{API}/category").json()["data"]
    assert (data["label"], data["labelSingular"], data["hierarchical"], data["collections"]) == (
        "Topics",
        "",
        False,
        ["pages", "posts"],
    )


def test_taxonomy_form_shows_the_services_messages(admin, categories):
    blank = admin.post(f"{PAGES}new", {"name": "tags", "label": ""})
    assert blank.status_code == 400
    assert (
        '<p class="error" id="taxonomy-label-error">This field may not be blank.</p>'
        in blank.content.decode()
    )
    response = admin.post(f"{PAGES}new", {"name": "Bad Name", "label": "Bad"})
    assert response.status_code == 400
    html = response.content.decode()
    assert (
        '<p class="error" id="taxonomy-name-error">Use lowercase letters, digits and underscores, starting with a '
        "letter (e.g. category, post_tag).</p>" in html
    )
    assert 'aria-describedby="taxonomy-name-hint taxonomy-name-error" aria-invalid="true"' in html
    taken = admin.post(f"{PAGES}new", {"name": "category", "label": "Again"})
    assert taken.status_code == 409
    assert '<p class="error" id="taxonomy-name-error">Taken.</p>' in taken.content.decode()


def test_terms_tree_with_counts_create_rename_reslug_and_reparent(admin, categories, admin_api, collections):
    add_term(admin, "News")
    add_term(admin, "World", slug="world-news", description="Abroad")
    news_id = terms(admin_api)["news"]["id"]
    add_term(admin, "Europe", parent=terms(admin_api)["world-news"]["id"])
    admin.post(
        f"{PAGES}category/terms/world-news/",
        {"label": "World", "slug": "world-news", "parent": news_id, "description": "Abroad"},
    )
    found = terms(admin_api)
    assert found["world-news"]["parentId"] == news_id
    assert found["europe"]["parentId"] == found["world-news"]["id"]
    assert found["world-news"]["description"] == "Abroad"

    for title in ("A", "B"):
        entry = make_entry(collections[0], {"title": title})
        admin_api.post(
            f"/_cms/api/content/posts/{entry.pk}/terms/category",
            {"termIds": [found["europe"]["id"]]},
            format="json",
        )
    html = admin.get(f"{PAGES}category/").content.decode()
    # Nested lists: Europe inside World inside News, each with its count.
    news_at, world_at, europe_at = (
        html.index(f'data-term="{slug}"') for slug in ("news", "world-news", "europe")
    )
    assert news_at < world_at < europe_at
    assert html[news_at:world_at].count("<ul>") == 1 and html[world_at:europe_at].count("<ul>") == 1
    assert "<code>europe</code> · 2 entries" in html and "<code>news</code> · 0 entries" in html

    # Rename and a new slug in one save.
    response = admin.post(
        f"{PAGES}category/terms/europe/",
        {"label": "Europa", "slug": "europa", "parent": found["world-news"]["id"], "description": ""},
    )
    assert response.status_code == 302
    assert admin_api.get(f"{API}/category/terms/europa").json()["data"]["label"] == "Europa"
    assert admin_api.get(f"{API}/category/terms/europe").status_code == 404


def test_a_cycle_is_refused_with_the_services_message_next_to_the_parent(admin, categories, admin_api):
    add_term(admin, "News")
    add_term(admin, "World", parent=terms(admin_api)["news"]["id"])
    world = terms(admin_api)["world"]["id"]
    response = admin.post(f"{PAGES}category/terms/news/", {"label": "News", "slug": "news", "parent": world})
    assert response.status_code == 400
    html = response.content.decode()
    assert (
        '<p class="error" id="term-parent-error">A term cannot be its own parent or the child of one of its '
        "descendants.</p>" in html
    )
    assert 'aria-describedby="term-parent-error" aria-invalid="true"' in html
    assert terms(admin_api)["news"]["parentId"] is None
    # The edit page lists every other term as a possible parent, the term itself not.
    form = admin.get(f"{PAGES}category/terms/news/").content.decode()
    assert f'<option value="{world}">— World</option>' in form
    assert f'<option value="{terms(admin_api)["news"]["id"]}"' not in form


def test_delete_confirms_how_many_entries_lose_the_term(admin, categories, admin_api, collections):
    add_term(admin, "News")
    add_term(admin, "Local", parent=terms(admin_api)["news"]["id"])
    news = terms(admin_api)["news"]["id"]
    for title in ("A", "B", "C"):
        entry = make_entry(collections[0], {"title": title})
        admin_api.post(
            f"/_cms/api/content/posts/{entry.pk}/terms/category", {"termIds": [news]}, format="json"
        )
    confirm = admin.get(f"{PAGES}category/terms/news/delete")
    assert confirm.status_code == 200
    html = confirm.content.decode()
    assert '<p id="term-delete-effect">3 entries lose the term.</p>' in html
    assert "<p>Its terms Local move up to the top level.</p>" in html
    assert terms(admin_api)["news"]["count"] == 3
    response = admin.post(f"{PAGES}category/terms/news/delete")
    assert response.status_code == 302
    assert set(terms(admin_api)) == {"local"}
    assert terms(admin_api)["local"]["parentId"] is None


def test_editors_manage_terms_but_not_taxonomies(categories, admin_api):
    editor = signed_in(Role.EDITOR)
    listed = editor.get(PAGES).content.decode()
    assert "New taxonomy" not in listed and "Edit the taxonomy" not in listed
    refused = editor.get(f"{PAGES}new")
    assert refused.status_code == 403
    assert "<h1>Not allowed</h1>" in refused.content.decode()
    assert editor.post(f"{PAGES}category/edit", {"label": "Mine"}).status_code == 403
    assert admin_api.get(f"{API}/category").json()["data"]["label"] == "Categories"
    add_term(editor, "Sport")
    assert "sport" in terms(admin_api)

    author = signed_in(Role.AUTHOR)
    add_term(author, "Music")  # terms.create: authors add terms, as over REST
    assert author.get(f"{PAGES}category/terms/music/").status_code == 403
    assert author.post(f"{PAGES}category/terms/music/delete").status_code == 403
    assert "music" in terms(admin_api)
