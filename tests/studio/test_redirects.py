"""The studio's redirect editing without a browser: the form holds the redirect, a change goes through the redirect
service (checked as the API checks it) and only roles that may write redirects get the page."""

from __future__ import annotations

import pytest
from django.test import Client

from apps.accounts.models import Role
from apps.accounts.permissions import Actor
from apps.delivery import services
from apps.delivery.models import Redirect
from tests.factories import make_user

pytestmark = pytest.mark.django_db
PAGES = "/_cms/admin/redirects/"


def signed_in(role: int) -> Client:
    client = Client()
    client.force_login(make_user(role, email=f"redirects{role}@example.com"))
    return client


@pytest.fixture
def old():
    return services.redirect_create(actor=Actor.system(), source="/old", location="/new")


def test_an_editor_changes_a_redirect_and_a_chain_still_collapses(old):
    services.redirect_create(actor=Actor.system(), source="/moved", location="/final")
    editor = signed_in(Role.EDITOR)
    form = editor.get(f"{PAGES}{old.pk}/")
    assert form.status_code == 200
    assert 'value="/new"' in form.content.decode()
    # Pointed at a path that itself redirects: it goes straight to where that one leads.
    saved = editor.post(f"{PAGES}{old.pk}/", {"source": "/old", "location": "/moved", "status": "308"})
    assert saved.status_code == 302
    assert dict(Redirect.objects.values_list("source", "location")) == {"/old": "/final", "/moved": "/final"}
    assert Redirect.objects.get(pk=old.pk).status == 308


def test_a_refused_change_keeps_what_was_typed_and_changes_nothing(old):
    editor = signed_in(Role.EDITOR)
    refused = editor.post(f"{PAGES}{old.pk}/", {"source": "/old", "location": "/new", "status": "303"})
    assert refused.status_code == 400
    body = refused.content.decode()
    assert '<p class="error" id="r-status-error">One of 301, 302, 307, 308.</p>' in body
    assert 'aria-describedby="r-status-hint r-status-error" aria-invalid="true"' in body
    assert Redirect.objects.values_list("location", "status").get() == ("/new", 301)


@pytest.mark.parametrize("role", [Role.AUTHOR, Role.CONTRIBUTOR])
def test_roles_below_editor_do_not_get_the_page(old, role):
    client = signed_in(role)
    assert client.get(f"{PAGES}{old.pk}/").status_code == 403
    assert (
        client.post(f"{PAGES}{old.pk}/", {"source": "/x", "location": "/y", "status": "301"}).status_code
        == 403
    )
    assert Redirect.objects.values_list("source", "location").get() == ("/old", "/new")


def test_an_unknown_redirect_is_not_found():
    assert signed_in(Role.EDITOR).get(f"{PAGES}01M8CDW1X16B7YAVTWVHAQEJYD/").status_code == 404
