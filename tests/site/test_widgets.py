"""Widget areas and widgets over HTTP (SPEC §4.8): Portable Text content validated, order kept, reorder checked."""

from __future__ import annotations

import pytest

from apps.accounts.models import Role
from apps.site.models import Widget

AREAS = "/_cms/api/widget-areas"
TEXT = [{"_type": "block", "_key": "k1", "children": [{"_type": "span", "_key": "s1", "text": "Hello"}]}]
NORMALIZED = [
    {
        "_type": "block",
        "_key": "k1",
        "style": "normal",
        "markDefs": [],
        "children": [{"_type": "span", "_key": "s1", "text": "Hello", "marks": []}],
    }
]


@pytest.fixture
def sidebar(admin_api):
    response = admin_api.post(
        AREAS, {"name": "sidebar", "label": "Sidebar", "description": "Right column"}, format="json"
    )
    assert response.status_code == 201
    return response.json()["data"]


def widget(client, area="sidebar", **body):
    response = client.post(f"{AREAS}/{area}/widgets", {"type": "content", **body}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["data"]


def test_create_list_get_delete_an_area(admin_api, sidebar):
    assert sidebar == {
        "id": sidebar["id"],
        "name": "sidebar",
        "label": "Sidebar",
        "description": "Right column",
        "widgets": [],
        "createdAt": sidebar["createdAt"],
        "updatedAt": sidebar["updatedAt"],
    }
    assert admin_api.get(AREAS).json() == {"success": True, "data": {"items": [sidebar]}}
    assert admin_api.get(f"{AREAS}/sidebar").json()["data"] == sidebar
    assert admin_api.post(AREAS, {"name": "sidebar", "label": "x"}, format="json").status_code == 409
    widget(admin_api, title="About")
    assert admin_api.delete(f"{AREAS}/sidebar").json() == {"success": True, "data": {"success": True}}
    assert Widget.objects.count() == 0
    assert admin_api.get(f"{AREAS}/sidebar").status_code == 404


def test_update_an_area(admin_api, sidebar):
    response = admin_api.put(f"{AREAS}/sidebar", {"label": "Side", "description": ""}, format="json")
    assert (response.json()["data"]["label"], response.json()["data"]["description"]) == ("Side", "")


def test_widgets_are_added_in_order_with_normalised_content(admin_api, sidebar):
    first = widget(admin_api, title="About", content=TEXT)
    assert first == {
        "id": first["id"],
        "type": "content",
        "title": "About",
        "content": NORMALIZED,
        "sortOrder": 0,
        "createdAt": first["createdAt"],
        "updatedAt": first["updatedAt"],
    }
    second = widget(admin_api, type="recent-posts", title="Latest")
    assert (second["sortOrder"], second["content"]) == (1, [])
    area = admin_api.get(f"{AREAS}/sidebar").json()["data"]
    assert [item["id"] for item in area["widgets"]] == [first["id"], second["id"]]


def test_widget_content_is_validated_as_portable_text(admin_api, sidebar):
    response = admin_api.post(
        f"{AREAS}/sidebar/widgets",
        {"type": "content", "content": [{"_type": "block", "children": [{"_type": "span"}]}, {"text": "x"}]},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "content[0].children[0].text": "A span needs its text as a string.",
        "content[1]._type": "Every block needs a _type, e.g. 'block' for text.",
    }
    bad_type = admin_api.post(f"{AREAS}/sidebar/widgets", {"type": "Not a type!"}, format="json")
    assert bad_type.json()["error"]["details"] == {
        "type": "A widget type name: letters, digits, '-' and '_' (e.g. content)."
    }


def test_update_and_delete_a_widget(admin_api, sidebar):
    item = widget(admin_api, title="About")
    changed = admin_api.put(
        f"{AREAS}/sidebar/widgets/{item['id']}", {"title": "About us", "content": TEXT}, format="json"
    )
    assert changed.status_code == 200
    assert (changed.json()["data"]["title"], changed.json()["data"]["content"]) == ("About us", NORMALIZED)
    assert changed.json()["data"]["type"] == "content"
    assert admin_api.delete(f"{AREAS}/sidebar/widgets/{item['id']}").json()["data"] == {"success": True}
    assert admin_api.delete(f"{AREAS}/sidebar/widgets/{item['id']}").status_code == 404


def test_reorder_puts_named_widgets_first(admin_api, sidebar):
    a, b, c = (widget(admin_api, title=title)["id"] for title in "ABC")
    response = admin_api.post(f"{AREAS}/sidebar/reorder", {"widgetIds": [c, a]}, format="json")
    assert response.status_code == 200
    widgets = response.json()["data"]["widgets"]
    assert [(w["id"], w["sortOrder"]) for w in widgets] == [(c, 0), (a, 1), (b, 2)]


def test_reorder_refuses_unknown_and_repeated_ids(admin_api, sidebar):
    admin_api.post(AREAS, {"name": "footer", "label": "Footer"}, format="json")
    mine = widget(admin_api, title="A")["id"]
    theirs = widget(admin_api, area="footer", title="F")["id"]
    response = admin_api.post(f"{AREAS}/sidebar/reorder", {"widgetIds": [mine, theirs, mine]}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "widgetIds.1": f"No widget {theirs} in the area 'sidebar'.",
        "widgetIds.2": "Listed twice.",
    }


def test_widgets_need_an_editor_to_change_and_content_read_to_see(client_for, sidebar):
    assert client_for(Role.SUBSCRIBER, ["content:read"]).get(AREAS).status_code == 200
    author = client_for(Role.AUTHOR, ["content:write"])
    assert author.post(f"{AREAS}/sidebar/widgets", {"type": "content"}, format="json").status_code == 403
    editor = client_for(Role.EDITOR, ["content:write"])
    assert editor.post(f"{AREAS}/sidebar/widgets", {"type": "content"}, format="json").status_code == 201


def test_put_sets_all_of_an_areas_widgets_in_one_go(admin_api, client_for, sidebar):
    kept, dropped = widget(admin_api, title="About"), widget(admin_api, title="Latest")
    body = {
        "widgets": [
            {"type": "tag-cloud", "title": "Tags"},
            {"id": kept["id"], "type": "content", "content": TEXT},
        ]
    }
    response = admin_api.put(f"{AREAS}/sidebar/widgets", body, format="json")
    assert response.status_code == 200
    area = response.json()["data"]
    assert area == admin_api.get(f"{AREAS}/sidebar").json()["data"]
    added, replaced = area["widgets"]
    assert (added["type"], added["title"], added["sortOrder"]) == ("tag-cloud", "Tags", 0)
    # An item naming a widget replaces all of it: the title it left out is now empty.
    assert (replaced["id"], replaced["title"], replaced["content"], replaced["sortOrder"]) == (
        kept["id"],
        "",
        NORMALIZED,
        1,
    )
    assert not Widget.objects.filter(pk=dropped["id"]).exists()
    invalid = admin_api.put(
        f"{AREAS}/sidebar/widgets",
        {"widgets": [{"type": "content", "content": [{"text": "x"}]}]},
        format="json",
    )
    assert invalid.status_code == 400
    assert invalid.json()["error"]["details"] == {
        "widgets.0.content[0]._type": "Every block needs a _type, e.g. 'block' for text."
    }
    assert Widget.objects.filter(area_id=sidebar["id"]).count() == 2
    assert admin_api.put(f"{AREAS}/nowhere/widgets", {"widgets": []}, format="json").status_code == 404
    author = client_for(Role.AUTHOR, ["content:write"])
    assert author.put(f"{AREAS}/sidebar/widgets", {"widgets": []}, format="json").status_code == 403
    assert Widget.objects.filter(area_id=sidebar["id"]).count() == 2
