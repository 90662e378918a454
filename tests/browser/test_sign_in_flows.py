"""The issue's "done when", in real Chromium: set up the first admin with a passkey, create an API token on the account
page, sign out, sign in with the passkey, approve an OAuth consent (then PKCE, token and refresh with a plain HTTP
client) and a device code; accept an invitation with a passkey; use a magic link."""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
import requests
from django.core import mail as django_mail
from playwright.sync_api import expect

from apps.accounts import mail
from apps.accounts.models import Role, User
from tests.factories import make_token, make_user

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CALLBACK = (
    "http://127.0.0.1:9/callback"  # never reached: the browser's navigation is answered by a route below
)
DEVICE = "urn:ietf:params:oauth:grant-type:device_code"


def api(base_url: str) -> str:
    return f"{base_url}/_cms/api"


def test_setup_sign_in_tokens_consent_and_device(browser, base_url):
    page = browser.page

    # The first visitor creates the admin with a passkey.
    page.goto("/_cms/admin/setup")
    page.get_by_label("Email address").fill("owner@example.com")
    page.get_by_label("Your name").fill("Owner")
    page.get_by_label("Name for this passkey").fill("Laptop")
    page.get_by_role("button", name="Create administrator with a passkey").click()
    page.wait_for_url("**/_cms/admin/")
    expect(page.get_by_role("heading", name="Dashboard")).to_be_visible()
    page.get_by_role("link", name="Account").click()
    expect(page.get_by_role("heading", name="Your account")).to_be_visible()
    expect(page.get_by_role("cell", name="Laptop", exact=True)).to_be_visible()
    assert len(browser.credentials()) == 1
    closed = requests.get(f"{base_url}/_cms/admin/setup", allow_redirects=False, timeout=10)
    assert (closed.status_code, closed.headers["Location"]) == (302, "/_cms/admin/login")  # setup is over

    # An API token from the account page works against the API.
    page.goto("/_cms/admin/account")
    page.get_by_label("Name", exact=True).fill("site build")
    page.get_by_label("content:read").check()
    page.get_by_role("button", name="Create token").click()
    token = page.get_by_label("Token", exact=True).input_value()
    assert re.fullmatch(r"ec_pat_[A-Za-z0-9_-]{43}", token)
    me = requests.get(f"{api(base_url)}/auth/me", headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert me.status_code == 200 and me.json()["data"]["scopes"] == ["content:read"]

    # Sign out, then back in with the passkey.
    page.get_by_role("button", name="Sign out").click()
    page.wait_for_url("**/_cms/admin/login")
    page.get_by_role("button", name="Sign in with a passkey").click()
    page.wait_for_url("**/_cms/admin/")
    expect(page.get_by_role("link", name="owner@example.com")).to_be_visible()

    # OAuth: a client registers itself, the user narrows the scopes and approves, the client uses PKCE.
    registered = requests.post(
        f"{api(base_url)}/oauth/register",
        json={"client_name": "Desk app", "redirect_uris": [CALLBACK], "token_endpoint_auth_method": "none"},
        timeout=10,
    )
    assert registered.status_code == 201
    client_id = registered.json()["client_id"]
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    page.route("http://127.0.0.1:9/**", lambda route: route.fulfill(status=200, body="signed in"))
    query = urlencode(
        {
            "response_type": "code",
            "client_id": client_id,
            "redirect_uri": CALLBACK,
            "scope": "content:read content:write",
            "state": "s1",
            "code_challenge": challenge,
            "code_challenge_method": "S256",
        }
    )
    page.goto(f"/_cms/oauth/authorize?{query}")
    expect(page.get_by_role("heading", name="Allow Desk app to use your account?")).to_be_visible()
    page.get_by_label("content:write").uncheck()
    page.get_by_role("button", name="Allow").click()
    page.wait_for_url(f"{CALLBACK}?**")
    returned = {key: values[0] for key, values in parse_qs(urlsplit(page.url).query).items()}
    assert returned["state"] == "s1" and returned["iss"] == f"{base_url}/_cms"
    tokens = requests.post(
        f"{api(base_url)}/oauth/token",
        data={
            "grant_type": "authorization_code",
            "client_id": client_id,
            "code": returned["code"],
            "code_verifier": verifier,
            "redirect_uri": CALLBACK,
        },
        timeout=10,
    )
    assert tokens.status_code == 200 and tokens.json()["scope"] == "content:read"
    refreshed = requests.post(
        f"{api(base_url)}/oauth/token",
        data={
            "grant_type": "refresh_token",
            "client_id": client_id,
            "refresh_token": tokens.json()["refresh_token"],
        },
        timeout=10,
    )
    assert refreshed.status_code == 200
    access = refreshed.json()["access_token"]
    me = requests.get(f"{api(base_url)}/auth/me", headers={"Authorization": f"Bearer {access}"}, timeout=10)
    assert me.status_code == 200 and me.json()["data"]["authenticatedBy"] == "oauth"

    # The device flow: the device asks for a code, the user approves it in the browser, the device gets tokens.
    device_client = requests.post(
        f"{api(base_url)}/oauth/register",
        json={
            "client_name": "cms-cli",
            "grant_types": [DEVICE, "refresh_token"],
            "token_endpoint_auth_method": "none",
        },
        timeout=10,
    ).json()["client_id"]
    codes = requests.post(
        f"{api(base_url)}/oauth/device/code",
        data={"client_id": device_client, "scope": "content:read"},
        timeout=10,
    ).json()
    page.goto(codes["verification_uri_complete"])
    expect(page.get_by_text(codes["user_code"]).first).to_be_visible()
    page.get_by_role("button", name="Approve").click()
    expect(page.get_by_text("Device approved. You can return to your device.")).to_be_visible()
    polled = requests.post(
        f"{api(base_url)}/oauth/token",
        data={"grant_type": DEVICE, "client_id": device_client, "device_code": codes["device_code"]},
        timeout=10,
    )
    assert polled.status_code == 200 and polled.json()["scope"] == "content:read"


def test_accepting_an_invitation_with_a_passkey(browser, base_url):
    admin = make_user(Role.ADMIN, email="boss@example.com")
    _, raw = make_token(admin, ["admin"])
    invited = requests.post(
        f"{api(base_url)}/auth/invite",
        json={"email": "newcomer@example.com", "role": 40},
        headers={"Authorization": f"Bearer {raw}"},
        timeout=10,
    )
    assert invited.status_code == 201
    page = browser.page
    page.goto(invited.json()["data"]["url"])
    expect(page.get_by_text("as editor with the address newcomer@example.com")).to_be_visible()
    page.get_by_label("Your name").first.fill("Newcomer")
    page.get_by_role("button", name="Accept and create a passkey").click()
    page.wait_for_url("**/_cms/admin/")
    expect(page.get_by_role("heading", name="Dashboard")).to_be_visible()
    page.goto("/_cms/admin/account")
    expect(page.get_by_text("editor (40)")).to_be_visible()
    assert User.objects.get(email="newcomer@example.com").name == "Newcomer"


def test_signing_in_with_a_magic_link(browser, base_url):
    make_user(Role.AUTHOR, email="writer@example.com")
    page = browser.page
    page.goto("/_cms/admin/login")
    page.get_by_label("Email address").fill("writer@example.com")
    page.get_by_role("button", name="Email me a sign-in link").click()
    expect(page.get_by_role("heading", name="Check your email")).to_be_visible()
    mail.wait()
    link = re.search(r"https?://\S+/magic-link/verify\?token=\S+", django_mail.outbox[-1].body).group(0)
    page.goto(link)
    expect(page.get_by_text("Sign in as writer@example.com?")).to_be_visible()
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/_cms/admin/")
    expect(page.get_by_role("link", name="writer@example.com")).to_be_visible()
    page.goto(link)
    expect(page.get_by_text("This sign-in link has already been used.")).to_be_visible()
