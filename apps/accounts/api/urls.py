from django.urls import path
from rest_framework.routers import SimpleRouter

from apps.accounts.api import auth_views, oauth_views
from apps.accounts.api.user_views import UserViewSet
from apps.accounts.api.views import ApiTokenViewSet

router = SimpleRouter(trailing_slash=False)
router.register("admin/api-tokens", ApiTokenViewSet, basename="api-token")
router.register("auth/passkey", auth_views.PasskeyViewSet, basename="passkey")

urlpatterns = [
    path("setup/status", auth_views.SetupStatusView.as_view(), name="setup-status"),
    path("setup/passkey/options", auth_views.SetupPasskeyOptionsView.as_view(), name="setup-passkey-options"),
    path("setup/passkey/verify", auth_views.SetupPasskeyVerifyView.as_view(), name="setup-passkey-verify"),
    path("auth/passkey/options", auth_views.PasskeyOptionsView.as_view(), name="passkey-options"),
    path("auth/passkey/verify", auth_views.PasskeyVerifyView.as_view(), name="passkey-verify"),
    path(
        "auth/passkey/register/options",
        auth_views.PasskeyRegisterOptionsView.as_view(),
        name="passkey-register-options",
    ),
    path(
        "auth/passkey/register/verify",
        auth_views.PasskeyRegisterVerifyView.as_view(),
        name="passkey-register-verify",
    ),
    path("auth/magic-link/send", auth_views.MagicLinkSendView.as_view(), name="magic-link-send"),
    path("auth/magic-link/verify", auth_views.MagicLinkVerifyView.as_view(), name="magic-link-verify"),
    path("auth/logout", auth_views.LogoutView.as_view(), name="logout"),
    path("auth/me", auth_views.MeView.as_view(), name="me"),
    path("auth/invite", auth_views.InviteView.as_view(), name="invite"),
    path(
        "auth/invite/accept/options",
        auth_views.InviteAcceptOptionsView.as_view(),
        name="invite-accept-options",
    ),
    path(
        "auth/invite/accept/verify", auth_views.InviteAcceptVerifyView.as_view(), name="invite-accept-verify"
    ),
    path(
        "auth/invite/accept/magic-link",
        auth_views.InviteAcceptMagicLinkView.as_view(),
        name="invite-accept-magic-link",
    ),
    path("oauth/token", oauth_views.TokenView.as_view(), name="oauth-token"),
    path("oauth/device/code", oauth_views.DeviceAuthorizationView.as_view(), name="oauth-device-code"),
    path("oauth/register", oauth_views.RegistrationView.as_view(), name="oauth-register"),
    path("oauth/revoke", oauth_views.RevocationView.as_view(), name="oauth-revoke"),
    *router.urls,
    *router.urls,
    path("admin/users", UserViewSet.as_view({"get": "list"})),
    path("admin/users/<str:pk>", UserViewSet.as_view({"get": "retrieve", "patch": "partial_update"})),
    path("admin/users/<str:pk>/enable", UserViewSet.as_view({"post": "enable"})),
    path("admin/users/<str:pk>/disable", UserViewSet.as_view({"post": "disable"})),
]
