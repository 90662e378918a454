"""Sessions, CSRF, ``/auth/me``, sign-out, and the server-rendered pages (account, login, admin redirect)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client

from apps.accounts.models import ApiToken, Passkey, Role
from tests.conftest import ApiClient
from tests.factories import make_token, make_user

API = "/_cms/api"
ROOT = Path(__file__).resolve().parents[2]
PAGES = [
    ("/_cms/admin/login", False),
    ("/_cms/admin/setup", False),
    ("/_cms/admin/account", True),
    ("/_cms/admin/device", True),
    ("/_cms/admin/device?user_code=NOPE", True),
]


@pytest.fixture
def admin():
    return make_user(Role.ADMIN, email="admin@example.com", name="Ada")


@pytest.fixture
def admin_browser(admin) -> Client:
    client = Client()
    client.force_login(admin)
    return client


# --- /auth/me, sign-out, sessions -----------------------------------------------------------------------------------


def test_me_for_each_kind_of_caller(api, admin):
    assert api.get(f"{API}/auth/me").status_code == 401
    _, raw = make_token(admin, ["content:read", "media:read"])
    by_token = ApiClient().as_token(raw).get(f"{API}/auth/me")
    assert by_token.json() == {
        "success": True,
        "data": {
            "user": {"id": admin.pk, "email": "admin@example.com", "name": "Ada", "role": 50},
            "authenticatedBy": "token",
            "scopes": ["content:read", "media:read"],
        },
    }
    session = ApiClient()
    session.force_login(admin)
    data = session.get(f"{API}/auth/me").json()["data"]
    assert data["authenticatedBy"] == "session"
    assert data["scopes"] == [
        "content:read",
        "content:write",
        "media:read",
        "media:write",
        "schema:read",
        "schema:write",
        "admin",
    ]


def test_signing_out_ends_the_session(admin):
    session = ApiClient()
    session.force_login(admin)
    response = session.post(f"{API}/auth/logout", {}, format="json")
    assert response.status_code == 200
    assert response.json() == {"success": True, "data": {"success": True}}
    assert session.get(f"{API}/auth/me").status_code == 401


def test_unsafe_session_requests_need_the_csrf_token(admin):
    browser = ApiClient(enforce_csrf_checks=True)
    browser.force_login(admin)
    refused = browser.post(f"{API}/auth/logout", {}, format="json")
    assert refused.status_code == 403
    assert refused.json()["error"]["message"].startswith("CSRF Failed")
    page = browser.get("/_cms/admin/account")
    token = re.search(r'name="csrf-token" content="([^"]+)"', page.content.decode()).group(1)
    assert browser.post(f"{API}/auth/logout", {}, format="json", HTTP_X_CSRFTOKEN=token).status_code == 200
    # Bearer tokens are not cookies: no CSRF token needed.
    _, raw = make_token(admin, ["admin"])
    assert (
        ApiClient(enforce_csrf_checks=True)
        .as_token(raw)
        .post(f"{API}/auth/passkey/register/options", {}, format="json")
        .status_code
        == 200
    )


def test_signing_in_needs_the_csrf_token_too():
    # Login CSRF: another site must not sign a visitor into an account of its choosing.
    response = ApiClient(enforce_csrf_checks=True).post(
        f"{API}/auth/passkey/verify",
        {"id": "x", "rawId": "x", "response": {}, "type": "public-key"},
        format="json",
    )
    assert response.status_code == 403


def test_a_disabled_users_session_stops_at_once(admin):
    session = ApiClient()
    session.force_login(admin)
    assert session.get(f"{API}/admin/api-tokens").status_code == 200
    admin.is_active = False
    admin.save()
    assert session.get(f"{API}/admin/api-tokens").status_code == 401
    page = Client()
    editor = make_user(Role.EDITOR, email="ed@example.com")
    page.force_login(editor)
    editor.is_active = False
    editor.save()
    assert page.get("/_cms/admin/account").status_code == 302


@pytest.mark.parametrize(("role", "status"), [(Role.ADMIN, 200), (Role.EDITOR, 403)])
def test_a_session_has_the_full_access_of_its_role(role, status):
    session = ApiClient()
    session.force_login(make_user(role))
    assert session.get(f"{API}/admin/api-tokens").status_code == status


@pytest.mark.parametrize(
    ("base", "secure"), [("https://cms.example.com", "True"), ("http://localhost:8000", "False")]
)
def test_cookies_are_secure_when_served_over_https(base, secure):
    env = {key: value for key, value in os.environ.items() if not key.startswith("CMS_")}
    env.update({"CMS_BASE_URL": base, "DJANGO_SETTINGS_MODULE": "cms_project.settings"})
    code = (
        "from django.conf import settings;"
        "print(settings.SESSION_COOKIE_SECURE, settings.CSRF_COOKIE_SECURE, settings.SESSION_COOKIE_HTTPONLY,"
        " settings.SESSION_COOKIE_SAMESITE)"
    )
    output = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {code}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert output == [secure, secure, "True", "Lax"]


@pytest.mark.parametrize(
    ("environment", "seconds"),
    [
        ({"CMS_BASE_URL": "https://cms.example.com"}, "31536000"),
        ({"CMS_BASE_URL": "https://cms.example.com", "CMS_HSTS_SECONDS": "600"}, "600"),
        ({"CMS_BASE_URL": "https://cms.example.com", "CMS_HSTS_SECONDS": "0"}, "0"),
        ({"CMS_BASE_URL": "http://localhost:8000"}, "0"),
    ],
)
def test_hsts_is_on_by_default_for_an_https_base_url(environment, seconds):
    env = {key: value for key, value in os.environ.items() if not key.startswith("CMS_")}
    env.update({**environment, "DJANGO_SETTINGS_MODULE": "cms_project.settings"})
    output = subprocess.run(
        [
            sys.executable,
            "-c",
            "import django; django.setup(); from django.conf import settings; print(settings.SECURE_HSTS_SECONDS)",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert output == seconds


def test_hsts_is_sent_on_https_answers(settings):
    settings.SECURE_HSTS_SECONDS = 31536000
    secure = Client().get("/_cms/admin/login", secure=True)
    assert secure["Strict-Transport-Security"] == "max-age=31536000"
    assert "Strict-Transport-Security" not in Client().get("/_cms/admin/login")


# --- Pages ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("path", "signed_in"), PAGES)
def test_pages_are_plain_self_contained_and_locked_down(path, signed_in):
    browser = Client()
    if signed_in:
        browser.force_login(make_user(Role.ADMIN))
    response = browser.get(path)
    assert response.status_code == (400 if "NOPE" in path else 200)
    html = response.content.decode()
    assert '<html lang="en">' in html and '<main id="main" tabindex="-1">' in html
    assert not re.search(r'(src|href)="(https?:)?//', html), "no external assets"
    assert response["Content-Security-Policy"].startswith("default-src 'self'; script-src 'self'")
    assert response["Cache-Control"] == "no-store"
    assert response["X-Frame-Options"] == "DENY"
    # Every input a person fills in has a label.
    for field_id in re.findall(r'<input type="(?:text|email)"[^>]* id="([^"]+)"', html):
        assert f'for="{field_id}"' in html, field_id


def test_the_static_assets_are_served():
    for path in ("/static/cms/passkeys.js", "/static/cms/ui.css"):
        response = Client().get(path)
        assert response.status_code == 200, path


def test_pages_need_a_session(client):
    for path in ("/_cms/admin/account", "/_cms/admin/device", "/_cms/admin/"):
        response = client.get(path)
        assert response.status_code == 302
        assert response["Location"].startswith("/_cms/admin/login?next=")


def test_the_login_page_sends_signed_in_people_on(admin_browser):
    response = admin_browser.get("/_cms/admin/login", {"next": "/_cms/oauth/authorize?client_id=x"})
    assert response.status_code == 302 and response["Location"] == "/_cms/oauth/authorize?client_id=x"
    elsewhere = admin_browser.get("/_cms/admin/login", {"next": "https://evil.example/"})
    assert elsewhere["Location"] == "/_cms/admin/"


def test_the_django_admin_signs_in_on_our_page(client):
    response = client.get("/django-admin/login/", {"next": "/django-admin/accounts/user/"})
    assert response.status_code == 302
    assert response["Location"] == "/_cms/admin/login?next=%2Fdjango-admin%2Faccounts%2Fuser%2F"
    assert client.get("/django-admin/")["Location"].startswith("/django-admin/login/")


def test_the_logout_page(admin_browser):
    response = admin_browser.post("/_cms/admin/logout")
    assert response.status_code == 302 and response["Location"] == "/_cms/admin/login"
    assert admin_browser.get("/_cms/admin/account").status_code == 302


def test_account_page_creates_shows_once_and_revokes_tokens(admin_browser, admin):
    created = admin_browser.post(
        "/_cms/admin/account", {"action": "create-token", "name": "site build", "scopes": ["content:read"]}
    )
    assert created.status_code == 200
    html = created.content.decode()
    raw = re.search(r'id="new-token-value" readonly value="(ec_pat_[A-Za-z0-9_-]{43})"', html).group(1)
    assert ApiClient().as_token(raw).get(f"{API}/auth/me").status_code == 200
    assert raw not in admin_browser.get("/_cms/admin/account").content.decode()
    token = ApiToken.objects.get(name="site build")
    revoked = admin_browser.post("/_cms/admin/account", {"action": "revoke-token", "token": token.pk})
    assert revoked.status_code == 302
    assert ApiClient().as_token(raw).get(f"{API}/auth/me").status_code == 401
    assert "Token revoked." in admin_browser.get("/_cms/admin/account").content.decode()


def test_account_page_refuses_bad_token_input(admin_browser):
    response = admin_browser.post("/_cms/admin/account", {"action": "create-token", "name": "", "scopes": []})
    assert response.status_code == 400
    assert "This field is required." in response.content.decode()
    assert not ApiToken.objects.exists()


def test_account_page_for_non_admins_has_no_tokens():
    editor = Client()
    editor.force_login(make_user(Role.EDITOR))
    html = editor.get("/_cms/admin/account").content.decode()
    assert "API tokens" not in html
    refused = editor.post(
        "/_cms/admin/account", {"action": "create-token", "name": "x", "scopes": ["content:read"]}
    )
    assert refused.status_code == 403
    assert not ApiToken.objects.exists()


def test_account_page_renames_and_removes_passkeys(admin_browser, admin):
    first = Passkey.objects.create(user=admin, name="Laptop", credential_id="a", public_key=b"k")
    Passkey.objects.create(user=admin, name="Phone", credential_id="b", public_key=b"k")
    renamed = admin_browser.post(
        "/_cms/admin/account", {"action": "rename", "passkey": first.pk, "name": "Desk"}
    )
    assert renamed.status_code == 302
    removed = admin_browser.post("/_cms/admin/account", {"action": "remove", "passkey": first.pk})
    assert removed.status_code == 302
    assert list(Passkey.objects.values_list("name", flat=True)) == ["Phone"]
    last = Passkey.objects.get()
    refused = admin_browser.post("/_cms/admin/account", {"action": "remove", "passkey": last.pk})
    assert refused.status_code == 409
    assert "This is your only passkey" in refused.content.decode()


@pytest.mark.parametrize(
    ("path", "body", "content_type"),
    [
        (f"{API}/auth/passkey/options", "{}", "application/json"),
        (f"{API}/auth/magic-link/send", '{"email": "a@example.com"}', "application/json"),
        (f"{API}/oauth/device/code", "client_id=none", "application/x-www-form-urlencoded"),
        (
            f"{API}/oauth/token",
            "grant_type=refresh_token&client_id=x&refresh_token=y",
            "application/x-www-form-urlencoded",
        ),
        (f"{API}/oauth/register", "{}", "application/json"),
    ],
)
def test_sign_in_endpoints_are_rate_limited(api, settings, path, body, content_type):
    settings.CMS_RATE_LIMITS = {**settings.CMS_RATE_LIMITS, "auth": "2/m"}
    for _ in range(2):
        assert api.post(path, body, content_type=content_type).status_code != 429
    limited = api.post(path, body, content_type=content_type)
    assert limited.status_code == 429
    assert int(limited["Retry-After"]) >= 1
    assert limited.json()["error"]["code"] == "RATE_LIMITED"
