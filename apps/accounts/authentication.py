"""``Authorization: Bearer …`` for the REST API: personal access tokens now, OAuth access tokens later.

A request without the header is anonymous (the permission check then answers 401); a header with a bad, revoked or
expired token is refused at once with 401 and ``WWW-Authenticate: Bearer … error="invalid_token"`` (RFC 6750 §3).
"""

from __future__ import annotations

from rest_framework.authentication import BaseAuthentication
from rest_framework.exceptions import AuthenticationFailed

from apps.accounts import services
from apps.accounts.permissions import Actor
from apps.core.errors import Unauthorized


class BearerTokenAuthentication(BaseAuthentication):
    def authenticate(self, request):
        header = request.META.get("HTTP_AUTHORIZATION", "")
        if not header:
            return None
        scheme, _, credential = header.partition(" ")
        if scheme.lower() != "bearer":
            return None
        credential = credential.strip()
        if not credential.startswith(services.TOKEN_PREFIX):
            raise AuthenticationFailed("Invalid token.")
        try:
            token = services.api_token_authenticate(credential)
        except Unauthorized as exc:
            raise AuthenticationFailed(exc.message) from exc
        request._request.cms_actor = Actor(
            user=token.user, scopes=frozenset(token.scopes), via="token", token_id=token.pk
        )
        return token.user, token

    def authenticate_header(self, request) -> str:
        return 'Bearer realm="cms"'
