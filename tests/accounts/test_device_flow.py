"""The device flow (RFC 8628) over HTTP: device codes, the approval page, polling answers, single use."""

from __future__ import annotations

import hashlib
from datetime import timedelta
from urllib.parse import urlencode

import pytest
from django.test import Client, override_settings

from apps.accounts import oauth
from apps.accounts.authentication import authenticate_bearer
from apps.accounts.models import OAuthDeviceGrant, Role
from apps.core.timefmt import now
from tests.accounts.oauth_helpers import API, FORM, register_client, token_request
from tests.conftest import ApiClient
from tests.factories import make_user

DEVICE = "urn:ietf:params:oauth:grant-type:device_code"
BASE = "http://localhost:8000"


@pytest.fixture
def client_id(api) -> str:
    return register_client(
        api, grant_types=[DEVICE, "refresh_token"], redirect_uris=[], client_name="cms-cli"
    )


@pytest.fixture
def author():
    return make_user(Role.AUTHOR, email="author@example.com")


@pytest.fixture
def browser(author) -> Client:
    client = Client()
    client.force_login(author)
    return client


@pytest.fixture
def clock(monkeypatch):
    """The device poll's clock, moved by hand: ``clock.advance(seconds)``."""

    class Clock:
        current = now()

        def advance(self, seconds: float) -> None:
            self.current += timedelta(seconds=seconds)

    fake = Clock()
    monkeypatch.setattr(oauth, "now", lambda: fake.current)
    return fake


def device_code(api, client_id: str, **params) -> dict:
    response = api.post(
        f"{API}/oauth/device/code",
        urlencode({"client_id": client_id, **params}, doseq=True),
        content_type=FORM,
    )
    assert response.status_code == 200, response.json()
    return response.json()


def poll(api, client_id: str, code: str):
    return token_request(api, grant_type=DEVICE, client_id=client_id, device_code=code)


def approve(browser: Client, user_code: str, scopes=None, decision: str = "approve"):
    page = browser.get("/_cms/admin/device", {"user_code": user_code})
    assert page.status_code == 200, page.content
    form = {"user_code": user_code, "decision": decision}
    if scopes is not None:
        form["scope"] = scopes
    else:
        form["scope"] = [
            choice["scope"] for choice in page.context["scopes"] if choice["ticked"]
        ]  # as a browser
    return browser.post("/_cms/admin/device", form)


def test_device_authorization_answer(api, client_id):
    data = device_code(api, client_id, scope="content:read content:write")
    assert data == {
        "device_code": data["device_code"],
        "user_code": data["user_code"],
        "verification_uri": f"{BASE}/_cms/admin/device",
        "verification_uri_complete": f"{BASE}/_cms/admin/device?user_code={data['user_code']}",
        "expires_in": 900,
        "interval": 5,
    }
    assert len(data["user_code"]) == 9 and data["user_code"][4] == "-"
    grant = OAuthDeviceGrant.objects.get()
    assert grant.device_code == hashlib.sha256(data["device_code"].encode()).hexdigest()
    assert grant.scope == "content:read content:write" and grant.resource == []
    assert timedelta(minutes=14, seconds=55) < grant.expires - now() <= timedelta(minutes=15)


def test_the_whole_device_flow(api, client_id, browser, author, clock):
    data = device_code(api, client_id, scope="content:read content:write schema:read")
    pending = poll(api, client_id, data["device_code"])
    assert pending.status_code == 400
    assert pending.json() == {
        "error": "authorization_pending",
        "error_description": "The user has not approved this device yet.",
    }
    page = browser.get("/_cms/admin/device", {"user_code": data["user_code"]})
    html = page.content.decode()
    assert "cms-cli" in html and data["user_code"] in html
    # schema:read needs an editor: an author is not offered it.
    assert [choice["scope"] for choice in page.context["scopes"]] == ["content:read", "content:write"]
    assert "Your role cannot grant: schema:read." in html
    done = approve(browser, data["user_code"], scopes=["content:read"])
    assert done.status_code == 200 and "Device approved" in done.content.decode()

    clock.advance(5)
    response = poll(api, client_id, data["device_code"])
    assert response.status_code == 200
    tokens = response.json()
    assert tokens == {
        "access_token": tokens["access_token"],
        "expires_in": 3600,
        "token_type": "Bearer",
        "scope": "content:read",
        "refresh_token": tokens["refresh_token"],
    }
    me = ApiClient().as_token(tokens["access_token"]).get(f"{API}/auth/me")
    assert me.json()["data"]["user"]["id"] == author.pk
    refreshed = token_request(
        api, grant_type="refresh_token", client_id=client_id, refresh_token=tokens["refresh_token"]
    )
    assert refreshed.status_code == 200

    clock.advance(5)
    reused = poll(api, client_id, data["device_code"])
    assert reused.status_code == 400
    assert reused.json() == {
        "error": "invalid_grant",
        "error_description": "This device code was already exchanged for tokens.",
    }


