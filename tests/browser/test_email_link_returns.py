"""Signing in by email link from an OAuth consent or device page, as `make run`'s admin (no passkey) does when an MCP
client first connects: the link brings the person back to the page they started from."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
import requests
from django.core import mail as django_mail
from playwright.sync_api import expect

from apps.accounts import mail
from apps.accounts.models import Passkey, Role
from tests.accounts.oauth_helpers import pkce
from tests.factories import make_user

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Never reached: the browser's navigation is answered by a route below.
CALLBACK = "http://127.0.0.1:9/callback"
DEVICE = "urn:ietf:params:oauth:grant-type:device_code"


@pytest.fixture
def admin():
    user = make_user(Role.ADMIN, email="owner@example.com")
    assert not Passkey.objects.filter(user=user).exists()
    return user


def sign_in_by_email(page, email: str) -> None:
    """On the login page: ask for a link, then open it and press the button, as the person would from their mail."""
    page.get_by_label("Email address").fill(email)
    page.get_by_role("button", name="Email me a sign-in link").click()
    expect(page.get_by_role("heading", name="Check your email")).to_be_visible()
    mail.wait()
    link = re.search(r"https?://\S+/magic-link/verify\?token=\S+", django_mail.outbox[-1].body).group(0)
    page.goto(link)
    expect(page.get_by_text(f"Sign in as {email}?")).to_be_visible()
    # Nobody is signed in yet: the header names no one and offers no sign-out.
    assert page.get_by_role("link", name=email).count() == 0
    assert page.get_by_role("button", name="Sign out").count() == 0
    page.get_by_role("button", name="Sign in").click()


def test_an_email_link_returns_to_the_oauth_consent_page(browser, base_url, admin):
    registered = requests.post(
        f"{base_url}/_cms/api/oauth/register",
        json={"client_name": "Agent", "redirect_uris": [CALLBACK], "token_endpoint_auth_method": "none"},
        timeout=10,
    )
    assert registered.status_code == 201
    client_id = registered.json()["client_id"]
    _, challenge = pkce()
    query = urlencode(
        {
            "response_type": "code",
            "client_id": client_id,
            "redirect_uri": CALLBACK,
            "scope": "content:read",
            "state": "s1",
            "code_challenge": challenge,
            "code_challenge_method": "S256",
        }
    )
    page = browser.page
    page.route("http://127.0.0.1:9/**", lambda route: route.fulfill(status=200, body="signed in"))
    page.goto(f"/_cms/oauth/authorize?{query}")
    page.wait_for_url("**/_cms/admin/login?next=**")

    sign_in_by_email(page, admin.email)

    page.wait_for_url(f"**/_cms/oauth/authorize?{query}")
    expect(page.get_by_role("heading", name="Allow Agent to use your account?")).to_be_visible()
    page.get_by_role("button", name="Allow").click()
    page.wait_for_url(f"{CALLBACK}?**")
    returned = {key: values[0] for key, values in parse_qs(urlsplit(page.url).query).items()}
    assert returned["state"] == "s1" and returned["code"]


def test_an_email_link_returns_to_the_device_page(browser, base_url, admin):
    client_id = requests.post(
        f"{base_url}/_cms/api/oauth/register",
        json={"client_name": "cms-cli", "grant_types": [DEVICE], "token_endpoint_auth_method": "none"},
        timeout=10,
    ).json()["client_id"]
    codes = requests.post(
        f"{base_url}/_cms/api/oauth/device/code",
        data={"client_id": client_id, "scope": "content:read"},
        timeout=10,
    ).json()
    page = browser.page
    page.goto(codes["verification_uri_complete"])
    page.wait_for_url("**/_cms/admin/login?next=**")

    sign_in_by_email(page, admin.email)

    page.wait_for_url(codes["verification_uri_complete"])
    expect(page.get_by_text(codes["user_code"]).first).to_be_visible()
    page.get_by_role("button", name="Approve").click()
    expect(page.get_by_text("Device approved. You can return to your device.")).to_be_visible()
    polled = requests.post(
        f"{base_url}/_cms/api/oauth/token",
        data={"grant_type": DEVICE, "client_id": client_id, "device_code": codes["device_code"]},
        timeout=10,
    )
    assert polled.status_code == 200 and polled.json()["scope"] == "content:read"
