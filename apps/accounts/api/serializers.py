"""API token input and output shapes (camelCase on the wire)."""

from __future__ import annotations

from rest_framework import serializers

from apps.accounts.models import ApiToken, User
from apps.accounts.permissions import SCOPES
from apps.core.api.serializers import cursor_field, limit_field
from apps.core.timefmt import iso


class TokenListQuery(serializers.Serializer):
    cursor = cursor_field()
    limit = limit_field(default=50)
    userId = serializers.CharField(required=False, max_length=26, help_text="Only tokens of this user.")


class TokenCreateIn(serializers.Serializer):
    name = serializers.CharField(max_length=100, help_text="What the token is for, e.g. 'CI deploy'.")
    scopes = serializers.ListField(
        child=serializers.ChoiceField(choices=SCOPES), allow_empty=False, help_text="Scopes of SPEC §5."
    )
    expiresAt = serializers.DateTimeField(
        required=False, allow_null=True, help_text="ISO 8601; never when omitted."
    )
    userId = serializers.CharField(
        required=False, max_length=26, help_text="The user the token acts as; the caller when omitted."
    )


class UserRefOut(serializers.Serializer):
    id = serializers.CharField()
    email = serializers.EmailField()
    name = serializers.CharField()
    role = serializers.IntegerField()


class TokenOut(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField()
    prefix = serializers.CharField(help_text="The first characters of the token, to recognise it.")
    scopes = serializers.ListField(child=serializers.CharField())
    expiresAt = serializers.DateTimeField(allow_null=True)
    lastUsedAt = serializers.DateTimeField(allow_null=True)
    revokedAt = serializers.DateTimeField(allow_null=True)
    createdAt = serializers.DateTimeField()
    user = UserRefOut()


class TokenCreatedOut(serializers.Serializer):
    item = TokenOut()
    token = serializers.CharField(help_text="The secret token. Shown once: store it now.")


def present_user_ref(user: User) -> dict:
    return {"id": user.pk, "email": user.email, "name": user.name, "role": user.role}


def present_token(token: ApiToken) -> dict:
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
