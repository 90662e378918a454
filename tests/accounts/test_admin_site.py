"""The Django admin is for admins (role 50) only."""

import pytest
from django.test import Client

from apps.accounts.models import ApiToken, Role
from tests.factories import make_user


@pytest.mark.parametrize(("role", "status"), [(Role.ADMIN, 200), (Role.EDITOR, 403), (Role.SUBSCRIBER, 403)])
def test_admin_site_access_follows_the_role(role, status):
    client = Client()
    client.force_login(make_user(role))
    assert client.get("/django-admin/", follow=True).status_code == status


def test_a_signed_in_non_admin_gets_a_403_page_not_a_redirect_loop():
    client = Client()
    client.force_login(make_user(Role.EDITOR, email="ed@example.com"))
    response = client.get("/django-admin/accounts/user/", follow=True)
    assert response.redirect_chain == [("/django-admin/login/?next=/django-admin/accounts/user/", 302)]
    assert response.status_code == 403
    assert response["Content-Security-Policy"].startswith("default-src 'self'; script-src 'self'")
    assert response["Cache-Control"] == "no-store"
    html = response.content.decode()
    main = html[html.index('<main id="main" tabindex="-1">') : html.index("</main>") + len("</main>")]
    assert main == (
        '<main id="main" tabindex="-1">\n    \n    \n<h1>No access to the operators\' console</h1>\n'
        '<p role="alert">You are signed in as <strong>ed@example.com</strong> (editor). The operators\' console is '
        "for administrators only, so it is not open to you.</p>\n"
        '<p><a href="/_cms/admin/">Go to the studio</a></p>\n\n  </main>'
    )


def test_an_admin_at_the_console_login_goes_on():
    client = Client()
    client.force_login(make_user(Role.ADMIN))
    response = client.get("/django-admin/login/", {"next": "/django-admin/accounts/user/"})
    assert (response.status_code, response["Location"]) == (302, "/django-admin/accounts/user/")
    elsewhere = client.get("/django-admin/login/", {"next": "https://evil.example/"})
    assert elsewhere["Location"] == "/django-admin/"


def test_admin_creates_a_token_through_the_service_and_shows_it_once():
    admin = make_user(Role.ADMIN)
    client = Client()
    client.force_login(admin)
    response = client.post(
        "/django-admin/accounts/apitoken/add/",
        {
            "user": admin.pk,
            "name": "from admin",
            "scopes": ["content:read"],
            "expires_at_0": "",
            "expires_at_1": "",
        },
        follow=True,
    )
    assert response.status_code == 200
    token = ApiToken.objects.get(name="from admin")
    messages = [str(message) for message in response.context["messages"]]
    assert any("will not be shown again: ec_pat_" in message for message in messages)
    assert token.scopes == ["content:read"] and len(token.token_hash) == 64


@pytest.mark.parametrize(
    "model",
    [
        "accounts/passkey",
        "accounts/invitation",
        "accounts/oauthclient",
        "accounts/oauthgrant",
        "oauth2_provider/application",
        "oauth2_provider/accesstoken",
        "oauth2_provider/refreshtoken",
    ],
)
def test_sign_in_records_are_listed_for_operators(model):
    from apps.accounts.models import Invitation, Passkey

    admin = make_user(Role.ADMIN)
    Passkey.objects.create(user=admin, name="Laptop", credential_id="id", public_key=b"k")
    Invitation.objects.create(
        email="x@example.com", role=10, token_hash="secret", expires_at="2099-01-01T00:00Z"
    )
    client = Client()
    client.force_login(admin)
    response = client.get(f"/django-admin/{model}/")
    assert response.status_code == 200
    assert b"secret" not in response.content
