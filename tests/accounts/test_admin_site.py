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
