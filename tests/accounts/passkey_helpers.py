"""Steps of the passkey ceremonies over HTTP, shared by the sign-in tests."""

from __future__ import annotations

from tests.accounts.authenticator import SoftAuthenticator

API = "/_cms/api"


def register_passkey(
    client, authenticator: SoftAuthenticator, name: str | None = None, **create_options
) -> dict:
    """Add a passkey to the signed-in ``client``'s account; returns the response JSON."""
    options = client.post(f"{API}/auth/passkey/register/options", {}, format="json")
    assert options.status_code == 200, options.json()
    credential = authenticator.create(options.json()["data"], **create_options)
    body = {**credential, **({"name": name} if name else {})}
    return client.post(f"{API}/auth/passkey/register/verify", body, format="json")


def sign_in_options(client) -> dict:
    response = client.post(f"{API}/auth/passkey/options", {}, format="json")
    assert response.status_code == 200, response.json()
    return response.json()["data"]


def sign_in(client, authenticator: SoftAuthenticator, **get_options):
    assertion = authenticator.get(sign_in_options(client), **get_options)
    return client.post(f"{API}/auth/passkey/verify", assertion, format="json")
