"""The studio's widget and section pages: widget areas (create, edit, delete), widgets (add, edit with rich text, the
two moves without JavaScript, the whole order in one JSON request, delete), sections (create, edit, search with cursor
pages, delete, imported ones shown), the service's messages next to their fields, who may write, and CSRF; each write
checked through REST."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from apps.accounts.models import Role
from apps.accounts.permissions import Actor
from apps.site import services as site_services
from tests.factories import make_user

pytestmark = pytest.mark.django_db
WIDGETS = "/_cms/admin/widgets/"
SECTIONS = "/_cms/admin/sections/"


def signed_in(role: int = Role.EDITOR, **options) -> Client:
    client = Client(**options)
    client.force_login(make_user(role))
    return client


def text(words: str) -> str:
    return json.dumps([{"_type": "block", "children": [{"_type": "span", "text": words}]}])


def spans(blocks) -> list[str]:
    return [span["text"] for block in blocks for span in block["children"]]


@pytest.fixture
def editor():
    return signed_in(Role.EDITOR)


@pytest.fixture
def sidebar(editor):
    response = editor.post(WIDGETS, {"name": "sidebar", "label": "Sidebar", "description": "Right column"})
    assert response.status_code == 302
    assert response["Location"] == f"{WIDGETS}#area-sidebar"
    return "sidebar"


def area(api, name: str = "sidebar") -> dict:
    return api.get(f"/_cms/api/widget-areas/{name}").json()["data"]


def titles(api, name: str = "sidebar") -> list[str]:
    return [widget["title"] for widget in area(api, name)["widgets"]]


def add_widget(client, title: str, type: str = "content", words: str = "Hello"):
    response = client.post(f"{WIDGETS}sidebar/new", {"type": type, "title": title, "content": text(words)})
    assert response.status_code == 302, response.content.decode()
    return response


@pytest.fixture
def three(editor, sidebar, admin_api):
    for title in ("About", "Links", "Search"):
        add_widget(editor, title)
    return {widget["title"]: widget["id"] for widget in area(admin_api)["widgets"]}


# --- widget areas -----------------------------------------------------------------------------------------------------


def test_create_edit_and_delete_a_widget_area(editor, sidebar, admin_api):
    assert area(admin_api)["label"] == "Sidebar"
    assert area(admin_api)["description"] == "Right column"
    page = editor.get(WIDGETS).content.decode()
    assert '<h2 id="area-sidebar-heading">Sidebar</h2>' in page
    assert '<a href="/_cms/admin/widgets/" aria-current="page">Widgets</a>' in page
    assert "No widgets in this area yet." in page

    taken = editor.post(WIDGETS, {"name": "sidebar", "label": "Again"})
    assert taken.status_code == 409
    assert '<p class="error" id="area-name-error">Taken.</p>' in taken.content.decode()
    bad = editor.post(WIDGETS, {"name": "Side Bar", "label": "x"})
    assert bad.status_code == 400
    assert re.search(r'<p class="error" id="area-name-error">Use lowercase letters', bad.content.decode())

    edited = editor.post(f"{WIDGETS}sidebar/edit", {"label": "Right sidebar", "description": ""})
    assert edited.status_code == 302
    assert (area(admin_api)["label"], area(admin_api)["description"]) == ("Right sidebar", "")
    blank = editor.post(f"{WIDGETS}sidebar/edit", {"label": "", "description": ""})
    assert blank.status_code == 400
    assert '<p class="error" id="area-label-error">This field may not be blank.</p>' in blank.content.decode()

    add_widget(editor, "About")
    confirm = editor.get(f"{WIDGETS}sidebar/delete").content.decode()
    assert "Its 1 widget goes with it." in confirm
    assert editor.post(f"{WIDGETS}sidebar/delete").status_code == 302
    assert admin_api.get("/_cms/api/widget-areas/sidebar").status_code == 404


# --- widgets ----------------------------------------------------------------------------------------------------------


def test_add_and_edit_a_rich_text_widget(editor, sidebar, admin_api):
    form = editor.get(f"{WIDGETS}sidebar/new").content.decode()
    assert 'data-portable-text="content"' in form
    assert "studio/editor/portable-text.js" in form
    add_widget(editor, "About us", words="We sell boats.")
    [widget] = area(admin_api)["widgets"]
    assert (widget["type"], widget["title"], spans(widget["content"])) == (
        "content",
        "About us",
        ["We sell boats."],
    )
    assert widget["content"][0]["_key"]  # filled in by the service: the editor needs keys

    page = editor.get(WIDGETS).content.decode()
    assert f'<li id="widget-{widget["id"]}" class="widget-item"' in page
    assert "We sell boats." in page

    edit_url = f"{WIDGETS}sidebar/{widget['id']}/"
    shown = editor.get(edit_url).content.decode()
    assert 'value="About us"' in shown
    assert "We sell boats." in shown
    saved = editor.post(edit_url, {"type": "menu", "title": "Footer links", "content": text("Changed")})
    assert saved.status_code == 302
    assert saved["Location"] == f"{WIDGETS}#widget-{widget['id']}"
    [after] = area(admin_api)["widgets"]
    assert (after["type"], after["title"], spans(after["content"])) == ("menu", "Footer links", ["Changed"])


def test_a_widget_error_is_shown_next_to_its_field(editor, sidebar, admin_api):
    bad_block = json.dumps([{"_type": "block", "children": [{"_type": "span", "text": 5}]}])
    response = editor.post(f"{WIDGETS}sidebar/new", {"type": "content", "title": "x", "content": bad_block})
    assert response.status_code == 400
    page = response.content.decode()
    assert re.search(r'<p class="error" id="widget-content-error">content\[0\]\.children\[0\]\.text: ', page)
    assert 'aria-describedby=" widget-content-error" aria-invalid="true"' in page
    # What was typed comes back.
    assert "&quot;text&quot;: 5" in page or "&quot;text&quot;:5" in page

    not_json = editor.post(f"{WIDGETS}sidebar/new", {"type": "content", "title": "x", "content": "[{"})
    assert not_json.status_code == 400
    assert '<p class="error" id="widget-content-error">Not valid JSON:' in not_json.content.decode()
    no_type = editor.post(f"{WIDGETS}sidebar/new", {"type": "", "title": "x", "content": "[]"})
    assert no_type.status_code == 400
    assert '<p class="error" id="widget-type-error">' in no_type.content.decode()
    assert area(admin_api)["widgets"] == []


def test_moves_without_javascript_reorder_through_the_service(editor, three, admin_api):
    response = editor.post(f"{WIDGETS}sidebar/move", {"widget": three["Search"], "move": "up"})
    assert response.status_code == 302
    assert response["Location"] == f"{WIDGETS}#widget-{three['Search']}"
    assert titles(admin_api) == ["About", "Search", "Links"]
    editor.post(f"{WIDGETS}sidebar/move", {"widget": three["About"], "move": "down"})
    assert titles(admin_api) == ["Search", "About", "Links"]
    # The first widget cannot go up: nothing changes, and the page says so.
    stuck = editor.post(f"{WIDGETS}sidebar/move", {"widget": three["Search"], "move": "up"}, follow=True)
    assert "That widget cannot move that way." in stuck.content.decode()
    assert titles(admin_api) == ["Search", "About", "Links"]
    page = editor.get(WIDGETS).content.decode()
    assert 'data-move="up" disabled>Move<span class="visually-hidden"> Search</span> up</button>' in page
    assert 'data-move="down" disabled>Move<span class="visually-hidden"> Links</span> down</button>' in page


def test_the_whole_order_in_one_json_request(editor, three, admin_api):
    order = [three["Links"], three["Search"], three["About"]]
    response = editor.post(
        f"{WIDGETS}sidebar/order", json.dumps({"widgetIds": order}), content_type="application/json"
    )
    assert response.status_code == 200
    assert [widget["id"] for widget in response.json()["data"]["widgets"]] == order
    assert titles(admin_api) == ["Links", "Search", "About"]

    unknown = editor.post(
        f"{WIDGETS}sidebar/order",
        json.dumps({"widgetIds": ["01NOSUCHWIDGET"]}),
        content_type="application/json",
    )
    assert unknown.status_code == 400
    assert unknown.json()["error"]["details"] == {
        "widgetIds.0": "No widget 01NOSUCHWIDGET in the area 'sidebar'."
    }
    assert titles(admin_api) == ["Links", "Search", "About"]


def test_delete_a_widget_after_confirming(editor, three, admin_api):
    url = f"{WIDGETS}sidebar/{three['Links']}/delete"
    confirm = editor.get(url).content.decode()
    assert "<h1>Delete the widget Links?</h1>" in confirm
    assert titles(admin_api) == ["About", "Links", "Search"]
    assert editor.post(url).status_code == 302
    assert titles(admin_api) == ["About", "Search"]


@pytest.mark.parametrize("role", [Role.CONTRIBUTOR, Role.AUTHOR])
def test_roles_below_editor_read_widgets_but_may_not_change_them(role, sidebar, three, admin_api):
    client = signed_in(role)
    page = client.get(WIDGETS)
    assert page.status_code == 200
    html = page.content.decode()
    assert "About" in html
    assert 'data-move="down"' not in html and "New widget area" not in html
    assert client.get(f"{WIDGETS}sidebar/new").status_code == 403
    assert client.post(f"{WIDGETS}sidebar/new", {"type": "content", "content": "[]"}).status_code == 403
    assert (
        client.post(f"{WIDGETS}sidebar/{three['About']}/", {"type": "x", "content": "[]"}).status_code == 403
    )
    assert client.post(f"{WIDGETS}sidebar/move", {"widget": three["Links"], "move": "up"}).status_code == 403
    order = client.post(
        f"{WIDGETS}sidebar/order", json.dumps({"widgetIds": []}), content_type="application/json"
    )
    assert order.status_code == 403
    assert client.post(f"{WIDGETS}sidebar/{three['About']}/delete").status_code == 403
    assert client.post(f"{WIDGETS}sidebar/delete").status_code == 403
    assert client.post(WIDGETS, {"name": "footer", "label": "Footer"}).status_code == 403
    assert titles(admin_api) == ["About", "Links", "Search"]
    assert [a["name"] for a in admin_api.get("/_cms/api/widget-areas").json()["data"]["items"]] == ["sidebar"]


def test_writes_need_the_csrf_token(sidebar, admin_api):
    client = signed_in(Role.EDITOR, enforce_csrf_checks=True)
    assert client.post(f"{WIDGETS}sidebar/new", {"type": "content", "content": "[]"}).status_code == 403
    order = client.post(f"{WIDGETS}sidebar/order", "{}", content_type="application/json")
    assert order.status_code == 403
    assert client.post(f"{SECTIONS}new", {"title": "x"}).status_code == 403
    client.get(WIDGETS)
    token = client.cookies["csrftoken"].value
    added = client.post(
        f"{WIDGETS}sidebar/new",
        {"type": "content", "title": "T", "content": "[]", "csrfmiddlewaretoken": token},
    )
    assert added.status_code == 302
    assert titles(admin_api) == ["T"]


# --- sections ---------------------------------------------------------------------------------------------------------


def section(api, slug: str):
    return api.get(f"/_cms/api/sections/{slug}")


def test_create_and_edit_a_section(editor, admin_api):
    form = editor.get(f"{SECTIONS}new").content.decode()
    assert 'data-portable-text="content"' in form
    created = editor.post(
        f"{SECTIONS}new",
        {
            "title": "Call to action",
            "slug": "",
            "keywords": "cta, Newsletter, cta",
            "content": text("Sign up!"),
        },
    )
    assert created.status_code == 302
    assert created["Location"] == f"{SECTIONS}call-to-action/"
    data = section(admin_api, "call-to-action").json()["data"]
    assert (data["title"], data["keywords"], spans(data["content"])) == (
        "Call to action",
        ["cta", "Newsletter"],
        ["Sign up!"],
    )
    assert data["source"] == "user"

    shown = editor.get(f"{SECTIONS}call-to-action/").content.decode()
    assert 'value="cta, Newsletter"' in shown
    saved = editor.post(
        f"{SECTIONS}call-to-action/",
        {"title": "Join us", "slug": "join", "keywords": "join", "content": text("Come aboard")},
    )
    assert saved.status_code == 302
    assert saved["Location"] == f"{SECTIONS}join/"
    assert section(admin_api, "call-to-action").status_code == 404
    data = section(admin_api, "join").json()["data"]
    assert (data["title"], data["keywords"], spans(data["content"])) == ("Join us", ["join"], ["Come aboard"])


def test_section_errors_are_shown_next_to_their_fields(editor, admin_api):
    site_services.section_create(actor=Actor.system(), title="Taken", slug="taken")
    blank = editor.post(f"{SECTIONS}new", {"title": "", "slug": "", "keywords": "", "content": "[]"})
    assert blank.status_code == 400
    assert (
        '<p class="error" id="section-title-error">This field may not be blank.</p>' in blank.content.decode()
    )
    taken = editor.post(
        f"{SECTIONS}new", {"title": "Other", "slug": "taken", "keywords": "", "content": "[]"}
    )
    assert taken.status_code == 409
    page = taken.content.decode()
    assert '<p class="error" id="section-slug-error">Taken.</p>' in page
    assert 'value="Other"' in page
    unknown = json.dumps([{"_type": "nosuchblock"}])
    bad = editor.post(
        f"{SECTIONS}taken/", {"title": "Taken", "slug": "taken", "keywords": "", "content": unknown}
    )
    assert bad.status_code == 400
    assert re.search(r'<p class="error" id="section-content-error">content\[0\]', bad.content.decode())
    assert [item["slug"] for item in admin_api.get("/_cms/api/sections").json()["data"]["items"]] == ["taken"]


@pytest.fixture
def library():
    system = Actor.system()
    site_services.section_create(actor=system, title="Contact box", keywords=["cta", "contact"])
    site_services.section_create(actor=system, title="Newsletter signup", keywords=["cta", "email"])
    site_services.section_create(actor=system, title="Pricing table", keywords=["plans"], source="import")


def rows(html: str) -> list[str]:
    return re.findall(r'<th scope="row" data-label="Section"><a href="[^"]+">([^<]+)</a>', html)


def test_search_on_title_and_keywords(editor, library):
    page = editor.get(SECTIONS).content.decode()
    assert rows(page) == ["Contact box", "Newsletter signup", "Pricing table"]
    assert '<span class="badge">imported</span>' in page
    assert rows(editor.get(SECTIONS, {"q": "cta"}).content.decode()) == ["Contact box", "Newsletter signup"]
    assert rows(editor.get(SECTIONS, {"q": "PRICING"}).content.decode()) == ["Pricing table"]
    assert rows(editor.get(SECTIONS, {"q": "cta email"}).content.decode()) == ["Newsletter signup"]
    none = editor.get(SECTIONS, {"q": "boats"}).content.decode()
    assert "No section matches “boats”." in none


def test_cursor_pages(editor, admin_api, monkeypatch):
    from apps.studio.views import sections as section_pages

    monkeypatch.setattr(section_pages, "PAGE_SIZE", 2)
    for title in ("A one", "B two", "C three"):
        site_services.section_create(actor=Actor.system(), title=title, keywords=["x"])
    first = editor.get(SECTIONS, {"q": "x"}).content.decode()
    assert rows(first) == ["A one", "B two"]
    next_url = re.search(r'<a href="([^"]+)" rel="next">Next page</a>', first).group(1).replace("&amp;", "&")
    assert "q=x" in next_url
    second = editor.get(next_url).content.decode()
    assert rows(second) == ["C three"]
    assert 'rel="next"' not in second
    assert '<a href="/_cms/admin/sections/?q=x">First page</a>' in second


def test_delete_a_section_after_confirming(editor, library, admin_api):
    confirm = editor.get(f"{SECTIONS}pricing-table/delete").content.decode()
    assert "<h1>Delete the section Pricing table?</h1>" in confirm
    assert section(admin_api, "pricing-table").status_code == 200
    assert editor.post(f"{SECTIONS}pricing-table/delete").status_code == 302
    assert section(admin_api, "pricing-table").status_code == 404


@pytest.mark.parametrize("role", [Role.CONTRIBUTOR, Role.AUTHOR])
def test_roles_below_editor_read_sections_but_may_not_change_them(role, library, admin_api):
    client = signed_in(role)
    listed = client.get(SECTIONS).content.decode()
    assert rows(listed) == ["Contact box", "Newsletter signup", "Pricing table"]
    assert "New section" not in listed
    shown = client.get(f"{SECTIONS}contact-box/")
    assert shown.status_code == 200
    assert "You may read this section but not change it." in shown.content.decode()
    assert client.get(f"{SECTIONS}new").status_code == 403
    assert client.post(f"{SECTIONS}new", {"title": "x"}).status_code == 403
    assert client.post(f"{SECTIONS}contact-box/", {"title": "y", "content": "[]"}).status_code == 403
    assert client.post(f"{SECTIONS}contact-box/delete").status_code == 403
    assert section(admin_api, "contact-box").json()["data"]["title"] == "Contact box"


def test_nav_shows_widgets_and_sections_under_structure(editor):
    page = editor.get(SECTIONS).content.decode()
    assert '<a href="/_cms/admin/sections/" aria-current="page">Sections</a>' in page
    nav = page[page.index('aria-label="Studio"') :]
    assert nav.index(">Menus<") < nav.index(">Widgets<") < nav.index(">Sections<")


def test_subscribers_get_no_studio():
    client = signed_in(Role.SUBSCRIBER)
    assert client.get(WIDGETS).status_code == 403
    assert client.get(SECTIONS).status_code == 403
