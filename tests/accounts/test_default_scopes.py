"""Least privilege for agents: the 401 challenges, registration and authorization requests without `scope` name the
default set (no `admin`, no `schema:write`), and the consent and device pages tick those two only if the user does."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest
from django.test import Client

from apps.accounts.models import OAuthDeviceGrant, Role
from tests.accounts.oauth_helpers import (
    API,
    AUTHORIZE,
    FORM,
    authorize_params,
    consent,
    exchange,
    pkce,
    redirect_query,
    register_client,
)
from tests.factories import make_user

DEFAULT = "content:read content:write media:read media:write schema:read"
DEVICE = "urn:ietf:params:oauth:grant-type:device_code"


@pytest.fixture
def admin_browser() -> Client:
    client = Client()
    client.force_login(make_user(Role.ADMIN, email="owner@example.com"))
    return client


def fieldset(html: str) -> str:
    return re.sub(
        r"\s+", " ", html[html.index("<fieldset>") : html.index("</fieldset>") + len("</fieldset>")]
    )


def test_the_rest_challenge_names_the_default_scopes(api):
    response = api.get(f"{API}/auth/me")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == f'Bearer realm="cms", scope="{DEFAULT}"'


def test_registration_without_scope_gets_the_default(api):
    response = api.post(
        f"{API}/oauth/register",
        {"redirect_uris": ["http://127.0.0.1:1/cb"], "token_endpoint_auth_method": "none"},
        format="json",
    )
    assert response.status_code == 201
    assert response.json()["scope"] == DEFAULT


def test_an_authorization_request_without_scope_gets_the_default(api, admin_browser):
    client_id = register_client(api, scope="content:read schema:read schema:write admin")
    verifier, challenge = pkce()
    params = authorize_params(client_id, challenge, scope=None)
    page = admin_browser.get(AUTHORIZE, params)
    assert page.status_code == 200
    assert page.context["form"].initial["scope"] == ["content:read", "schema:read"]
    code = redirect_query(consent(admin_browser, params))["code"]
    assert exchange(api, client_id, code, verifier).json()["scope"] == "content:read schema:read"


def test_the_consent_page_leaves_admin_and_schema_write_for_the_user_to_tick(api, admin_browser):
    client_id = register_client(api, scope="content:read schema:write admin")
    verifier, challenge = pkce()
    params = authorize_params(client_id, challenge, scope="content:read schema:write admin")
    page = admin_browser.get(AUTHORIZE, params)
    assert page.status_code == 200
    assert page.context["form"].initial["scope"] == ["content:read"]
    assert fieldset(page.content.decode()) == (
        "<fieldset> <legend>It asks for these permissions. Untick any you do not want to give.</legend> "
        '<label class="check"><input type="checkbox" name="scope" value="content:read" checked> '
        "<span><strong>content:read</strong>: Read content: list, get, compare and search entries; list taxonomy "
        "terms and menus</span></label> "
        '<label class="check"><input type="checkbox" name="scope" value="schema:write" '
        'aria-describedby="scope-warning-2"> <span><strong>schema:write</strong>: Create and delete collections '
        'and fields</span></label> <p class="warning" id="scope-warning-2">Warning: It can delete collections and fields, and '
        "the content in them. It is not ticked for you; tick it only if you mean to give it.</p> "
        '<label class="check"><input type="checkbox" name="scope" value="admin" aria-describedby="scope-warning-3"> '
        "<span><strong>admin</strong>: Full access to every operation your role allows</span></label> "
        '<p class="warning" id="scope-warning-3">Warning: It can do everything your role allows, including creating '
        "tokens and inviting people. It is not ticked for you; tick it only if you mean to give it.</p> </fieldset>"
    )
    # Approving as the page stands grants what was ticked; the user can still tick admin deliberately.
    code = redirect_query(consent(admin_browser, params))["code"]
    assert exchange(api, client_id, code, verifier).json()["scope"] == "content:read"
    verifier, challenge = pkce()
    params = authorize_params(client_id, challenge, scope="content:read admin")
    code = redirect_query(consent(admin_browser, params, scopes=["content:read", "admin"]))["code"]
    assert exchange(api, client_id, code, verifier).json()["scope"] == "content:read admin"


def device_page(api, admin_browser, **params):
    client_id = register_client(api, grant_types=[DEVICE], redirect_uris=[], **params.pop("client", {}))
    codes = api.post(
        f"{API}/oauth/device/code", urlencode({"client_id": client_id, **params}), content_type=FORM
    ).json()
    return admin_browser.get("/_cms/admin/device", {"user_code": codes["user_code"]})


def test_a_device_request_without_scope_gets_the_default(api, admin_browser):
    page = device_page(api, admin_browser, client={"scope": "content:read schema:write admin"})
    assert OAuthDeviceGrant.objects.get().scope == "content:read"
    assert [(choice["scope"], choice["ticked"]) for choice in page.context["scopes"]] == [
        ("content:read", True)
    ]


def test_the_device_page_leaves_admin_and_schema_write_for_the_user_to_tick(api, admin_browser):
    page = device_page(
        api,
        admin_browser,
        client={"scope": "media:read schema:write admin"},
        scope="media:read schema:write admin",
    )
    assert page.status_code == 200
    html = fieldset(page.content.decode())
    assert '<input type="checkbox" name="scope" value="media:read" checked>' in html
    assert (
        '<input type="checkbox" name="scope" value="schema:write" aria-describedby="scope-warning-2">' in html
    )
    assert '<input type="checkbox" name="scope" value="admin" aria-describedby="scope-warning-3">' in html
    assert html.count('<p class="warning"') == 2
