"""The OAuth 2.1 authorization server over HTTP: discovery, registration, authorization code with PKCE, tokens,
refresh rotation, scopes, resources, revocation, and the attacks of RFC 9700 §4."""

from __future__ import annotations

import hashlib
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
from django.core import signing
from django.db import connection
from django.test import Client, override_settings
from oauth2_provider.models import AccessToken, RefreshToken

from apps.accounts import oauth
from apps.accounts.authentication import authenticate_bearer
from apps.accounts.models import OAuthGrant, OAuthTokenFamily, Role
from apps.core.errors import Unauthorized
from apps.core.timefmt import now
from tests.accounts.oauth_helpers import (
    API,
    AUTHORIZE,
    REDIRECT,
    authorization_code,
    authorize_params,
    consent,
    exchange,
    pkce,
    redirect_query,
    register_client,
    token_request,
)
from tests.conftest import ApiClient
from tests.factories import make_user

BASE = "http://localhost:8000"


@pytest.fixture
def editor():
    return make_user(Role.EDITOR, email="editor@example.com")


@pytest.fixture
def browser(editor) -> Client:
    client = Client()
    client.force_login(editor)
    return client


@pytest.fixture
def client_id(api) -> str:
    return register_client(api)


def issue_tokens(api, browser, client_id, **extra) -> dict:
    verifier, challenge = pkce()
    code = authorization_code(browser, client_id, challenge, **extra)
    response = exchange(api, client_id, code, verifier)
    assert response.status_code == 200, response.json()
    return response.json()


# --- Discovery ------------------------------------------------------------------------------------------------------


def test_protected_resource_metadata(client):
    for path in (
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/_cms/api/mcp",
    ):
        response = client.get(path)
        assert response.status_code == 200
        assert response.json() == {
            "resource": f"{BASE}/_cms/api/mcp",
            "authorization_servers": [f"{BASE}/_cms"],
            "scopes_supported": [
                "content:read",
                "content:write",
                "media:read",
                "media:write",
                "schema:read",
                "schema:write",
                "admin",
            ],
            "bearer_methods_supported": ["header"],
        }


@pytest.mark.parametrize(
    "path", ["/_cms/.well-known/oauth-authorization-server", "/.well-known/oauth-authorization-server/_cms"]
)
def test_authorization_server_metadata(client, path):
    response = client.get(path)
    assert response.status_code == 200
    assert response.json() == {
        "issuer": f"{BASE}/_cms",
        "authorization_endpoint": f"{BASE}/_cms/oauth/authorize",
        "token_endpoint": f"{BASE}/_cms/api/oauth/token",
        "scopes_supported": [
            "content:read",
            "content:write",
            "media:read",
            "media:write",
            "schema:read",
            "schema:write",
            "admin",
        ],
        "response_types_supported": ["code"],
        "grant_types_supported": [
            "authorization_code",
            "refresh_token",
            "urn:ietf:params:oauth:grant-type:device_code",
        ],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
        "device_authorization_endpoint": f"{BASE}/_cms/api/oauth/device/code",
        "registration_endpoint": f"{BASE}/_cms/api/oauth/register",
    }


@override_settings(CMS_BASE_URL="https://cms.example.com")
def test_discovery_follows_the_configured_base_url(client):
    document = client.get("/_cms/.well-known/oauth-authorization-server").json()
    assert document["issuer"] == "https://cms.example.com/_cms"
    assert document["token_endpoint"] == "https://cms.example.com/_cms/api/oauth/token"


# --- Dynamic client registration (RFC 7591) -------------------------------------------------------------------------


def test_registration_of_a_public_client(api):
    response = api.post(
        f"{API}/oauth/register",
        {
            "client_name": "Claude",
            "redirect_uris": ["http://127.0.0.1:6274/callback", "https://app.example.com/cb"],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
            "scope": "content:read media:read unknown:scope",
            "logo_uri": "https://app.example.com/logo.png",  # not used: ignored (RFC 7591 §2)
        },
        format="json",
    )
    assert response.status_code == 201
    body = response.json()
    assert body == {
        "client_id": body["client_id"],
        "client_id_issued_at": body["client_id_issued_at"],
        "client_name": "Claude",
        "redirect_uris": ["http://127.0.0.1:6274/callback", "https://app.example.com/cb"],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        "scope": "content:read media:read",
    }
    assert response["Cache-Control"] == "no-store"


