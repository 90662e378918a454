"""Redirects in the Django admin go through the redirect services: chains collapse, loops are refused on the form."""

from __future__ import annotations

import pytest
from django.test import Client

from apps.accounts.models import Role
from apps.delivery.models import Redirect
from tests.factories import make_user


@pytest.fixture
def console():
    client = Client()
    client.force_login(make_user(Role.ADMIN))
    return client


def add(console, source: str, location: str, status: int = 301):
    return console.post(
        "/django-admin/delivery/redirect/add/", {"source": source, "location": location, "status": status}
    )


def test_redirects_are_added_changed_and_deleted_through_the_services(console):
    assert add(console, "/old", "/new").status_code == 302
    assert add(console, "/older", "/old").status_code == 302
    # The chain /older → /old → /new collapsed to /older → /new.
    assert dict(Redirect.objects.values_list("source", "location")) == {"/old": "/new", "/older": "/new"}
    refused = add(console, "/new", "/older")
    assert refused.status_code == 200
    assert "would make a loop" in refused.content.decode()
    assert Redirect.objects.count() == 2
    old = Redirect.objects.get(source="/old")
    assert console.get("/django-admin/delivery/redirect/").status_code == 200
    changed = console.post(
        f"/django-admin/delivery/redirect/{old.pk}/change/",
        {"source": "/old", "location": "/newer", "status": 302},
    )
    assert changed.status_code == 302
    assert Redirect.objects.filter(source="/old").values_list("location", "status").get() == ("/newer", 302)
    deleted = console.post(f"/django-admin/delivery/redirect/{old.pk}/delete/", {"post": "yes"})
    assert deleted.status_code == 302
    assert list(Redirect.objects.values_list("source", flat=True)) == ["/older"]
