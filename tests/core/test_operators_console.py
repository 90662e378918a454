"""The operators' console reads like a finished product: plain names, one OAuth section, no password links in a
passwordless system, "View site" going to the studio, entries by title and collection, revisions restored through the
service instead of deleted, the entry form defaulting the locale."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from apps.accounts.models import Role
from apps.content.models import Revision
from tests.factories import make_entry, make_user

pytestmark = pytest.mark.django_db
CONSOLE = "/django-admin"


@pytest.fixture
def operator() -> Client:
    client = Client()
    client.force_login(make_user(Role.ADMIN, email="op@example.com"))
    return client


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def sections(html: str) -> dict[str, list[str]]:
    """Each app section of the index page: its caption and the model names listed under it."""
    found = {}
    for caption, body in re.findall(
        r"<caption>\s*<a [^>]*>([^<]+)</a>\s*</caption>(.*?)</table>", html, re.S
    ):
        found[caption.strip()] = re.findall(r'<th scope="row" id="[^"]+">\s*<a [^>]*>([^<]+)</a>', body)
    return found


def test_the_index_names_every_model_plainly_with_one_oauth_section(operator):
    html = operator.get(f"{CONSOLE}/").content.decode()
    found = sections(html)
    assert found["Content"] == ["Bylines", "Entries", "Revisions"]
    assert found["Accounts"] == ["API tokens", "Invitations", "Passkeys", "Users"]
    assert found["OAuth"] == [
        "Clients",
        "Client scopes and grant types",
        "Access tokens",
        "Refresh tokens",
        "ID tokens",
        "Authorization codes",
    ]
    assert "Django OAuth Toolkit" not in html and "Authentication and Authorization" not in html
    assert "Entrys" not in html and "O auth" not in html


def test_the_header_goes_to_the_studio_and_offers_no_password_change(operator):
    html = operator.get(f"{CONSOLE}/").content.decode()
    assert '<a href="/_cms/admin/">View site</a>' in html
    assert "password" not in text_of(html).lower()
    assert "CMS · operators&#x27; console" in html


def test_entries_are_listed_by_title_and_collection_label(operator, posts_collection):
    make_entry(posts_collection, {"title": "Hello world"}, slug="hello")
    html = operator.get(f"{CONSOLE}/content/entry/").content.decode()
    row = text_of(html[html.index("<tbody>") : html.index("</tbody>")])
    assert row.startswith(" Hello world Posts Draft en ")
    assert posts_collection.pk not in row


def test_the_entry_form_defaults_the_locale(operator, settings):
    settings.CMS_DEFAULT_LOCALE = "fr"
    html = operator.get(f"{CONSOLE}/content/entry/add/").content.decode()
    assert re.search(r'<input type="text" name="locale" value="fr"', html)


def test_revisions_are_restored_through_the_service_not_deleted(operator, admin_api, posts_collection):
    entry = make_entry(posts_collection, {"title": "First"})
    url = f"/_cms/api/content/posts/{entry.pk}"
    changed = admin_api.patch(url, {"data": {"title": "Second"}}, format="json")
    assert changed.status_code == 200
    first = Revision.objects.filter(entry=entry).order_by("created_at", "id").first()
    page = operator.get(f"{CONSOLE}/content/revision/").content.decode()
    assert 'value="restore_revision"' in page and 'value="delete_selected"' not in page
    assert operator.get(f"{CONSOLE}/content/revision/{first.pk}/delete/").status_code == 403
    response = operator.post(
        f"{CONSOLE}/content/revision/",
        {"action": "restore_revision", "_selected_action": [first.pk]},
        follow=True,
    )
    assert response.status_code == 200
    assert [str(message) for message in response.context["messages"]] == [
        f"posts/{entry.slug}: restored the revision of {first.created_at:%Y-%m-%d %H:%M}."
    ]
    item = admin_api.get(url).json()["data"]["item"]
    assert (item["data"], item["status"]) == ({"title": "First"}, "draft")
    assert Revision.objects.filter(entry=entry).count() == 3


def test_menu_items_are_listed_by_their_targets_names(operator, admin_api, posts_collection):
    entry = make_entry(posts_collection, {"title": "Opening hours"}, slug="hours")
    menu = admin_api.post("/_cms/api/menus", {"name": "main", "label": "Main"}, format="json")
    assert menu.status_code == 201, menu.content
    added = admin_api.post(
        "/_cms/api/menus/main/items",
        {"type": "content", "referenceCollection": "posts", "referenceId": entry.pk},
        format="json",
    )
    assert added.status_code == 201, added.content
    html = operator.get(f"{CONSOLE}/menus/menuitem/").content.decode()
    row = text_of(html[html.index("<tbody>") : html.index("</tbody>")])
    assert "Opening hours" in row and "Opening hours (posts)" in row
    assert entry.pk not in row