@pytest.mark.parametrize(
    ("metadata", "error", "description"),
    [
        (
            {"token_endpoint_auth_method": "client_secret_basic"},
            "invalid_client_metadata",
            "Only public clients can register: token_endpoint_auth_method must be 'none' (use PKCE).",
        ),
        (
            {"redirect_uris": ["http://app.example.com/cb"]},
            "invalid_redirect_uri",
            "'http://app.example.com/cb': redirect URIs must use https, or http on a loopback host "
            "(127.0.0.1, [::1], localhost).",
        ),
        (
            {"redirect_uris": ["https://app.example.com/cb#x"]},
            "invalid_redirect_uri",
            "'https://app.example.com/cb#x': a redirect URI needs a host and may carry neither a fragment nor "
            "user credentials.",
        ),
        (
            {"redirect_uris": ["myapp://callback"]},
            "invalid_redirect_uri",
            "'myapp://callback': redirect URIs must use https, or http on a loopback host "
            "(127.0.0.1, [::1], localhost).",
        ),
        (
            {"grant_types": ["client_credentials"]},
            "invalid_client_metadata",
            "Unsupported grant type(s) client_credentials; supported: authorization_code, refresh_token, "
            "urn:ietf:params:oauth:grant-type:device_code.",
        ),
        ({"redirect_uris": []}, "invalid_redirect_uri", "redirect_uris is required for authorization_code."),
        (
            {"scope": "openid"},
            "invalid_client_metadata",
            "scope must name some of: content:read content:write "
            "media:read media:write schema:read schema:write admin.",
        ),
    ],
)
def test_registration_refusals(api, metadata, error, description):
    body = {"client_name": "x", "redirect_uris": [REDIRECT], **metadata}
    response = api.post(f"{API}/oauth/register", body, format="json")
    assert response.status_code == 400
    assert response.json() == {"error": error, "error_description": description}


def test_registration_needs_json(api):
    response = api.post(f"{API}/oauth/register", "{not json", content_type="application/json")
    assert response.status_code == 400
    assert response.json() == {
        "error": "invalid_client_metadata",
        "error_description": "The body must be JSON.",
    }


# --- Authorization code with PKCE -----------------------------------------------------------------------------------


def test_the_whole_flow_with_a_plain_http_client(api, browser, client_id, editor):
    verifier, challenge = pkce()
    params = authorize_params(client_id, challenge)
    page = browser.get(AUTHORIZE, params)
    assert page.status_code == 200
    html = page.content.decode()
    assert "Test client" in html and "127.0.0.1:53682" in html
    assert 'name="scope" value="content:read" checked' in html
    assert page["Content-Security-Policy"].startswith("default-src 'self'")
    query = redirect_query(consent(browser, params))
    assert query == {"code": query["code"], "state": "xyz", "iss": f"{BASE}/_cms"}

    response = exchange(api, client_id, query["code"], verifier)
    assert response.status_code == 200
    tokens = response.json()
    assert tokens == {
        "access_token": tokens["access_token"],
        "expires_in": 3600,
        "token_type": "Bearer",
        "scope": "content:read content:write",
        "refresh_token": tokens["refresh_token"],
    }
    assert response["Cache-Control"] == "no-store"

    me = ApiClient().as_token(tokens["access_token"]).get(f"{API}/auth/me")
    assert me.status_code == 200
    assert me.json()["data"] == {
        "user": {"id": editor.pk, "email": editor.email, "name": editor.name, "role": 40},
        "authenticatedBy": "oauth",
        "scopes": ["content:read", "content:write"],
    }

    refreshed = token_request(
        api, grant_type="refresh_token", client_id=client_id, refresh_token=tokens["refresh_token"]
    )
    assert refreshed.status_code == 200
    new = refreshed.json()
    assert new["refresh_token"] != tokens["refresh_token"] and new["access_token"] != tokens["access_token"]
    assert ApiClient().as_token(new["access_token"]).get(f"{API}/auth/me").status_code == 200


