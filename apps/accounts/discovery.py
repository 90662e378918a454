"""OAuth discovery documents, exactly as SPEC §5 lists them (plus the registration endpoint the issue adds).

- RFC 9728 protected-resource metadata at ``/.well-known/oauth-protected-resource`` (and the path form with the
  resource's path appended, where RFC 9728 §3.1 clients look first).
- RFC 8414 authorization-server metadata at ``/_cms/.well-known/oauth-authorization-server`` (SPEC) and at the RFC 8414
  §3.1 form ``/.well-known/oauth-authorization-server/_cms`` (the issuer's path appended, where the MCP SDK looks).

URLs come from ``CMS_BASE_URL``, read on every request.
"""

from __future__ import annotations

from django.http import JsonResponse
from django.views.decorators.http import require_GET

from apps.accounts import oauth
from apps.accounts.permissions import SCOPES


def _document(data: dict) -> JsonResponse:
    response = JsonResponse(data, json_dumps_params={"separators": (",", ":")})
    response["Cache-Control"] = "public, max-age=300"
    return response


@require_GET
def protected_resource_metadata(request):
    return _document(
        {
            "resource": oauth.mcp_resource(),
            "authorization_servers": [oauth.issuer()],
            "scopes_supported": list(SCOPES),
            "bearer_methods_supported": ["header"],
        }
    )


@require_GET
def authorization_server_metadata(request):
    api = oauth.api_base()
    return _document(
        {
            "issuer": oauth.issuer(),
            "authorization_endpoint": f"{oauth.issuer()}/oauth/authorize",
            "token_endpoint": f"{api}/oauth/token",
            "scopes_supported": list(SCOPES),
            "response_types_supported": ["code"],
            "grant_types_supported": [oauth.AUTHORIZATION_CODE, oauth.REFRESH_TOKEN, oauth.DEVICE_CODE],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none"],
            "device_authorization_endpoint": f"{api}/oauth/device/code",
            "registration_endpoint": f"{api}/oauth/register",
        }
    )
