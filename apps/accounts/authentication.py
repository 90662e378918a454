"""Who is calling: ``Authorization: Bearer …`` with a personal access token or an OAuth access token, or a session.

``authenticate_bearer`` is the one function every face uses for bearer credentials: the REST API through
``BearerTokenAuthentication`` below, and the MCP endpoint with ``resource=oauth.mcp_resource()``. Personal access
tokens (``ec_pat_…``) work on both; an OAuth access token works only on the resource it was issued for (RFC 8707,
RFC 9068 §4 "aud"). The returned Actor carries the token's scopes, and the permission table checks them the same way
for both kinds.

A request without the header is anonymous (the permission check then answers 401); a header with a bad, revoked or
expired token is refused at once with 401 and ``WWW-Authenticate: Bearer … error="invalid_token"`` (RFC 6750 §3).
Browser sessions are Django's; on unsafe methods DRF requires Django's CSRF token from them, and the few anonymous
endpoints that *create* a session check it with ``enforce_csrf`` (login CSRF).
"""

from __future__ import annotations

from django.conf import settings
from rest_framework.authentication import BaseAuthentication, SessionAuthentication
from rest_framework.exceptions import AuthenticationFailed

from apps.accounts import oauth
from apps.accounts.permissions import DEFAULT_SCOPES, Actor
from apps.accounts.services import tokens
from apps.core import replicas
from apps.core.errors import Unauthorized


def authenticate_bearer(raw: str, *, resource: str | None = None) -> Actor:
    """The Actor for a bearer credential presented to ``resource`` (default: the REST API); Unauthorized if none.

    ``ec_pat_`` tokens are personal access tokens, valid on every resource of this service. Anything else is looked
    up as an OAuth access token, which must be live, belong to an active user and have been issued for ``resource``.
    """
    raw = (raw or "").strip()
    if not raw:
        raise Unauthorized("Invalid token.")
    try:
        return _authenticate_bearer(raw, resource=resource)
    except Unauthorized:
        if not replicas.reading_replica():
            raise
    # A credential issued (or a user enabled) in the last moments may not have reached the replica yet.
    with replicas.primary_reads():
        return _authenticate_bearer(raw, resource=resource)


def _authenticate_bearer(raw: str, *, resource: str | None) -> Actor:
    if raw.startswith(tokens.TOKEN_PREFIX):
        token = tokens.api_token_authenticate(raw)
        return Actor(user=token.user, scopes=frozenset(token.scopes), via="token", token_id=token.pk)
    access_token = oauth.access_token_authenticate(raw, resource=resource or oauth.rest_resource())
    return Actor.for_oauth(access_token)


# RFC 6750 §3 `scope`: what to ask for. MCP clients that follow the spec request exactly this (MCP authorization,
# scope selection), so they get least privilege rather than every scope the metadata lists.
SCOPE_PARAMETER = f'scope="{" ".join(DEFAULT_SCOPES)}"'


def bearer_challenge() -> str:
    """The ``WWW-Authenticate`` value for the MCP endpoint's 401 (SPEC §5, RFC 9728 §5.1)."""
    metadata = f"{settings.CMS_BASE_URL}/.well-known/oauth-protected-resource"
    return f'Bearer resource_metadata="{metadata}", {SCOPE_PARAMETER}'


class BearerTokenAuthentication(BaseAuthentication):
    def authenticate(self, request):
        header = request.META.get("HTTP_AUTHORIZATION", "")
        if not header:
            return None
        scheme, _, credential = header.partition(" ")
        if scheme.lower() != "bearer":
            return None
        try:
            actor = authenticate_bearer(credential)
        except Unauthorized as exc:
            raise AuthenticationFailed(exc.message) from exc
        request._request.cms_actor = actor
        return actor.user, actor

    def authenticate_header(self, request) -> str:
        # The REST API's 401 challenge (the first authentication class answers for the view).
        return f'Bearer realm="cms", {SCOPE_PARAMETER}'


def enforce_csrf(request) -> None:
    """Django's CSRF check on a DRF request even when nobody is signed in yet (DRF checks only signed-in sessions).

    Used where an anonymous request starts a session, so another site cannot sign a visitor into an account of its
    choosing. Raises DRF's PermissionDenied (403) when the token is missing or wrong.
    """
    SessionAuthentication().enforce_csrf(request)