def test_tokens_and_codes_are_stored_only_as_hashes(api, browser, client_id):
    verifier, challenge = pkce()
    code = authorization_code(browser, client_id, challenge)
    grant = OAuthGrant.objects.get()
    assert grant.code == hashlib.sha256(code.encode()).hexdigest()
    tokens = exchange(api, client_id, code, verifier).json()
    access = AccessToken.objects.get()
    refresh = RefreshToken.objects.get()
    assert (
        access.token == ""
        and access.token_checksum == hashlib.sha256(tokens["access_token"].encode()).hexdigest()
    )
    assert (
        refresh.token == ""
        and refresh.token_checksum == hashlib.sha256(tokens["refresh_token"].encode()).hexdigest()
    )
    with connection.cursor() as cursor:
        for table in ("oauth2_provider_accesstoken", "oauth2_provider_refreshtoken", "accounts_oauthgrant"):
            cursor.execute(f"SELECT * FROM {table}")  # noqa: S608 (fixed table names)
            dump = repr(cursor.fetchall())
            for secret in (code, tokens["access_token"], tokens["refresh_token"]):
                assert secret not in dump


def test_presenting_a_stored_code_digest_redeems_nothing(api, browser, client_id):
    verifier, challenge = pkce()
    authorization_code(browser, client_id, challenge)
    digest = OAuthGrant.objects.get().code
    response = exchange(api, client_id, digest, verifier)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_grant"


def test_pkce_is_required(browser, client_id):
    _, challenge = pkce()
    response = browser.get(AUTHORIZE, authorize_params(client_id, challenge, code_challenge=None))
    query = redirect_query(response)
    assert query == {
        "error": "invalid_request",
        "error_description": "Code challenge required.",
        "state": "xyz",
        "iss": f"{BASE}/_cms",
    }


@pytest.mark.parametrize("method", ["plain", None])
def test_pkce_plain_is_refused_even_when_implied(browser, client_id, method):
    verifier, _ = pkce()
    response = browser.get(AUTHORIZE, authorize_params(client_id, verifier, code_challenge_method=method))
    query = redirect_query(response)
    assert query["error"] == "invalid_request"
    assert query["error_description"] == "Transform algorithm not supported."
    assert not OAuthGrant.objects.exists()


def test_the_consent_form_cannot_be_tampered_with(browser, client_id, editor):
    # The request the user sees is signed into the form: a changed challenge, method or redirect is refused.
    _, challenge = pkce()
    page = browser.get(AUTHORIZE, authorize_params(client_id, challenge))
    signed = page.context["form"].initial["request"]
    payload = signing.loads(signed, salt="cms.oauth.consent")
    forged = signing.dumps(payload, salt="another.salt")
    for value in (signed[:-3] + "abc", forged, "not-signed"):
        response = browser.post(
            AUTHORIZE, {"request": value, "scope": ["content:read"], "decision": "approve"}
        )
        assert response.status_code == 400
        assert "This authorization form is not valid any more" in response.content.decode()
    other = Client()
    other.force_login(make_user(Role.ADMIN))
    stolen = other.post(AUTHORIZE, {"request": signed, "scope": ["content:read"], "decision": "approve"})
    assert stolen.status_code == 400
    assert not OAuthGrant.objects.exists()


def test_missing_and_wrong_verifiers(api, browser, client_id):
    verifier, challenge = pkce()
    code = authorization_code(browser, client_id, challenge)
    missing = token_request(
        api, grant_type="authorization_code", client_id=client_id, code=code, redirect_uri=REDIRECT
    )
    assert missing.status_code == 400
    assert missing.json() == {"error": "invalid_request", "error_description": "Code verifier required."}
    other_verifier, other_challenge = pkce()
    code = authorization_code(browser, client_id, other_challenge)
    wrong = exchange(api, client_id, code, verifier)
    assert wrong.status_code == 400
    assert wrong.json() == {"error": "invalid_grant"}
    # The attempt used the code up: the right verifier is now too late (single use, RFC 9700 §4.5.3).
    assert exchange(api, client_id, code, other_verifier).json() == {"error": "invalid_grant"}


def test_a_replayed_code_is_refused_and_revokes_what_it_issued(api, browser, client_id):
    verifier, challenge = pkce()
    code = authorization_code(browser, client_id, challenge)
    tokens = exchange(api, client_id, code, verifier).json()
    assert ApiClient().as_token(tokens["access_token"]).get(f"{API}/auth/me").status_code == 200

    replay = exchange(api, client_id, code, verifier)
    assert replay.status_code == 400
    assert replay.json() == {"error": "invalid_grant"}
    revoked = ApiClient().as_token(tokens["access_token"]).get(f"{API}/auth/me")
    assert revoked.status_code == 401
    refresh = token_request(
        api, grant_type="refresh_token", client_id=client_id, refresh_token=tokens["refresh_token"]
    )
    assert refresh.json() == {"error": "invalid_grant"}


