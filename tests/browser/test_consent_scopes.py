"""Least privilege on the OAuth consent page, as a person sees and uses it: what the client asked for is ticked except
`schema:write` and `admin`, which carry a plain warning (announced as the checkbox's description) and are given only
when the person ticks them, here with the keyboard alone."""

from __future__ import annotations

from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
import requests
from playwright.sync_api import expect

from apps.accounts.models import Role
from tests.accounts.oauth_helpers import pkce

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_the_consent_page_leaves_schema_write_and_admin_to_a_deliberate_tick(studio_browser, base_url):
    owner = studio_browser(Role.ADMIN)
    page = owner.page
    # A loopback address the server itself answers (with a 404): the code is read from the URL the browser reaches.
    callback = f"{base_url}/agent-callback"
    registered = requests.post(
        f"{base_url}/_cms/api/oauth/register",
        json={
            "client_name": "Agent",
            "redirect_uris": [callback],
            "token_endpoint_auth_method": "none",
            "scope": "content:read content:write schema:write admin",
        },
        timeout=10,
    )
    assert registered.status_code == 201
    client_id = registered.json()["client_id"]
    verifier, challenge = pkce()
    query = urlencode(
        {
            "response_type": "code",
            "client_id": client_id,
            "redirect_uri": callback,
            "scope": "content:read content:write schema:write admin",
            "state": "s1",
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "resource": f"{base_url}/_cms/api/mcp",
        }
    )
    page.goto(f"/_cms/oauth/authorize?{query}")
    expect(page.get_by_role("heading", name="Allow Agent to use your account?")).to_be_visible()
    expect(page.get_by_role("checkbox", name="content:read")).to_be_checked()
    expect(page.get_by_role("checkbox", name="content:write")).to_be_checked()
    schema_write = page.get_by_role("checkbox", name="schema:write")
    admin = page.get_by_role("checkbox", name="admin")
    expect(schema_write).not_to_be_checked()
    expect(admin).not_to_be_checked()
    expect(schema_write).to_have_accessible_description(
        "Warning: It can delete collections and fields, and the content in them. It is not ticked for you; tick it "
        "only if you mean to give it."
    )
    expect(admin).to_have_accessible_description(
        "Warning: It can do everything your role allows, including creating tokens and inviting people. It is not "
        "ticked for you; tick it only if you mean to give it."
    )
    expect(page.locator("p.warning")).to_have_count(2)
    owner.check("oauth-consent-deliberate-scopes", mobile=True)

    # With the keyboard only: from content:write, Tab reaches schema:write, then admin; Space ticks admin.
    page.get_by_role("checkbox", name="content:write").focus()
    page.keyboard.press("Tab")
    expect(schema_write).to_be_focused()
    page.keyboard.press("Tab")
    expect(admin).to_be_focused()
    page.keyboard.press("Space")
    expect(admin).to_be_checked()
    page.get_by_role("button", name="Allow").focus()
    page.keyboard.press("Enter")
    page.wait_for_url(f"{callback}?**")
    returned = {key: values[0] for key, values in parse_qs(urlsplit(page.url).query).items()}
    tokens = requests.post(
        f"{base_url}/_cms/api/oauth/token",
        data={
            "grant_type": "authorization_code",
            "client_id": client_id,
            "code": returned["code"],
            "code_verifier": verifier,
            "redirect_uri": callback,
            "resource": f"{base_url}/_cms/api/mcp",
        },
        timeout=10,
    )
    assert tokens.status_code == 200
    assert tokens.json()["scope"] == "content:read content:write admin"
