"""Accounts as every face shows them (SPEC §4.8, §4.9): each shape once, with the function that builds it.

WebAuthn options are py-webauthn's JSON forms of PublicKeyCredentialCreationOptions and …RequestOptions (Web
Authentication §5.4, §5.5), documented key by key so the OpenAPI check holds them to it. The OAuth answers keep their
RFCs' shapes (not our envelope): a token (RFC 6749 §5.1), a device authorization (RFC 8628 §3.2), a registered client
(RFC 7591 §3.2.1) and the protocol error (RFC 6749 §5.2).
"""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired

from pydantic import Field

from apps.accounts import oauth
from apps.accounts.inputs import ROLE_HELP
from apps.accounts.models import ApiToken, Invitation, Passkey, User
from apps.accounts.permissions import SCOPES, Actor
from apps.core.shapes import Timestamp, TypedDict
from apps.core.timefmt import iso

# Text in a documented format, as the OpenAPI document showed these keys before they were TypedDicts.
EmailText = Annotated[str, Field(json_schema_extra={"format": "email"})]
UrlText = Annotated[str, Field(json_schema_extra={"format": "uri"})]

# --- Users and tokens ------------------------------------------------------------------------------------------------


class UserRefOut(TypedDict):
    id: str
    email: EmailText
    name: str
    role: int


class UserOut(TypedDict):
    id: str
    email: EmailText
    name: str
    role: Annotated[int, Field(description=ROLE_HELP)]
    roleName: str
    active: Annotated[
        bool, Field(description="False when disabled: the user's tokens and sessions do not work.")
    ]
    lastLoginAt: Timestamp | None
    createdAt: Timestamp
    updatedAt: Timestamp


class TokenOut(TypedDict):
    id: str
    name: str
    prefix: Annotated[str, Field(description="The first characters of the token, to recognise it.")]
    scopes: list[str]
    expiresAt: Timestamp | None
    lastUsedAt: Timestamp | None
    revokedAt: Timestamp | None
    createdAt: Timestamp
    user: UserRefOut


class TokenCreatedOut(TypedDict):
    item: TokenOut
    token: Annotated[str, Field(description="The secret token. Shown once: store it now.")]


def present_user_ref(user: User) -> UserRefOut:
    return {"id": user.pk, "email": user.email, "name": user.name, "role": user.role}


def present_user(user: User) -> UserOut:
    return {
        "id": user.pk,
        "email": user.email,
        "name": user.name,
        "role": user.role,
        "roleName": user.role_name,
        "active": user.is_active,
        "lastLoginAt": iso(user.last_login),
        "createdAt": iso(user.created_at),
        "updatedAt": iso(user.updated_at),
    }


def present_token(token: ApiToken) -> TokenOut:
    return {
        "id": token.pk,
        "name": token.name,
        "prefix": token.prefix,
        "scopes": list(token.scopes),
        "expiresAt": iso(token.expires_at),
        "lastUsedAt": iso(token.last_used_at),
        "revokedAt": iso(token.revoked_at),
        "createdAt": iso(token.created_at),
        "user": present_user_ref(token.user),
    }


def present_token_created(token: ApiToken, raw: str) -> TokenCreatedOut:
    return {"item": present_token(token), "token": raw}


# --- WebAuthn options ------------------------------------------------------------------------------------------------


class RelyingPartyOut(TypedDict):
    name: str
    id: str


class UserEntityOut(TypedDict):
    id: Annotated[str, Field(description="The user handle, base64url.")]
    name: str
    displayName: str


class CredentialParameterOut(TypedDict):
    type: str
    alg: int


class CredentialDescriptorOut(TypedDict):
    id: str
    type: str
    transports: NotRequired[list[str]]


class AuthenticatorSelectionOut(TypedDict):
    residentKey: str
    requireResidentKey: bool
    userVerification: str


class RegistrationOptionsOut(TypedDict):
    rp: RelyingPartyOut
    user: UserEntityOut
    challenge: str
    pubKeyCredParams: list[CredentialParameterOut]
    timeout: Annotated[int, Field(description="Milliseconds.")]
    excludeCredentials: list[CredentialDescriptorOut]
    authenticatorSelection: AuthenticatorSelectionOut
    attestation: str


class AuthenticationOptionsOut(TypedDict):
    challenge: str
    timeout: Annotated[int, Field(description="Milliseconds.")]
    rpId: str
    allowCredentials: list[CredentialDescriptorOut]
    userVerification: str


# --- Sessions, setup, messages ---------------------------------------------------------------------------------------


class SignedInOut(TypedDict):
    user: UserRefOut