def test_codes_expire_after_ten_minutes(api, browser, client_id):
    verifier, challenge = pkce()
    code = authorization_code(browser, client_id, challenge)
    grant = OAuthGrant.objects.get()
    assert timedelta(minutes=9, seconds=55) < grant.expires - grant.created <= timedelta(minutes=10)
    OAuthGrant.objects.update(expires=now() - timedelta(seconds=1))
    assert exchange(api, client_id, code, verifier).json() == {"error": "invalid_grant"}


def test_the_redirect_uri_must_match_exactly(api, browser, client_id):
    _, challenge = pkce()
    for wrong in (
        "http://127.0.0.1:53682/callback/extra",
        "http://127.0.0.1:53682/callback?x=1",
        "https://127.0.0.1:53682/callback",
        "http://localhost:53682/callback",
    ):
        page = browser.get(AUTHORIZE, authorize_params(client_id, challenge, redirect_uri=wrong))
        # Never redirected to an unregistered URI: an error page instead (RFC 6749 §4.1.2.1).
        assert page.status_code == 400, wrong
        assert "Mismatching redirect URI" in page.content.decode()
    verifier, challenge = pkce()
    code = authorization_code(browser, client_id, challenge)
    response = token_request(
        api,
        grant_type="authorization_code",
        client_id=client_id,
        code=code,
        code_verifier=verifier,
        redirect_uri="http://127.0.0.1:53682/other",
    )
    assert response.status_code == 400
    assert response.json() == {"error": "invalid_request", "error_description": "Mismatching redirect URI."}


def test_a_loopback_redirect_may_use_any_port(browser, client_id):
    # RFC 8252 §7.3: native apps listen on an ephemeral port of the loopback IP.
    _, challenge = pkce()
    other_port = "http://127.0.0.1:40000/callback"
    response = consent(browser, authorize_params(client_id, challenge, redirect_uri=other_port))
    assert response.status_code == 302 and response["Location"].startswith(other_port + "?code=")


def test_denying_sends_access_denied_back(browser, client_id):
    _, challenge = pkce()
    query = redirect_query(consent(browser, authorize_params(client_id, challenge), decision="deny"))
    assert query == {"error": "access_denied", "state": "xyz", "iss": f"{BASE}/_cms"}


def test_signing_in_comes_first(client, client_id):
    _, challenge = pkce()
    response = client.get(AUTHORIZE, authorize_params(client_id, challenge))
    assert response.status_code == 302
    assert response["Location"].startswith("/_cms/admin/login?next=/_cms/oauth/authorize%3F")


def test_a_forged_consent_post_cannot_redirect_anywhere(browser, client_id):
    response = browser.post(
        AUTHORIZE,
        {
            "client_id": client_id,
            "redirect_uri": "https://evil.example/steal",
            "response_type": "code",
            "decision": "deny",
        },
    )
    assert response.status_code == 400
    assert "evil.example" not in response.get("Location", "")


# --- Scopes ---------------------------------------------------------------------------------------------------------


def test_granted_scopes_are_requested_and_client_and_role(api, browser, editor):
    client_id = register_client(api, scope="content:read content:write schema:read schema:write")
    verifier, challenge = pkce()
    params = authorize_params(
        client_id, challenge, scope="content:read schema:read schema:write media:read admin"
    )
    page = browser.get(AUTHORIZE, params)
    html = page.content.decode()
    # media:read is not the client's, schema:write and admin are beyond an editor.
    assert page.context["form"].initial["scope"] == ["content:read", "schema:read"]
    assert 'value="schema:write"' not in html and "Your role cannot grant: schema:write." in html
    code = redirect_query(consent(browser, params))["code"]
    assert exchange(api, client_id, code, verifier).json()["scope"] == "content:read schema:read"


def test_the_user_may_narrow_the_scopes(api, browser, client_id):
    verifier, challenge = pkce()
    params = authorize_params(client_id, challenge)
    code = redirect_query(consent(browser, params, scopes=["content:read"]))["code"]
    assert exchange(api, client_id, code, verifier).json()["scope"] == "content:read"


