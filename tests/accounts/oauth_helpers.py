"""An OAuth client's side of the flows, over HTTP: registration, PKCE, the consent form, token requests."""

from __future__ import annotations

import base64
import hashlib
import secrets
from urllib.parse import parse_qs, urlencode, urlsplit

from django.test import Client

API = "/_cms/api"
AUTHORIZE = "/_cms/oauth/authorize"
REDIRECT = "http://127.0.0.1:53682/callback"
FORM = "application/x-www-form-urlencoded"


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def register_client(api, **metadata) -> str:
    body = {"client_name": "Test client", "redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none"}
    body.update(metadata)
    response = api.post(f"{API}/oauth/register", body, format="json")
    assert response.status_code == 201, response.content
    return response.json()["client_id"]


def authorize_params(client_id: str, challenge: str, **extra) -> dict:
    params = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": REDIRECT,
        "state": "xyz",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "scope": "content:read content:write",
    }
    params.update(extra)
    return {key: value for key, value in params.items() if value is not None}


def consent(browser: Client, params: dict, *, decision: str = "approve", scopes: list[str] | None = None):
    """GET the consent page, then POST its form as the browser would: the signed request, ticked boxes, decision."""
    page = browser.get(f"{AUTHORIZE}?{urlencode(params, doseq=True)}")
    if page.status_code != 200:
        return page
    initial = page.context["form"].initial
    form = {"request": initial["request"], "decision": decision}
    form["scope"] = initial["scope"] if scopes is None else scopes
    return browser.post(AUTHORIZE, form)


def redirect_query(response) -> dict:
    assert response.status_code == 302, (response.status_code, response.content[:500])
    location = response["Location"]
    assert location.startswith(REDIRECT.split("/callback")[0]), location
    return {key: values[0] for key, values in parse_qs(urlsplit(location).query).items()}


def authorization_code(browser: Client, client_id: str, challenge: str, **extra) -> str:
    query = redirect_query(consent(browser, authorize_params(client_id, challenge, **extra)))
    return query["code"]


def token_request(api, **params):
    return api.post(f"{API}/oauth/token", urlencode(params, doseq=True), content_type=FORM)


def exchange(api, client_id: str, code: str, verifier: str, **extra):
    return token_request(
        api,
        grant_type="authorization_code",
        client_id=client_id,
        code=code,
        code_verifier=verifier,
        redirect_uri=REDIRECT,
        **extra,
    )
