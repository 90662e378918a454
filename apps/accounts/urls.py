"""The sign-in pages under /_cms/admin/ (docs/architecture.md §1); the consent page is mounted at /_cms/oauth/authorize."""

from django.urls import path

from apps.accounts import pages

app_name = "accounts"

urlpatterns = [
    path("login", pages.login_page, name="login"),
    path("login/link", pages.login_link, name="login-link"),
    path("logout", pages.logout_page, name="logout"),
    path("setup", pages.setup_page, name="setup"),
    path("invite/<str:token>", pages.invite_page, name="invite"),
    path("account", pages.account_page, name="account"),
    path("device", pages.device_page, name="device"),
]