def test_scope_escalation_in_the_consent_form_is_dropped(api, browser, client_id):
    verifier, challenge = pkce()
    params = authorize_params(client_id, challenge)
    code = redirect_query(consent(browser, params, scopes=["content:read", "schema:write", "admin"]))["code"]
    assert exchange(api, client_id, code, verifier).json()["scope"] == "content:read"


def test_a_request_the_role_cannot_grant_at_all_is_refused(api, client_id):
    subscriber = Client()
    subscriber.force_login(make_user(Role.SUBSCRIBER))
    _, challenge = pkce()
    query = redirect_query(
        subscriber.get(AUTHORIZE, authorize_params(client_id, challenge, scope="content:write admin"))
    )
    assert query["error"] == "invalid_scope"
    assert query["error_description"] == "None of the requested scopes can be granted to this user."


def test_an_empty_choice_is_not_a_grant(browser, client_id):
    _, challenge = pkce()
    response = consent(browser, authorize_params(client_id, challenge), scopes=[])
    assert response.status_code == 400
    assert "Choose at least one permission" in response.content.decode()
    assert not OAuthGrant.objects.exists()


def test_oauth_tokens_carry_their_scopes_into_the_rest_api(api, browser, client_id):
    tokens = issue_tokens(api, browser, client_id, scope="content:read")
    response = ApiClient().as_token(tokens["access_token"]).get(f"{API}/admin/api-tokens")
    assert response.status_code == 403
    assert response.json()["error"]["message"] == "Insufficient scope: requires admin."


# --- Refresh tokens -------------------------------------------------------------------------------------------------


def test_a_replayed_refresh_token_revokes_the_family(api, browser, client_id):
    first = issue_tokens(api, browser, client_id)
    second = token_request(
        api, grant_type="refresh_token", client_id=client_id, refresh_token=first["refresh_token"]
    ).json()
    replay = token_request(
        api, grant_type="refresh_token", client_id=client_id, refresh_token=first["refresh_token"]
    )
    assert replay.status_code == 400
    assert replay.json() == {"error": "invalid_grant"}
    # The thief and the client share one family: both lose it.
    assert ApiClient().as_token(second["access_token"]).get(f"{API}/auth/me").status_code == 401
    again = token_request(
        api, grant_type="refresh_token", client_id=client_id, refresh_token=second["refresh_token"]
    )
    assert again.json() == {"error": "invalid_grant"}


def test_refresh_tokens_end_ninety_days_after_the_grant(api, browser, client_id):
    tokens = issue_tokens(api, browser, client_id)
    family = OAuthTokenFamily.objects.get()
    assert timedelta(days=89, hours=23) < family.expires_at - family.created_at <= timedelta(days=90)
    OAuthTokenFamily.objects.update(expires_at=now() - timedelta(seconds=1))
    response = token_request(
        api, grant_type="refresh_token", client_id=client_id, refresh_token=tokens["refresh_token"]
    )
    assert response.json() == {"error": "invalid_grant"}


def test_refresh_may_narrow_but_not_widen(api, browser, client_id):
    tokens = issue_tokens(api, browser, client_id, scope="content:read")
    wider = token_request(
        api,
        grant_type="refresh_token",
        client_id=client_id,
        refresh_token=tokens["refresh_token"],
        scope="content:read admin",
    )
    assert wider.status_code == 400
    assert wider.json()["error"] == "invalid_scope"


def test_a_disabled_users_tokens_stop_working(api, browser, client_id, editor):
    tokens = issue_tokens(api, browser, client_id)
    editor.is_active = False
    editor.save()
    response = ApiClient().as_token(tokens["access_token"]).get(f"{API}/auth/me")
    assert response.status_code == 401
    assert response.json()["error"]["message"] == "The account this token belongs to is disabled."
    refresh = token_request(
        api, grant_type="refresh_token", client_id=client_id, refresh_token=tokens["refresh_token"]
    )
    assert refresh.json() == {"error": "invalid_grant"}


def test_access_tokens_last_an_hour(api, browser, client_id):
    tokens = issue_tokens(api, browser, client_id)
    AccessToken.objects.update(expires=now() - timedelta(seconds=1))
    response = ApiClient().as_token(tokens["access_token"]).get(f"{API}/auth/me")
    assert response.status_code == 401
    assert response.json()["error"]["message"].startswith("This token expired at ")
    assert 'error="invalid_token"' in response["WWW-Authenticate"]


