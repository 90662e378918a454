"""Who may open the studio (operation ``studio.use`` of the permission table), its shell and its dashboard."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from apps.accounts.models import Role
from apps.accounts.permissions import Actor
from apps.content.services import entry_schedule
from tests.factories import make_entry, make_user

pytestmark = pytest.mark.django_db
STUDIO = "/_cms/admin/"


def signed_in(role: int, email: str | None = None) -> Client:
    client = Client()
    client.force_login(make_user(role, email=email or f"role{role}@example.com"))
    return client


def test_signed_out_people_sign_in_and_come_back():
    response = Client().get(STUDIO)
    assert response.status_code == 302
    assert response["Location"] == "/_cms/admin/login?next=/_cms/admin/"


@pytest.mark.parametrize("role", [Role.CONTRIBUTOR, Role.AUTHOR, Role.EDITOR, Role.ADMIN])
def test_every_writing_role_gets_the_dashboard(role, posts_collection):
    response = signed_in(role).get(STUDIO)
    assert response.status_code == 200
    html = response.content.decode()
    assert "<h1>Dashboard</h1>" in html
    assert '<a href="/_cms/admin/" aria-current="page">Dashboard</a>' in html
    assert '<a href="/_cms/admin/content/posts/">Posts</a>' in html
    assert response["Content-Security-Policy"].startswith("default-src 'self'; script-src 'self'")
    assert response["Cache-Control"] == "no-store"


def test_subscribers_get_a_page_saying_they_have_no_studio():
    response = signed_in(Role.SUBSCRIBER, "reader@example.com").get(STUDIO)
    assert response.status_code == 403
    html = response.content.decode()
    assert "<h1>No access to the studio</h1>" in html
    assert "<strong>reader@example.com</strong> (subscriber)" in html
    assert 'aria-label="Studio"' not in html
    # Nothing on the page links them back into the studio.
    assert 'href="/_cms/admin/"' not in html


def test_signing_in_lands_on_the_studio(settings):
    assert settings.LOGIN_REDIRECT_URL == "/_cms/admin/"


def test_the_account_page_links_to_the_studio_for_writers_only():
    assert (
        'href="/_cms/admin/">Open the studio</a>'
        in signed_in(Role.AUTHOR).get("/_cms/admin/account").content.decode()
    )
    page = signed_in(Role.SUBSCRIBER).get("/_cms/admin/account").content.decode()
    assert "Open the studio" not in page
    assert 'href="/_cms/admin/">Studio</a>' not in page


def test_non_admins_opening_the_operators_console_get_a_403_linking_the_studio():
    client = signed_in(Role.EDITOR)
    response = client.get("/django-admin/", follow=True)
    assert response.status_code == 403
    assert response.redirect_chain == [("/django-admin/login/?next=/django-admin/", 302)]
    assert '<a href="/_cms/admin/">Go to the studio</a>' in response.content.decode()


def test_an_unknown_collection_is_a_404_page_inside_the_shell(posts_collection):
    response = signed_in(Role.EDITOR).get(f"{STUDIO}content/nope/")
    assert response.status_code == 404
    html = response.content.decode()
    assert "No collection &#x27;nope&#x27;; collections: posts." in html
    assert 'aria-label="Studio"' in html


def test_the_dashboard_lists_my_drafts_recent_edits_and_what_is_scheduled_next(posts_collection):
    author = make_user(Role.AUTHOR, email="writer@example.com")
    make_entry(posts_collection, {"title": "My draft"}, author=author)
    make_entry(posts_collection, {"title": "Someone else's"})
    for title, days in (("Later", 2), ("Sooner", 1)):
        entry = make_entry(posts_collection, {"title": title}, author=author)
        entry_schedule(actor=Actor.system(), entry=entry, scheduled_at=timezone.now() + timedelta(days=days))
    client = Client()
    client.force_login(author)
    html = client.get(STUDIO).content.decode()
    drafts = html[html.index('id="my-drafts"') : html.index('id="recent"')]
    assert "My draft" in drafts and "Someone else" not in drafts and "Sooner" not in drafts
    recent = html[html.index('id="recent"') : html.index('id="scheduled"')]
    assert [title in recent for title in ("My draft", "Someone else&#x27;s", "Later", "Sooner")] == [True] * 4
    scheduled = html[html.index('id="scheduled"') :]
    assert scheduled.index("Sooner") < scheduled.index("Later")
    assert "My draft" not in scheduled


def test_the_studio_is_a_face_no_domain_app_imports():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "apps"
    importers = sorted(
        str(path.relative_to(root))
        for path in root.rglob("*.py")
        if "studio" not in path.relative_to(root).parts[:1]
        and re.search(
            r"^\s*(from apps\.studio|import apps\.studio|from apps import studio)", path.read_text(), re.M
        )
    )
    assert importers == []


def test_the_site_icon_is_ours_and_served_by_us():
    client = Client()
    assert client.get("/favicon.ico")["Location"] == "/static/cms/favicon.svg"
    icon = client.get("/static/cms/favicon.svg")
    assert icon.status_code == 200 and icon["Content-Type"] == "image/svg+xml"
