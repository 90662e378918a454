"""The Django admin is for admins (role 50) only."""

import pytest
from django.test import Client

from apps.accounts.models import ApiToken, Role
from tests.factories import make_user


@pytest.mark.parametrize(("role", "status"), [(Role.ADMIN, 200), (Role.EDITOR, 302), (Role.SUBSCRIBER, 302)])
def test_admin_site_access_follows_the_role(role, status):
    client = Client()
    client.force_login(make_user(role))
    assert client.get("/django-admin/").status_code == status


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
