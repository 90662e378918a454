"""Django admin for users, API tokens, passkeys, invitations and OAuth clients' registration details. Tokens are
created through the same service as the API, and the secret is shown once in the confirmation message. Passkeys and
invitations are created by their owners through the sign-in pages; here operators can see and remove them. (The
toolkit registers its own admin for OAuth applications, tokens and grants.)"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.models import Group

from apps.accounts import services
from apps.accounts.models import ApiToken, Invitation, OAuthClient, Passkey, User
from apps.accounts.permissions import SCOPES, Actor

# Roles and the permission table decide who may do what; Django's groups play no part, so the console hides them.
admin.site.unregister(Group)


@admin.register(User)
class UserAdmin(admin.ModelAdmin):
    list_display = ("email", "name", "role", "is_active", "created_at")
    list_filter = ("role", "is_active")
    search_fields = ("email", "name")
    ordering = ("email",)
    fields = ("email", "name", "role", "is_active", "last_login", "created_at", "updated_at")
    readonly_fields = ("last_login", "created_at", "updated_at")


class ApiTokenForm(forms.ModelForm):
    scopes = forms.MultipleChoiceField(
        choices=[(scope, scope) for scope in SCOPES], widget=forms.CheckboxSelectMultiple
    )

    class Meta:
        model = ApiToken
        fields = ("user", "name", "scopes", "expires_at")


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    form = ApiTokenForm
    list_display = (
        "name",
        "prefix",
        "user",
        "scopes",
        "expires_at",
        "last_used_at",
        "revoked_at",
        "created_at",
    )
    list_filter = ("revoked_at",)
    search_fields = ("name", "prefix", "user__email")
    actions = ["revoke"]

    def get_readonly_fields(self, request, obj=None):
        # A token's secret cannot be changed after creation; only its record is shown.
        if obj is not None:
            return (
                "user",
                "name",
                "scopes",
                "expires_at",
                "prefix",
                "last_used_at",
                "revoked_at",
                "created_at",
            )
        return ()

    def save_model(self, request, obj, form, change):
        if change:
            return
        token, raw = services.api_token_create(
            actor=Actor.for_session(request.user),
            user=form.cleaned_data["user"],
            name=form.cleaned_data["name"],
            scopes=list(form.cleaned_data["scopes"]),
            expires_at=form.cleaned_data.get("expires_at"),
        )
        obj.pk = token.pk
        messages.warning(request, f"Token created. Copy it now, it will not be shown again: {raw}")

    @admin.action(description="Revoke selected tokens")
    def revoke(self, request, queryset):
        actor = Actor.for_session(request.user)
        tokens = list(queryset.filter(revoked_at__isnull=True).values_list("pk", flat=True))
        for token_id in tokens:
            services.api_token_revoke(actor=actor, token_id=token_id)
        messages.success(request, f"Revoked {len(tokens)} token(s).")


@admin.register(Passkey)
class PasskeyAdmin(admin.ModelAdmin):
    list_display = ("name", "user", "created_at", "last_used_at", "backed_up")
    search_fields = ("name", "user__email")
    fields = ("user", "name", "aaguid", "transports", "backed_up", "sign_count", "created_at", "last_used_at")
    readonly_fields = (
        "user",
        "aaguid",
        "transports",
        "backed_up",
        "sign_count",
        "created_at",
        "last_used_at",
    )

    def has_add_permission(self, request):
        return False  # a passkey is made by its authenticator, on the account page


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    list_display = ("email", "role", "invited_by", "created_at", "expires_at", "accepted_at", "revoked_at")
    list_filter = ("role",)
    search_fields = ("email",)
    exclude = ("token_hash",)
    readonly_fields = (
        "email",
        "role",
        "invited_by",
        "expires_at",
        "accepted_at",
        "accepted_user",
        "created_at",
    )

    def has_add_permission(self, request):
        return False  # invitations are sent with POST /_cms/api/auth/invite, which mails the link


@admin.register(OAuthClient)
class OAuthClientAdmin(admin.ModelAdmin):
    list_display = ("application", "grant_types", "scopes", "created_at")
    search_fields = ("application__name", "application__client_id")
    readonly_fields = ("application", "created_at")
