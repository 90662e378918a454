"""``authenticate_bearer``: the one function the REST API and the MCP endpoint use for bearer credentials."""

from __future__ import annotations

import pytest
from django.test import Client

from apps.accounts import oauth
from apps.accounts.authentication import authenticate_bearer, bearer_challenge
from apps.accounts.models import Role
from apps.core.errors import Unauthorized
from tests.accounts.oauth_helpers import authorization_code, exchange, pkce, register_client
from tests.factories import make_token, make_user

MCP = "http://localhost:8000/_cms/api/mcp"


@pytest.fixture
def editor():
    return make_user(Role.EDITOR)


def oauth_token(api, user, **extra) -> str:
    browser = Client()
    browser.force_login(user)
    client_id = register_client(api)
    verifier, challenge = pkce()
    code = authorization_code(browser, client_id, challenge, **extra)
    return exchange(api, client_id, code, verifier).json()["access_token"]


def test_personal_access_tokens_work_for_every_resource(editor):
    token, raw = make_token(editor, ["content:read"])
    for resource in (None, oauth.rest_resource(), oauth.mcp_resource()):
        actor = authenticate_bearer(raw, resource=resource)
        assert (actor.user, actor.scopes, actor.via, actor.token_id) == (
            editor,
            frozenset({"content:read"}),
            "token",
            token.pk,
        )


def test_oauth_tokens_work_only_for_their_resource(api, editor):
    mcp_token = oauth_token(api, editor, resource=MCP)
    actor = authenticate_bearer(mcp_token, resource=oauth.mcp_resource())
    assert (actor.user, actor.scopes, actor.via) == (
        editor,
        frozenset({"content:read", "content:write"}),
        "oauth",
    )
    with pytest.raises(Unauthorized):
        authenticate_bearer(mcp_token)  # the REST API is the default resource
    rest_token = oauth_token(api, editor)
    assert authenticate_bearer(rest_token).user == editor
    with pytest.raises(Unauthorized) as refused:
        authenticate_bearer(rest_token, resource=oauth.mcp_resource())
    assert refused.value.message == (
        "This token was issued for http://localhost:8000/_cms/api, not for http://localhost:8000/_cms/api/mcp; "
        "request a token with resource=http://localhost:8000/_cms/api/mcp."
    )


@pytest.mark.parametrize("raw", ["", "   ", "nonsense", "ec_pat_" + "x" * 43])
def test_anything_else_is_refused(raw):
    with pytest.raises(Unauthorized):
        authenticate_bearer(raw, resource=oauth.mcp_resource())


def test_the_mcp_challenge_points_at_the_resource_metadata():
    assert bearer_challenge() == (
        'Bearer resource_metadata="http://localhost:8000/.well-known/oauth-protected-resource", '
        'scope="content:read content:write media:read media:write schema:read"'
    )