# --- Resources (RFC 8707) -------------------------------------------------------------------------------------------


def test_a_token_for_the_mcp_endpoint_is_refused_by_the_rest_api(api, browser, client_id):
    tokens = issue_tokens(api, browser, client_id, resource=f"{BASE}/_cms/api/mcp")
    assert AccessToken.objects.get().resource == [f"{BASE}/_cms/api/mcp"]
    actor = authenticate_bearer(tokens["access_token"], resource=oauth.mcp_resource())
    assert actor.via == "oauth" and actor.scopes == {"content:read", "content:write"}
    response = ApiClient().as_token(tokens["access_token"]).get(f"{API}/auth/me")
    assert response.status_code == 401
    assert response.json()["error"]["message"] == (
        f"This token was issued for {BASE}/_cms/api/mcp, not for {BASE}/_cms/api; request a token with "
        f"resource={BASE}/_cms/api."
    )


def test_a_token_without_resource_is_for_the_rest_api_only(api, browser, client_id):
    tokens = issue_tokens(api, browser, client_id)
    assert AccessToken.objects.get().resource == [f"{BASE}/_cms/api"]
    with pytest.raises(Unauthorized) as refused:
        authenticate_bearer(tokens["access_token"], resource=oauth.mcp_resource())
    assert refused.value.message.startswith(f"This token was issued for {BASE}/_cms/api, not for")


def test_a_foreign_resource_is_refused(browser, client_id):
    _, challenge = pkce()
    response = browser.get(
        AUTHORIZE, authorize_params(client_id, challenge, resource="https://other.example/api")
    )
    query = redirect_query(response)
    assert query["error"] == "invalid_target"


def test_the_token_request_cannot_switch_resource(api, browser, client_id):
    verifier, challenge = pkce()
    code = authorization_code(browser, client_id, challenge, resource=f"{BASE}/_cms/api/mcp")
    response = exchange(api, client_id, code, verifier, resource=f"{BASE}/_cms/api")
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_target"


# --- Revocation (RFC 7009) and rate limits --------------------------------------------------------------------------


def test_revoking_an_access_token_revokes_its_refresh_token(api, browser, client_id):
    tokens = issue_tokens(api, browser, client_id)
    response = api.post(
        f"{API}/oauth/revoke",
        f"token={tokens['access_token']}&client_id={client_id}",
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 200
    assert response.content == b""
    assert ApiClient().as_token(tokens["access_token"]).get(f"{API}/auth/me").status_code == 401
    refresh = token_request(
        api, grant_type="refresh_token", client_id=client_id, refresh_token=tokens["refresh_token"]
    )
    assert refresh.json() == {"error": "invalid_grant"}


def test_a_client_cannot_revoke_another_clients_token(api, browser, client_id):
    tokens = issue_tokens(api, browser, client_id)
    other = register_client(api)
    response = api.post(
        f"{API}/oauth/revoke",
        f"token={tokens['access_token']}&client_id={other}",
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 200
    assert ApiClient().as_token(tokens["access_token"]).get(f"{API}/auth/me").status_code == 200


@override_settings(CMS_RATE_LIMITS={"api": "1200/m", "auth": "2/m", "magic_link_address": "5/15m"})
def test_the_token_endpoint_is_rate_limited(api):
    for _ in range(2):
        assert token_request(
            api, grant_type="refresh_token", client_id="x", refresh_token="y"
        ).status_code in (400, 401)
    limited = token_request(api, grant_type="refresh_token", client_id="x", refresh_token="y")
    assert limited.status_code == 429
    assert int(limited["Retry-After"]) >= 1
    assert limited.json()["error"]["code"] == "RATE_LIMITED"


def test_query_of_redirect_is_not_shared_with_other_clients(api, browser):
    # Two clients with the same redirect URI: a code issued to one is not redeemable by the other.
    first = register_client(api)
    second = register_client(api)
    verifier, challenge = pkce()
    code = authorization_code(browser, first, challenge)
    assert exchange(api, second, code, verifier).json() == {"error": "invalid_grant"}
    assert parse_qs(urlsplit(REDIRECT).query) == {}
