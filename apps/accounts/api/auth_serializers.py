"""Input and output shapes of the sign-in endpoints (SPEC §4.9), camelCase on the wire.

WebAuthn options are py-webauthn's JSON forms of PublicKeyCredentialCreationOptions and ...RequestOptions (Web
Authentication §5.4, §5.5), documented field by field so the OpenAPI check holds them to it. A credential is what
``PublicKeyCredential.toJSON()`` gives in the browser: ``id, rawId, response, type`` plus the optional
``clientExtensionResults`` and ``authenticatorAttachment``.
"""

from __future__ import annotations

from rest_framework import serializers

from apps.accounts.api.serializers import UserRefOut, present_user_ref
from apps.accounts.models import Invitation, Passkey, Role
from apps.core.timefmt import iso

# --- WebAuthn -------------------------------------------------------------------------------------------------------


class CredentialIn(serializers.Serializer):
    id = serializers.CharField(max_length=1400, help_text="The credential id, base64url.")
    rawId = serializers.CharField(max_length=1400, help_text="The same id, base64url.")
    response = serializers.DictField(help_text="The authenticator's response, fields base64url encoded.")
    type = serializers.ChoiceField(choices=["public-key"])
    clientExtensionResults = serializers.DictField(required=False)
    authenticatorAttachment = serializers.CharField(required=False, allow_null=True, allow_blank=True)
    transports = serializers.ListField(
        child=serializers.CharField(max_length=32),
        required=False,
        max_length=10,
        help_text="Older clients send the transports here instead of in `response`.",
    )


def credential_of(body: dict) -> dict:
    """The credential as py-webauthn takes it, from a validated body that may carry other keys too."""
    keys = (
        "id",
        "rawId",
        "response",
        "type",
        "clientExtensionResults",
        "authenticatorAttachment",
        "transports",
    )
    credential = {key: body[key] for key in keys if key in body and body[key] is not None}
    credential.setdefault("clientExtensionResults", {})
    return credential


class NewPasskeyIn(CredentialIn):
    name = serializers.CharField(
        required=False,
        max_length=100,
        help_text="A name to recognise the passkey by; 'Passkey N' when omitted.",
    )


class _RelyingPartyOut(serializers.Serializer):
    name = serializers.CharField()
    id = serializers.CharField()


class _UserEntityOut(serializers.Serializer):
    id = serializers.CharField(help_text="The user handle, base64url.")
    name = serializers.CharField()
    displayName = serializers.CharField()


class _CredentialParameterOut(serializers.Serializer):
    type = serializers.CharField()
    alg = serializers.IntegerField()


class _CredentialDescriptorOut(serializers.Serializer):
    id = serializers.CharField()
    type = serializers.CharField()
    transports = serializers.ListField(child=serializers.CharField(), required=False)


class _AuthenticatorSelectionOut(serializers.Serializer):
    residentKey = serializers.CharField()
    requireResidentKey = serializers.BooleanField()
    userVerification = serializers.CharField()


class RegistrationOptionsOut(serializers.Serializer):
    rp = _RelyingPartyOut()
    user = _UserEntityOut()
    challenge = serializers.CharField()
    pubKeyCredParams = _CredentialParameterOut(many=True)
    timeout = serializers.IntegerField(help_text="Milliseconds.")
    excludeCredentials = _CredentialDescriptorOut(many=True)
    authenticatorSelection = _AuthenticatorSelectionOut()
    attestation = serializers.CharField()


class AuthenticationOptionsOut(serializers.Serializer):
    challenge = serializers.CharField()
    timeout = serializers.IntegerField(help_text="Milliseconds.")
    rpId = serializers.CharField()
    allowCredentials = _CredentialDescriptorOut(many=True)
    userVerification = serializers.CharField()


# --- Sessions and setup ---------------------------------------------------------------------------------------------


class SignedInOut(serializers.Serializer):
    user = UserRefOut()


