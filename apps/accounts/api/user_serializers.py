"""User shapes for ``/admin/users`` (SPEC §2.7, §4.8), their presenter and OpenAPI documentation."""

from __future__ import annotations

from rest_framework import serializers

from apps.accounts.models import Role, User
from apps.core.api.serializers import cursor_field, limit_field
from apps.core.timefmt import iso

ROLE_HELP = "Role number: 10 subscriber, 20 contributor, 30 author, 40 editor, 50 admin."


class UserListQuery(serializers.Serializer):
    cursor = cursor_field()
    limit = limit_field(default=50)
    role = serializers.ChoiceField(choices=Role.values, required=False, help_text=ROLE_HELP)
    search = serializers.CharField(
        required=False, max_length=200, help_text="Words of the email or the name."
    )


class UserUpdateIn(serializers.Serializer):
    name = serializers.CharField(required=False, allow_blank=True, max_length=200)
    role = serializers.ChoiceField(choices=Role.values, required=False, help_text=ROLE_HELP)


class UserOut(serializers.Serializer):
    id = serializers.CharField()
    email = serializers.EmailField()
    name = serializers.CharField(allow_blank=True)
    role = serializers.IntegerField(help_text=ROLE_HELP)
    roleName = serializers.CharField()
    active = serializers.BooleanField(
        help_text="False when disabled: the user's tokens and sessions do not work."
    )
    lastLoginAt = serializers.DateTimeField(allow_null=True)
    createdAt = serializers.DateTimeField()
    updatedAt = serializers.DateTimeField()


def present_user(user: User) -> dict:
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
