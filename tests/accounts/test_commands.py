"""Management commands for headless set-up: cms_setup and cms_token."""

import re
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from apps.accounts.models import ApiToken, Role, User
from apps.core.timefmt import now
from tests.conftest import ApiClient


def run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_cms_setup_creates_the_first_admin_once_and_prints_a_working_token():
    output = run("cms_setup", "--email", "Owner@Example.com", "--name", "Owner", "--print-token")
    raw = re.search(r"(ec_pat_\S+)", output).group(1)
    admin = User.objects.get()
    assert (admin.email, admin.name, admin.role) == ("owner@example.com", "Owner", Role.ADMIN)
    assert ApiClient().as_token(raw).get("/_cms/api/admin/api-tokens").status_code == 200
    # The first run says how a front end reads content: a public collection, or a subscriber's read-only token.
    assert '{"public": true}' in output
    assert "cms_token create --email <their email> --scopes content:read --name front-end" in output

    again = run("cms_setup", "--email", "other@example.com", "--print-token")
    assert "already exists (owner@example.com)" in again
    assert "ec_pat_" not in again.replace("ec_pat_", "", 0).split("New token")[0]
    assert User.objects.count() == 1
    assert ApiToken.objects.count() == 1


def test_cms_setup_promotes_an_existing_user_with_that_email():
    User.objects.create_user("editor@example.com", name="Ed", role=Role.EDITOR)
    run("cms_setup", "--email", "editor@example.com")
    assert User.objects.get().role == Role.ADMIN


def test_cms_setup_rejects_a_bad_address():
    with pytest.raises(CommandError, match="Not a valid email address"):
        run("cms_setup", "--email", "not-an-address")


def test_cms_token_create_list_revoke(admin_user):
    raw = run("cms_token", "create", "--email", admin_user.email, "--scopes", "admin", "--name", "ci").strip()
    assert re.fullmatch(r"ec_pat_[A-Za-z0-9_-]{43}", raw)
    token = ApiToken.objects.get(name="ci")
    listing = run("cms_token", "list")
    assert token.pk in listing and raw not in listing
    assert "Revoked" in run("cms_token", "revoke", token.pk)
    assert ApiClient().as_token(raw).get("/_cms/api/admin/api-tokens").status_code == 401


def test_cms_token_refuses_scopes_beyond_the_role():
    User.objects.create_user("sub@example.com", role=Role.SUBSCRIBER)
    with pytest.raises(CommandError, match="cannot use: schema:write"):
        run("cms_token", "create", "--email", "sub@example.com", "--scopes", "schema:write", "--name", "x")


def test_cms_token_unknown_user():
    with pytest.raises(CommandError, match="No user with email"):
        run("cms_token", "create", "--email", "ghost@example.com", "--scopes", "admin", "--name", "x")


@pytest.mark.parametrize("days", ["0", "-3"])
def test_cms_token_refuses_an_expiry_that_is_not_in_the_future(admin_user, days):
    # 0 used to mean "never expires" by accident; a negative number made a token dead on arrival.
    with pytest.raises(CommandError) as refused:
        run(
            "cms_token",
            "create",
            "--email",
            admin_user.email,
            "--scopes",
            "admin",
            "--name",
            "x",
            "--expires-days",
            days,
        )
    assert str(refused.value) == (
        f"--expires-days must be 1 or more (got {days}); leave it out for a token that never expires."
    )
    assert not ApiToken.objects.exists()


def test_cms_token_expires_after_the_days_given(admin_user):
    run(
        "cms_token",
        "create",
        "--email",
        admin_user.email,
        "--scopes",
        "admin",
        "--name",
        "x",
        "--expires-days",
        "2",
    )
    token = ApiToken.objects.get()
    assert timedelta(days=1, hours=23, minutes=59) < token.expires_at - now() <= timedelta(days=2)