class MeOut(serializers.Serializer):
    user = UserRefOut()
    authenticatedBy = serializers.ChoiceField(
        choices=["session", "token", "oauth"],
        help_text="A browser session, a personal access token or OAuth.",
    )
    scopes = serializers.ListField(
        child=serializers.CharField(), help_text="What this credential may do (a session has every scope)."
    )


class SetupStatusOut(serializers.Serializer):
    setupComplete = serializers.BooleanField(help_text="An active admin exists.")
    hasUsers = serializers.BooleanField()


class SetupOptionsIn(serializers.Serializer):
    email = serializers.EmailField(max_length=254)
    name = serializers.CharField(required=False, allow_blank=True, max_length=200)


class SetupVerifyIn(NewPasskeyIn):
    pass


# --- Magic links ----------------------------------------------------------------------------------------------------


class MagicLinkSendIn(serializers.Serializer):
    email = serializers.EmailField(max_length=254)
    next = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=2000,
        help_text="A path on this site to open after the link has signed the user in (default: the account page).",
    )


class MessageOut(serializers.Serializer):
    message = serializers.CharField()


class MagicLinkQuery(serializers.Serializer):
    token = serializers.CharField(required=False, allow_blank=True, max_length=200)


class MagicLinkConsumeIn(serializers.Serializer):
    """The form on the page the link opens (application/x-www-form-urlencoded)."""

    token = serializers.CharField(allow_blank=True, max_length=200)
    csrfmiddlewaretoken = serializers.CharField(
        required=False, max_length=200, help_text="Django's CSRF token."
    )


class EmptyIn(serializers.Serializer):
    """No input: the body is empty or `{}`."""


# --- Invitations ----------------------------------------------------------------------------------------------------


class InviteIn(serializers.Serializer):
    email = serializers.EmailField(max_length=254)
    role = serializers.ChoiceField(choices=Role.values, help_text="Role number: 10, 20, 30, 40 or 50.")


class InvitationOut(serializers.Serializer):
    id = serializers.CharField()
    email = serializers.EmailField()
    role = serializers.IntegerField()
    expiresAt = serializers.DateTimeField()
    createdAt = serializers.DateTimeField()
    invitedBy = UserRefOut(allow_null=True)


class InvitationCreatedOut(serializers.Serializer):
    item = InvitationOut()
    url = serializers.URLField(help_text="The accept page; also mailed to the invitee. Shown once.")


class InviteAcceptOptionsIn(serializers.Serializer):
    token = serializers.CharField(max_length=200)
    name = serializers.CharField(required=False, allow_blank=True, max_length=200, help_text="Your name.")


class InviteAcceptVerifyIn(NewPasskeyIn):
    token = serializers.CharField(max_length=200)


class InviteAcceptMagicLinkIn(serializers.Serializer):
    token = serializers.CharField(max_length=200)
    name = serializers.CharField(required=False, allow_blank=True, max_length=200)


# --- Passkeys -------------------------------------------------------------------------------------------------------


class PasskeyOut(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField()
    createdAt = serializers.DateTimeField()
    lastUsedAt = serializers.DateTimeField(allow_null=True)
    backedUp = serializers.BooleanField(help_text="Synced to other devices by its provider.")


class PasskeyListOut(serializers.Serializer):
    items = PasskeyOut(many=True)


class PasskeyItemOut(serializers.Serializer):
    item = PasskeyOut()


class PasskeyRenameIn(serializers.Serializer):
    name = serializers.CharField(max_length=100)


def present_passkey(passkey: Passkey) -> dict:
    return {
        "id": passkey.pk,
        "name": passkey.name,
        "createdAt": iso(passkey.created_at),
        "lastUsedAt": iso(passkey.last_used_at),
        "backedUp": passkey.backed_up,
    }


def present_invitation(invitation: Invitation) -> dict:
    return {
        "id": invitation.pk,
        "email": invitation.email,
        "role": invitation.role,
        "expiresAt": iso(invitation.expires_at),
        "createdAt": iso(invitation.created_at),
        "invitedBy": present_user_ref(invitation.invited_by) if invitation.invited_by else None,
    }
