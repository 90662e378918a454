"""The webhooks page under Administration in real Chromium, with the checks of tests/browser/studio.py (axe, console,
CSP): creating an endpoint shows its secret once, the deliveries show each attempt's answer, a failed delivery is
redelivered, and a disabled endpoint says why. The worker's pass runs in-process against a receiver on 127.0.0.1."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from apps.accounts.models import Role
from apps.webhooks import delivery
from apps.webhooks.models import Endpoint
from tests.factories import make_collection, make_entry, make_user
from tests.webhooks.conftest import Receiver, run_worker, signature_valid

pytestmark = [pytest.mark.browser, pytest.mark.slow]

STUDIO = "/_cms/admin/"


@pytest.fixture
def owner(transactional_db):
    return make_user(Role.ADMIN, email="owner@example.com", name="Olive Owner")


@pytest.fixture
def hooks_receiver(settings):
    settings.CMS_WEBHOOK_ALLOWED_HOSTS = ["127.0.0.1"]
    settings.CMS_WEBHOOK_MAX_ATTEMPTS = 1
    found = Receiver()
    found.start()
    yield found
    found.stop()


def test_create_see_deliveries_and_redeliver(studio_browser, owner, hooks_receiver):
    posts = make_collection("posts", fields=[{"slug": "title", "type": "string"}])
    me = studio_browser(user=owner)
    page = me.page
    page.goto(STUDIO)
    page.get_by_role("navigation", name="Studio").get_by_role("link", name="Webhooks", exact=True).click()
    expect(page.get_by_role("heading", name="Webhooks", level=1)).to_be_visible()
    me.check("webhooks-empty")

    page.get_by_role("link", name="New endpoint").click()
    page.get_by_label("URL").fill("not a url")
    page.get_by_role("button", name="Create endpoint").click()
    expect(page.locator("#webhook-url-error")).to_have_text(
        "An http or https URL with a host, e.g. https://example.com/hooks/cms."
    )
    me.check("webhook-form-error", allow=(r"status of 400 \(Bad Request\)",))
    page.get_by_label("URL").fill(hooks_receiver.url)
    page.get_by_label("Description").fill("Rebuild the site")
    page.get_by_label("Event types").fill("entry.*")
    page.get_by_role("checkbox", name="posts").check()
    page.get_by_role("button", name="Create endpoint").click()
    expect(page.get_by_role("heading", name="Created the webhook endpoint")).to_be_visible()
    secret = page.get_by_label("Signing secret").input_value()
    assert secret.startswith("whsec_")
    me.check("webhook-secret", mobile=True)
    page.get_by_role("link", name="Done").click()
    expect(page.get_by_role("heading", name="Webhook endpoint", level=1)).to_be_visible()
    expect(page.get_by_text(secret)).to_have_count(0)
    me.check("webhook-edit", mobile=True)

    hooks_receiver.status = 503
    hooks_receiver.answer = b'{"error": "rebuild already running"}'
    make_entry(posts, {"title": "First"})
    run_worker()
    page.get_by_role("link", name="Deliveries").first.click()
    expect(page.get_by_role("heading", name="Deliveries", level=1)).to_be_visible()
    expect(page.get_by_text('{"error": "rebuild already running"}')).to_be_visible()
    expect(page.get_by_text("The receiver answered 503.")).to_be_visible()
    me.check("webhook-deliveries", mobile=True, doc="webhooks")

    hooks_receiver.status = 204
    page.get_by_role("button", name="Redeliver").click()
    expect(page.get_by_role("status")).to_contain_text("Queued the event entry.created to be sent again.")
    run_worker()
    page.reload()
    expect(page.locator(".badge", has_text="delivered")).to_be_visible()
    me.check("webhook-redelivered")
    assert signature_valid(secret, *hooks_receiver.requests[-1])

    delivery.disable(
        Endpoint.objects.get(), reason="Disabled automatically after 20 failed attempts in a row."
    )
    page.goto(page.url.replace("deliveries/", ""))
    expect(page.get_by_text("Disabled automatically after 20 failed attempts in a row.")).to_be_visible()
    me.check("webhook-disabled")


def test_editors_do_not_reach_the_page(studio_browser, transactional_db):
    me = studio_browser(Role.EDITOR)
    page = me.page
    page.goto(STUDIO)
    expect(page.get_by_role("navigation", name="Studio").get_by_role("link", name="Webhooks")).to_have_count(
        0
    )
    response = page.goto(STUDIO + "webhooks/")
    assert response.status == 403
    me.check("webhooks-forbidden", allow=(r"status of 403 \(Forbidden\)",))