def test_polling_too_fast_slows_the_device_down(api, client_id, clock):
    data = device_code(api, client_id)
    assert poll(api, client_id, data["device_code"]).json()["error"] == "authorization_pending"
    clock.advance(4)
    fast = poll(api, client_id, data["device_code"])
    assert fast.status_code == 400
    assert fast.json() == {
        "error": "slow_down",
        "error_description": "Polling too fast; wait at least 10 seconds between requests.",
    }
    clock.advance(9)
    assert poll(api, client_id, data["device_code"]).json()["error"] == "slow_down"  # 15 s now
    clock.advance(15)
    assert poll(api, client_id, data["device_code"]).json()["error"] == "authorization_pending"


def test_a_denied_device_gets_access_denied(api, client_id, browser, clock):
    data = device_code(api, client_id)
    denied = approve(browser, data["user_code"], decision="deny")
    assert "Device denied" in denied.content.decode()
    response = poll(api, client_id, data["device_code"])
    assert response.status_code == 400
    assert response.json() == {"error": "access_denied", "error_description": "The user denied this device."}


def test_device_codes_expire_after_fifteen_minutes(api, client_id, browser, clock):
    data = device_code(api, client_id)
    clock.advance(15 * 60 + 1)
    response = poll(api, client_id, data["device_code"])
    assert response.json() == {
        "error": "expired_token",
        "error_description": "The device code expired; start again with a new one.",
    }
    OAuthDeviceGrant.objects.update(expires=now() - timedelta(seconds=1))
    page = browser.get("/_cms/admin/device", {"user_code": data["user_code"]})
    assert page.status_code == 400
    assert "This code has expired" in page.content.decode()


def test_a_device_code_belongs_to_its_client(api, client_id, browser, clock):
    data = device_code(api, client_id)
    approve(browser, data["user_code"])
    other = register_client(api, grant_types=[DEVICE], redirect_uris=[])
    clock.advance(5)
    response = poll(api, other, data["device_code"])
    assert response.json() == {
        "error": "invalid_grant",
        "error_description": "Unknown device code for this client.",
    }
    assert poll(api, client_id, "made-up").json()["error"] == "invalid_grant"


def test_a_user_code_is_used_once(api, client_id, browser):
    data = device_code(api, client_id)
    approve(browser, data["user_code"])
    again = browser.get("/_cms/admin/device", {"user_code": data["user_code"]})
    assert again.status_code == 400
    assert "already been approved or denied" in again.content.decode()


def test_user_codes_are_typed_loosely(api, client_id, browser):
    data = device_code(api, client_id)
    typed = data["user_code"].replace("-", " ").lower()
    page = browser.get("/_cms/admin/device", {"user_code": typed})
    assert page.status_code == 200 and page.context["stage"] == "confirm"


def test_device_flow_refusals(api, client_id):
    code_only = register_client(api)  # authorization_code only
    cases = [
        (
            {"client_id": code_only},
            400,
            "unauthorized_client",
            "This client is not registered for the device flow.",
        ),
        ({"client_id": "nope"}, 401, "invalid_client", "Unknown client_id."),
        ({}, 400, "invalid_request", "client_id is required."),
        (
            {"client_id": client_id, "scope": "openid"},
            400,
            "invalid_scope",
            "None of the requested scopes can be granted.",
        ),
        (
            {"client_id": client_id, "resource": "https://other.example/"},
            400,
            "invalid_target",
            f"Unknown resource; this server issues tokens for {BASE}/_cms/api and {BASE}/_cms/api/mcp.",
        ),
    ]
    for params, status, error, description in cases:
        response = api.post(f"{API}/oauth/device/code", urlencode(params), content_type=FORM)
        assert response.status_code == status, params
        assert response.json() == {"error": error, "error_description": description}


