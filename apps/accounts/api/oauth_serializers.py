"""Shapes of the OAuth endpoints, for the OpenAPI document (the protocol library parses and answers them)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers

from apps.accounts import oauth


class TokenRequestIn(serializers.Serializer):
    grant_type = serializers.ChoiceField(choices=list(oauth.GRANT_TYPES))
    client_id = serializers.CharField()
    code = serializers.CharField(required=False, help_text="authorization_code: the code from the redirect.")
    code_verifier = serializers.CharField(required=False, help_text="authorization_code: the PKCE verifier.")
    redirect_uri = serializers.CharField(
        required=False, help_text="authorization_code: as in the authorization."
    )
    refresh_token = serializers.CharField(required=False)
    device_code = serializers.CharField(required=False)
    scope = serializers.CharField(required=False, help_text="refresh_token: narrow the scopes.")
    resource = serializers.CharField(required=False, help_text="RFC 8707; narrows the grant's resource.")


class OAuthTokenOut(serializers.Serializer):
    access_token = serializers.CharField()
    token_type = serializers.CharField(help_text="Bearer")
    expires_in = serializers.IntegerField(help_text="Seconds (3600).")
    scope = serializers.CharField(required=False, help_text="The granted scopes, space separated.")
    refresh_token = serializers.CharField(
        required=False, help_text="Rotates: each refresh returns a new one."
    )


class OAuthErrorOut(serializers.Serializer):
    error = serializers.CharField(help_text="An RFC 6749 §5.2, RFC 8628 §3.5 or RFC 7591 §3.2.2 error code.")
    error_description = serializers.CharField(required=False)
    error_uri = serializers.CharField(required=False)
    state = serializers.CharField(required=False)


OAUTH_ERROR = OpenApiResponse(OAuthErrorOut, description="An OAuth error (RFC 6749 §5.2).")


class DeviceAuthorizationIn(serializers.Serializer):
    client_id = serializers.CharField()
    scope = serializers.CharField(
        required=False, help_text="Space separated; the client's scopes when omitted."
    )
    resource = serializers.CharField(
        required=False, help_text="RFC 8707: the REST API (default) or the MCP URL."
    )


class DeviceAuthorizationOut(serializers.Serializer):
    device_code = serializers.CharField()
    user_code = serializers.CharField(help_text="Eight characters, shown as XXXX-XXXX.")
    verification_uri = serializers.URLField()
    verification_uri_complete = serializers.URLField()
    expires_in = serializers.IntegerField(help_text="Seconds (900).")
    interval = serializers.IntegerField(help_text="Seconds between polls.")


class ClientMetadataIn(serializers.Serializer):
    redirect_uris = serializers.ListField(child=serializers.CharField(), required=False)
    client_name = serializers.CharField(required=False)
    grant_types = serializers.ListField(
        child=serializers.CharField(), required=False, help_text=f"Some of: {', '.join(oauth.GRANT_TYPES)}."
    )
    response_types = serializers.ListField(child=serializers.CharField(), required=False)
    token_endpoint_auth_method = serializers.ChoiceField(choices=["none"], required=False)
    scope = serializers.CharField(required=False)


class ClientRegisteredOut(serializers.Serializer):
    client_id = serializers.CharField()
    client_id_issued_at = serializers.IntegerField()
    client_name = serializers.CharField()
    redirect_uris = serializers.ListField(child=serializers.CharField())
    grant_types = serializers.ListField(child=serializers.CharField())
    response_types = serializers.ListField(child=serializers.CharField())
    token_endpoint_auth_method = serializers.CharField()
    scope = serializers.CharField()


class RevocationIn(serializers.Serializer):
    token = serializers.CharField()
    token_type_hint = serializers.ChoiceField(choices=["access_token", "refresh_token"], required=False)
    client_id = serializers.CharField()


def present_registered_client(application, client) -> dict:
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
