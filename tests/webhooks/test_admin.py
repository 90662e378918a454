"""The webhooks in the Django admin (the operators' console): endpoints, events and deliveries are listed and shown
without the secret; turning an endpoint off and on and redelivering go through the webhook services."""

from __future__ import annotations

import pytest
from django.test import Client

from apps.accounts.models import Role
from apps.webhooks.models import Delivery, Endpoint, Event
from tests.factories import make_entry, make_user
from tests.webhooks.conftest import create_endpoint, run_worker


@pytest.fixture
def console():
    client = Client()
    client.force_login(make_user(Role.ADMIN))
    return client


@pytest.fixture
def delivered(admin_api, posts_collection, receiver):
    hook = create_endpoint(admin_api, receiver.url)
    make_entry(posts_collection, {"title": "Sent"})
    assert run_worker() == 1
    return hook


def test_endpoints_events_and_deliveries_are_shown_without_the_secret(console, delivered):
    endpoint = Endpoint.objects.get()
    delivery = Delivery.objects.get()
    pages = [
        "/django-admin/webhooks/endpoint/",
        f"/django-admin/webhooks/endpoint/{endpoint.pk}/change/",
        "/django-admin/webhooks/event/",
        f"/django-admin/webhooks/event/{Event.objects.get().pk}/change/",
        "/django-admin/webhooks/delivery/",
        f"/django-admin/webhooks/delivery/{delivery.pk}/change/",
    ]
    for page in pages:
        response = console.get(page)
        assert response.status_code == 200, page
        assert endpoint.secret not in response.content.decode()
    # The attempt is shown with its delivery; endpoints are created where the secret can be shown once.
    assert "204" in console.get(pages[-1]).content.decode()
    assert console.get("/django-admin/webhooks/endpoint/add/").status_code == 403
    assert console.get("/django-admin/webhooks/delivery/add/").status_code == 403


def test_turning_off_and_on_and_redelivering_go_through_the_services(console, delivered, receiver):
    endpoint = Endpoint.objects.get()
    off = console.post(
        "/django-admin/webhooks/endpoint/", {"action": "turn_off", "_selected_action": [endpoint.pk]}
    )
    assert off.status_code == 302
    endpoint.refresh_from_db()
    assert (endpoint.active, endpoint.disabled_reason) == (False, "Turned off by an administrator.")
    delivery = Delivery.objects.get()
    refused = console.post(
        "/django-admin/webhooks/delivery/",
        {"action": "redeliver", "_selected_action": [delivery.pk]},
        follow=True,
    )
    assert "is disabled; turn it on again (active: true) to redeliver." in refused.content.decode()
    assert Delivery.objects.count() == 1
    console.post("/django-admin/webhooks/endpoint/", {"action": "turn_on", "_selected_action": [endpoint.pk]})
    endpoint.refresh_from_db()
    assert (endpoint.active, endpoint.disabled_reason) == (True, "")
    again = console.post(
        "/django-admin/webhooks/delivery/",
        {"action": "redeliver", "_selected_action": [delivery.pk]},
        follow=True,
    )
    assert "Redelivered: 1 done." in again.content.decode()
    assert run_worker() == 1
    assert len(receiver.requests) == 2
    assert len({headers["webhook-id"] for headers, _ in receiver.requests}) == 1


def test_deleting_an_endpoint_takes_its_deliveries(console, delivered):
    endpoint = Endpoint.objects.get()
    response = console.post(f"/django-admin/webhooks/endpoint/{endpoint.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert (Endpoint.objects.count(), Delivery.objects.count()) == (0, 0)
