"""Every model of media, taxonomies, menus, the site and plugins is manageable in the Django admin: its list, add and
change pages render, and adds go through the services."""

from __future__ import annotations

import pytest
from django.test import Client

from apps.accounts.models import Role
from apps.accounts.permissions import Actor
from apps.menus import services as menu_services
from apps.menus.models import Menu, MenuItem
from apps.site import services as site_services
from apps.site.models import Section, SiteSettings, Widget, WidgetArea
from apps.taxonomy import services as taxonomy_services
from apps.taxonomy.models import Taxonomy, Term
from tests.factories import make_collection, make_media, make_user


@pytest.fixture
def admin_client():
    client = Client()
    client.force_login(make_user(Role.ADMIN))
    return client


@pytest.fixture
def objects():
    actor = Actor.system()
    make_collection("posts", fields=[("title", "string")])
    taxonomy = taxonomy_services.taxonomy_create(actor=actor, name="category", label="C", hierarchical=True)
    term = taxonomy_services.term_create(actor=actor, taxonomy=taxonomy, label="News")
    menu = menu_services.menu_create(actor=actor, name="primary", label="Primary")
    item = menu_services.menu_item_create(
        actor=actor, menu=menu, values={"type": "custom", "label": "Home", "url": "/"}
    )
    area = site_services.widget_area_create(actor=actor, name="sidebar", label="Sidebar")
    widget = site_services.widget_create(actor=actor, area=area, type="content", title="About")
    section = site_services.section_create(actor=actor, title="Hero")
    settings = site_services.settings_update(actor=actor, changes={"site_title": "Site"})
    media = make_media()
    return {
        "media/mediaitem": media,
        "taxonomy/taxonomy": taxonomy,
        "taxonomy/term": term,
        "menus/menu": menu,
        "menus/menuitem": item,
        "site/widgetarea": area,
        "site/widget": widget,
        "site/section": section,
        "site/sitesettings": settings,
    }


@pytest.mark.parametrize(
    "model",
    [
        "media/mediaitem",
        "taxonomy/taxonomy",
        "taxonomy/term",
        "menus/menu",
        "menus/menuitem",
        "site/widgetarea",
        "site/widget",
        "site/section",
        "site/sitesettings",
        "plugins/pluginstate",
        "plugins/auditevent",
    ],
)
def test_list_add_and_change_pages_render(admin_client, objects, model):
    assert admin_client.get(f"/django-admin/{model}/").status_code == 200
    add = admin_client.get(f"/django-admin/{model}/add/").status_code
    assert add in (200, 403)  # settings (one row, already made), plugin state and the audit log are not added
    if model in objects:
        assert admin_client.get(f"/django-admin/{model}/{objects[model].pk}/change/").status_code == 200


def test_admin_adds_write_through_the_services(admin_client, objects):
    term = admin_client.post(
        "/django-admin/taxonomy/term/add/",
        {
            "taxonomy": objects["taxonomy/taxonomy"].pk,
            "label": "Local",
            "slug": "",
            "parent": objects["taxonomy/term"].pk,
        },
    )
    assert term.status_code == 302
    assert Term.objects.get(label="Local").slug == "local"
    refused = admin_client.post(
        "/django-admin/menus/menuitem/add/",
        {
            "menu": objects["menus/menu"].pk,
            "type": "custom",
            "label": "Bad",
            "url": "javascript:x",
            "sort_order": 0,
        },
    )
    assert refused.status_code == 200
    assert "Give a relative path" in refused.content.decode()
    assert MenuItem.objects.count() == 1
    section = admin_client.post(
        "/django-admin/site/section/add/",
        {"title": "Footer CTA", "slug": "", "keywords": '["cta"]', "content": "[]", "source": "user"},
    )
    assert section.status_code == 302
    assert Section.objects.get(slug="footer-cta").keywords_text == "cta"
    assert (Menu.objects.count(), WidgetArea.objects.count(), Widget.objects.count()) == (1, 1, 1)
    assert (Taxonomy.objects.count(), SiteSettings.objects.get().site_title) == (1, "Site")