class MeOut(TypedDict):
    user: UserRefOut
    authenticatedBy: Annotated[
        Literal["session", "token", "oauth"],
        Field(description="A browser session, a personal access token or OAuth."),
    ]
    scopes: Annotated[
        list[str], Field(description="What this credential may do (a session has every scope).")
    ]


class SetupStatusOut(TypedDict):
    setupComplete: Annotated[bool, Field(description="An active admin exists.")]
    hasUsers: bool


class AuthMessageOut(TypedDict):
    message: str


def present_signed_in(user: User) -> SignedInOut:
    return {"user": present_user_ref(user)}


def present_me(actor: Actor) -> MeOut:
    return {
        "user": present_user_ref(actor.user),
        "authenticatedBy": actor.via,  # type: ignore[typeddict-item]
        "scopes": [scope for scope in SCOPES if actor.has_scope(scope)],
    }


# --- Invitations and passkeys ----------------------------------------------------------------------------------------


class InvitationOut(TypedDict):
    id: str
    email: EmailText
    role: int
    expiresAt: Timestamp
    createdAt: Timestamp
    invitedBy: UserRefOut | None


class InvitationCreatedOut(TypedDict):
    item: InvitationOut
    url: Annotated[UrlText, Field(description="The accept page; also mailed to the invitee. Shown once.")]


class PasskeyOut(TypedDict):
    id: str
    name: str
    createdAt: Timestamp
    lastUsedAt: Timestamp | None
    backedUp: Annotated[bool, Field(description="Synced to other devices by its provider.")]


class PasskeyListOut(TypedDict):
    items: list[PasskeyOut]


class PasskeyItemOut(TypedDict):
    item: PasskeyOut


def present_invitation(invitation: Invitation) -> InvitationOut:
    return {
        "id": invitation.pk,
        "email": invitation.email,
        "role": invitation.role,
        "expiresAt": iso(invitation.expires_at),
        "createdAt": iso(invitation.created_at),
        "invitedBy": present_user_ref(invitation.invited_by) if invitation.invited_by else None,
    }


def present_invitation_created(invitation: Invitation, url: str) -> InvitationCreatedOut:
    return {"item": present_invitation(invitation), "url": url}


def present_passkey(passkey: Passkey) -> PasskeyOut:
    return {
        "id": passkey.pk,
        "name": passkey.name,
        "createdAt": iso(passkey.created_at),
        "lastUsedAt": iso(passkey.last_used_at),
        "backedUp": passkey.backed_up,
    }


def present_passkeys(passkeys: list[Passkey]) -> PasskeyListOut:
    return {"items": [present_passkey(passkey) for passkey in passkeys]}


def present_passkey_item(passkey: Passkey) -> PasskeyItemOut:
    return {"item": present_passkey(passkey)}


# --- OAuth protocol answers ------------------------------------------------------------------------------------------


class OAuthTokenOut(TypedDict):
    access_token: str
    token_type: Annotated[str, Field(description="Bearer")]
    expires_in: Annotated[int, Field(description="Seconds (3600).")]
    scope: NotRequired[Annotated[str, Field(description="The granted scopes, space separated.")]]
    refresh_token: NotRequired[Annotated[str, Field(description="Rotates: each refresh returns a new one.")]]


class OAuthErrorOut(TypedDict):
    error: Annotated[str, Field(description="An RFC 6749 §5.2, RFC 8628 §3.5 or RFC 7591 §3.2.2 error code.")]
    error_description: NotRequired[str]
    error_uri: NotRequired[str]
    state: NotRequired[str]


class DeviceAuthorizationOut(TypedDict):
    device_code: str
    user_code: Annotated[str, Field(description="Eight characters, shown as XXXX-XXXX.")]
    verification_uri: UrlText
    verification_uri_complete: UrlText
    expires_in: Annotated[int, Field(description="Seconds (900).")]
    interval: Annotated[int, Field(description="Seconds between polls.")]


class ClientRegisteredOut(TypedDict):
    client_id: str
    client_id_issued_at: int
    client_name: str
    redirect_uris: list[str]
    grant_types: list[str]
    response_types: list[str]
    token_endpoint_auth_method: str
    scope: str


def present_registered_client(application, client) -> ClientRegisteredOut:
    return {
        "client_id": application.client_id,
        "client_id_issued_at": int(application.created.timestamp()),
        "client_name": application.name,
        "redirect_uris": application.redirect_uris.split(),
        "grant_types": list(client.grant_types),
        "response_types": ["code"] if oauth.AUTHORIZATION_CODE in client.grant_types else [],
        "token_endpoint_auth_method": "none",
        "scope": " ".join(client.scopes),
    }
