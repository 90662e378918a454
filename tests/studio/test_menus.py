"""The studio's menu pages: the list (create), the editor (rename, delete, items pointing at an entry, a term or a URL,
the four moves without JavaScript, the whole order in one JSON request, trashed targets marked) and who may write;
each write checked through REST."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from apps.accounts.models import Role
from apps.menus import services as menu_services
from tests.factories import make_entry, make_user

pytestmark = pytest.mark.django_db
PAGES = "/_cms/admin/menus/"
API = "/_cms/api/menus"


def signed_in(role: int = Role.EDITOR) -> Client:
    client = Client()
    client.force_login(make_user(role, email=f"menus{role}@example.com"))
    return client


@pytest.fixture
def editor():
    return signed_in(Role.EDITOR)


@pytest.fixture
def menu(editor):
    response = editor.post(PAGES, {"name": "primary", "label": "Main menu"})
    assert response.status_code == 302
    assert response["Location"] == f"{PAGES}primary/"
    return "primary"


def items(api) -> list[dict]:
    return api.get(f"{API}/primary").json()["data"]["items"]


def outline(nodes) -> list:
    """Labels nested as the menu nests them."""
    return [
        [node["label"], outline(node["children"])] if node["children"] else node["label"] for node in nodes
    ]


def add_link(client, label: str, url: str = "/x"):
    response = client.post(f"{PAGES}primary/items", {"type": "custom", "label": label, "url": url})
    assert response.status_code == 302, response.content.decode()


@pytest.fixture
def four(editor, menu, admin_api):
    for label in ("Home", "About", "Blog", "Contact"):
        add_link(editor, label, f"/{label.lower()}")
    return {item["label"]: item["id"] for item in items(admin_api)}


def test_create_rename_and_delete_a_menu(editor, menu, admin_api):
    assert admin_api.get(f"{API}/primary").json()["data"]["label"] == "Main menu"
    listed = editor.get(PAGES).content.decode()
    assert '<a href="/_cms/admin/menus/primary/">Main menu</a>' in listed
    assert '<a href="/_cms/admin/menus/" aria-current="page">Menus</a>' in listed

    taken = editor.post(PAGES, {"name": "primary", "label": "Again"})
    assert taken.status_code == 409
    assert '<p class="error" id="menu-name-error">Taken.</p>' in taken.content.decode()

    assert editor.post(f"{PAGES}primary/rename", {"label": "Header"}).status_code == 302
    assert admin_api.get(f"{API}/primary").json()["data"]["label"] == "Header"
    blank = editor.post(f"{PAGES}primary/rename", {"label": ""})
    assert blank.status_code == 400
    assert '<p class="error" id="menu-label-error">This field may not be blank.</p>' in blank.content.decode()

    add_link(editor, "Home")
    add_link(editor, "About")
    confirm = editor.get(f"{PAGES}primary/delete").content.decode()
    assert "Its 2 items go with it." in confirm
    assert editor.post(f"{PAGES}primary/delete").status_code == 302
    assert admin_api.get(f"{API}/primary").status_code == 404


def test_items_of_each_kind(editor, menu, admin_api, posts_collection):
    entry = make_entry(posts_collection, {"title": "Hello world"}, status="published")
    admin_api.post("/_cms/api/taxonomies", {"name": "tag", "label": "Tags"}, format="json")
    term = admin_api.post("/_cms/api/taxonomies/tag/terms", {"label": "Sport"}, format="json").json()["data"]

    page = editor.get(f"{PAGES}primary/").content.decode()
    assert f'<option value="tag:{term["id"]}">Sport</option>' in page
    assert '<option value="posts">Posts</option>' in page

    assert (
        editor.post(
            f"{PAGES}primary/items", {"type": "content", "collection": "posts", "entry": entry.pk.lower()}
        ).status_code
        == 302
    )
    assert (
        editor.post(f"{PAGES}primary/items", {"type": "taxonomy", "term": f"tag:{term['id']}"}).status_code
        == 302
    )
    add_link(editor, "Contact", "mailto:hi@example.com")
    found = items(admin_api)
    assert [(item["type"], item["label"], item["missing"]) for item in found] == [
        ("content", "Hello world", False),
        ("taxonomy", "Sport", False),
        ("custom", "Contact", False),
    ]
    assert (found[0]["referenceCollection"], found[0]["referenceId"]) == ("posts", entry.pk)
    assert (found[1]["referenceCollection"], found[1]["referenceId"]) == ("tag", term["id"])
    assert found[2]["url"] == "mailto:hi@example.com"

    refused = editor.post(
        f"{PAGES}primary/items", {"type": "custom", "label": "Bad", "url": "javascript:alert(1)"}
    )
    assert refused.status_code == 400
    assert (
        '<p class="error" id="item-url-error">Give a relative path (/about) or an http(s), mailto: or tel: '
        "address.</p>" in refused.content.decode()
    )
    missing = editor.post(
        f"{PAGES}primary/items", {"type": "content", "collection": "posts", "entry": "01ZZ"}
    )
    assert missing.status_code == 400
    assert (
        '<p class="error" id="item-entry-error">No entry 01ZZ in &#x27;posts&#x27;.</p>'
        in missing.content.decode()
    )
    assert len(items(admin_api)) == 3

    item_id = found[1]["id"]
    assert editor.post(f"{PAGES}primary/items/{item_id}/delete").status_code == 302
    assert [item["label"] for item in items(admin_api)] == ["Hello world", "Contact"]


def test_move_buttons_reorder_through_one_service_call(editor, four, admin_api, monkeypatch):
    calls = []
    real = menu_services.menu_reorder

    def counted(**kwargs):
        calls.append(kwargs["items"])
        return real(**kwargs)

    monkeypatch.setattr(menu_services, "menu_reorder", counted)

    def press(label: str, how: str):
        response = editor.post(f"{PAGES}primary/move", {"item": four[label], "move": how})
        assert response.status_code == 302
        assert response["Location"] == f"{PAGES}primary/#item-{four[label]}"

    press("About", "indent")
    assert outline(items(admin_api)) == [["Home", ["About"]], "Blog", "Contact"]
    assert len(calls) == 1 and len(calls[0]) == 4  # every item's place, in one call
    press("Blog", "indent")
    press("Blog", "indent")
    assert outline(items(admin_api)) == [["Home", [["About", ["Blog"]]]], "Contact"]
    press("Blog", "outdent")
    press("Blog", "up")
    assert outline(items(admin_api)) == [["Home", ["Blog", "About"]], "Contact"]
    press("Contact", "up")
    press("Home", "down")
    assert outline(items(admin_api)) == ["Contact", ["Home", ["Blog", "About"]]]
    count = len(calls)
    press("Contact", "up")  # nothing above it: nothing changes, nothing is written
    assert len(calls) == count

    html = editor.get(f"{PAGES}primary/").content.decode()
    assert (
        '<button type="submit" name="move" value="up" data-move="up" aria-label="Move up Contact" disabled>'
        in html
    )
    assert 'aria-label="Outdent Blog">Outdent</button>' in html


def test_the_whole_order_in_one_json_request(editor, four, admin_api, monkeypatch):
    calls = []
    real = menu_services.menu_reorder
    monkeypatch.setattr(menu_services, "menu_reorder", lambda **kwargs: calls.append(1) or real(**kwargs))
    order = [
        {"id": four["Contact"], "parentId": None, "sortOrder": 0},
        {"id": four["Home"], "parentId": None, "sortOrder": 1},
        {"id": four["Blog"], "parentId": four["Home"], "sortOrder": 0},
        {"id": four["About"], "parentId": four["Blog"], "sortOrder": 0},
    ]
    response = editor.post(
        f"{PAGES}primary/order", json.dumps({"items": order}), content_type="application/json"
    )
    assert response.status_code == 200
    assert calls == [1]
    assert outline(response.json()["data"]["items"]) == ["Contact", ["Home", [["Blog", ["About"]]]]]
    assert outline(items(admin_api)) == ["Contact", ["Home", [["Blog", ["About"]]]]]

    looped = [{"id": four["Home"], "parentId": four["About"], "sortOrder": 0}]
    refused = editor.post(
        f"{PAGES}primary/order", json.dumps({"items": looped}), content_type="application/json"
    )
    assert refused.status_code == 400
    assert (
        refused.json()["error"]["message"]
        == "The new order would make an item its own ancestor; nothing was changed."
    )
    assert outline(items(admin_api)) == ["Contact", ["Home", [["Blog", ["About"]]]]]


def test_an_item_whose_entry_was_trashed_is_marked(editor, menu, admin_api, posts_collection):
    entry = make_entry(posts_collection, {"title": "Old news"}, status="published")
    editor.post(f"{PAGES}primary/items", {"type": "content", "collection": "posts", "entry": entry.pk})
    assert admin_api.delete(f"/_cms/api/content/posts/{entry.pk}").status_code == 200
    assert items(admin_api)[0]["missing"] is True and items(admin_api)[0]["target"]["trashed"] is True
    html = editor.get(f"{PAGES}primary/").content.decode()
    assert '<span class="menu-item-label">Old news</span>' in html
    assert '<span class="badge trashed">trashed</span>' in html


def test_contributors_read_menus_but_cannot_change_them(editor, menu, admin_api):
    add_link(editor, "Home")
    contributor = signed_in(Role.CONTRIBUTOR)
    page = contributor.get(f"{PAGES}primary/")
    assert page.status_code == 200
    html = page.content.decode()
    assert (
        "Home" in html
        and "Move up" not in html
        and "Add an item" not in html
        and "menu-editor.js" not in html
    )
    assert "New menu" not in contributor.get(PAGES).content.decode()
    for url, body in (
        (f"{PAGES}primary/items", {"type": "custom", "label": "Mine", "url": "/mine"}),
        (f"{PAGES}primary/rename", {"label": "Mine"}),
        (PAGES, {"name": "mine", "label": "Mine"}),
        (f"{PAGES}primary/delete", {}),
    ):
        refused = contributor.post(url, body)
        assert refused.status_code == 403, url
        assert "<h1>Not allowed</h1>" in refused.content.decode()
    order = json.dumps({"items": [{"id": items(admin_api)[0]["id"], "parentId": None, "sortOrder": 5}]})
    assert (
        contributor.post(f"{PAGES}primary/order", order, content_type="application/json").status_code == 403
    )
    assert outline(items(admin_api)) == ["Home"]
    assert [menu["name"] for menu in admin_api.get(API).json()["data"]["items"]] == ["primary"]
    assert admin_api.get(f"{API}/primary").json()["data"]["label"] == "Main menu"
