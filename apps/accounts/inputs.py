"""What each accounts operation takes (SPEC §4.8, §4.9): tokens, users, sign-in, invitations, passkeys and the OAuth
protocol requests, one model per operation.

A WebAuthn credential is what ``PublicKeyCredential.toJSON()`` gives in the browser: ``id, rawId, response, type``
plus the optional ``clientExtensionResults`` and ``authenticatorAttachment`` (Web Authentication §5.1).

The OAuth models only document their requests: the protocol library parses those bodies itself, and unknown
parameters are ignored there as RFC 6749 §3.2 asks, so these models ignore them too instead of refusing them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, ConfigDict

from apps.accounts import oauth
from apps.accounts.models import Role
from apps.accounts.permissions import SCOPES
from apps.core.shapes import (
    DateTime,
    Email,
    Field,
    Input,
    JsonObject,
    Str,
    Text,
    choice,
    cursor_param,
    limit_param,
)

ROLE_HELP = "Role number: 10 subscriber, 20 contributor, 30 author, 40 editor, 50 admin."


def _number_text(value: Any) -> Any:
    # A query string is text: ?role=30 names the role 30, as DRF's ChoiceField matched it.
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return value


RoleNumber = Annotated[Literal[tuple(Role.values)], BeforeValidator(_number_text)]  # type: ignore[valid-type]
Scope = choice(*SCOPES)


class EmptyIn(Input):
    """No input: the body is empty or `{}`."""


# --- API tokens ------------------------------------------------------------------------------------------------------


class TokenListIn(Input):
    cursor: Str = cursor_param()
    limit: int = limit_param(50)
    userId: Str = Field(None, max_length=26, description="Only tokens of this user.")


class TokenCreateIn(Input):
    name: Str = Field(max_length=100, description="What the token is for, e.g. 'CI deploy'.")
    scopes: list[Scope] = Field(min_length=1, description="Scopes of SPEC §5.")
    expiresAt: DateTime | None = Field(None, description="ISO 8601; never when omitted.")
    userId: Str = Field(
        None, max_length=26, description="The user the token acts as; the caller when omitted."
    )


# --- Users -----------------------------------------------------------------------------------------------------------


class UserListIn(Input):
    cursor: Str = cursor_param()
    limit: int = limit_param(50)
    role: RoleNumber = Field(None, description=ROLE_HELP)
    search: Str = Field(None, max_length=200, description="Words of the email or the name.")


class UserUpdateIn(Input):
    name: Text = Field(None, max_length=200)
    role: RoleNumber = Field(None, description=ROLE_HELP)


# --- WebAuthn --------------------------------------------------------------------------------------------------------


class CredentialIn(Input):
    id: Str = Field(max_length=1400, description="The credential id, base64url.")
    rawId: Str = Field(max_length=1400, description="The same id, base64url.")
    response: JsonObject = Field(description="The authenticator's response, fields base64url encoded.")
    type: choice("public-key")
    clientExtensionResults: JsonObject = Field(None)
    authenticatorAttachment: Text | None = Field(None)
    transports: list[Annotated[Str, Field(max_length=32)]] = Field(
        None, max_length=10, description="Older clients send the transports here instead of in `response`."
    )


CREDENTIAL_KEYS = tuple(CredentialIn.model_fields)


def credential_of(body: dict) -> dict:
    """The credential as py-webauthn takes it, from a validated body that may carry other keys too."""
    credential = {key: body[key] for key in CREDENTIAL_KEYS if body.get(key) is not None}
    credential.setdefault("clientExtensionResults", {})
    return credential


class NewPasskeyIn(CredentialIn):
    name: Str = Field(
        None, max_length=100, description="A name to recognise the passkey by; 'Passkey N' when omitted."
    )


class PasskeyRenameIn(Input):
    name: Str = Field(max_length=100)


# --- Setup and magic links -------------------------------------------------------------------------------------------


class SetupOptionsIn(Input):
    email: Email = Field(max_length=254)
    name: Text = Field(None, max_length=200)


class MagicLinkSendIn(Input):
    email: Email = Field(max_length=254)
    next: Text = Field(
        None,
        max_length=2000,
        description="A path on this site to open after the link has signed the user in (default: the account page).",
    )


class MagicLinkPageIn(Input):
    token: Text = Field(None, max_length=200)


class MagicLinkConsumeIn(Input):
    """The form on the page the link opens (application/x-www-form-urlencoded)."""

    token: Text = Field(max_length=200)
    csrfmiddlewaretoken: Str = Field(None, max_length=200, description="Django's CSRF token.")


# --- Invitations -----------------------------------------------------------------------------------------------------


class InviteIn(Input):
    email: Email = Field(max_length=254)
    role: RoleNumber = Field(description="Role number: 10, 20, 30, 40 or 50.")


class InviteAcceptOptionsIn(Input):
    token: Str = Field(max_length=200)
    name: Text = Field(None, max_length=200, description="Your name.")


class InviteAcceptVerifyIn(NewPasskeyIn):
    token: Str = Field(max_length=200)


class InviteAcceptMagicLinkIn(Input):
    token: Str = Field(max_length=200)
    name: Text = Field(None, max_length=200)


# --- OAuth (documentation of protocol requests) ----------------------------------------------------------------------


class ProtocolIn(Input):
    model_config = ConfigDict(extra="ignore")


class TokenRequestIn(ProtocolIn):
    grant_type: choice(*oauth.GRANT_TYPES)
    client_id: Str
    code: Str = Field(None, description="authorization_code: the code from the redirect.")
    code_verifier: Str = Field(None, description="authorization_code: the PKCE verifier.")
    redirect_uri: Str = Field(None, description="authorization_code: as in the authorization.")
    refresh_token: Str = Field(None)
    device_code: Str = Field(None)
    scope: Str = Field(None, description="refresh_token: narrow the scopes.")
    resource: Str = Field(None, description="RFC 8707; narrows the grant's resource.")


class DeviceAuthorizationIn(ProtocolIn):
    client_id: Str
    scope: Str = Field(None, description="Space separated; the client's scopes when omitted.")
    resource: Str = Field(None, description="RFC 8707: the REST API (default) or the MCP URL.")


class ClientMetadataIn(ProtocolIn):
    redirect_uris: list[Str] = Field(None)
    client_name: Str = Field(None)
    grant_types: list[Str] = Field(None, description=f"Some of: {', '.join(oauth.GRANT_TYPES)}.")
    response_types: list[Str] = Field(None)
    token_endpoint_auth_method: choice("none") = Field(None)
    scope: Str = Field(None)


class RevocationIn(ProtocolIn):
    token: Str
    token_type_hint: choice("access_token", "refresh_token") = Field(None)
    client_id: Str