def test_a_device_token_can_be_bound_to_the_mcp_resource(api, client_id, browser, clock):
    data = device_code(api, client_id, resource=f"{BASE}/_cms/api/mcp")
    approve(browser, data["user_code"])
    clock.advance(5)
    tokens = poll(api, client_id, data["device_code"]).json()
    assert authenticate_bearer(tokens["access_token"], resource=oauth.mcp_resource()).via == "oauth"
    assert ApiClient().as_token(tokens["access_token"]).get(f"{API}/auth/me").status_code == 401


def test_the_approval_page_needs_a_signed_in_user(client):
    response = client.get("/_cms/admin/device", {"user_code": "ABCD-EFGH"})
    assert response.status_code == 302
    assert response["Location"].startswith("/_cms/admin/login?next=")


def test_approving_without_any_scope_is_refused(api, client_id, browser):
    data = device_code(api, client_id)
    response = browser.post("/_cms/admin/device", {"user_code": data["user_code"], "decision": "approve"})
    assert response.status_code == 400
    assert "Choose at least one of the offered scopes" in response.content.decode()
    assert OAuthDeviceGrant.objects.get().status == "authorization-pending"


@override_settings(CMS_RATE_LIMITS={"api": "1200/m", "auth": "1/m", "magic_link_address": "5/15m"})
def test_guessing_user_codes_is_limited_with_retry_after(browser):
    assert browser.get("/_cms/admin/device", {"user_code": "AAAA-AAAA"}).status_code == 400
    limited = browser.get("/_cms/admin/device", {"user_code": "AAAA-AAAB"})
    assert limited.status_code == 429
    assert 1 <= int(limited["Retry-After"]) <= 60
    assert limited["Content-Security-Policy"].startswith("default-src 'self'")
    message = f"Too many requests; retry in {limited['Retry-After']} seconds."
    assert f'<p class="error" role="alert">{message}</p>' in limited.content.decode()


def test_a_device_token_asked_for_without_a_resource_works_on_the_rest_api_and_the_tool_server(
    api, client_id, browser, clock
):
    from tests.mcp.wire import McpClient

    data = device_code(api, client_id)
    approve(browser, data["user_code"])
    clock.advance(5)
    tokens = poll(api, client_id, data["device_code"]).json()
    me = ApiClient().as_token(tokens["access_token"]).get(f"{API}/auth/me")
    assert me.status_code == 200
    assert me.json()["data"]["user"]["email"] == "author@example.com"
    listed = McpClient(tokens["access_token"]).request("tools/list")
    assert "content_list" in {tool["name"] for tool in listed["result"]["tools"]}
    # Refreshed, it keeps both.
    clock.advance(5)
    refreshed = token_request(
        api, grant_type="refresh_token", client_id=client_id, refresh_token=tokens["refresh_token"]
    ).json()
    assert McpClient(refreshed["access_token"]).request("ping")["result"] == {}


def test_a_device_token_asked_for_the_rest_api_only_is_refused_by_the_tool_server_with_how_to_ask(
    api, client_id, browser, clock
):
    from tests.mcp.wire import McpClient

    data = device_code(api, client_id, resource=f"{BASE}/_cms/api")
    approve(browser, data["user_code"])
    clock.advance(5)
    tokens = poll(api, client_id, data["device_code"]).json()
    response = McpClient(tokens["access_token"]).post({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert response.status_code == 401
    assert response.json() == {
        "jsonrpc": "2.0",
        "id": 1,
        "error": {
            "code": -32600,
            "message": f"This token was issued for {BASE}/_cms/api, not for {BASE}/_cms/api/mcp; request a token "
            f"with resource={BASE}/_cms/api/mcp.",
        },
    }
