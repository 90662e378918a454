"""The OAuth endpoints under ``/_cms/api/oauth/``: token (RFC 6749 §3.2), device authorization (RFC 8628 §3.1),
dynamic client registration (RFC 7591 §3) and revocation (RFC 7009 §2).

These speak their RFCs, not our envelope: form-encoded requests (JSON for registration), unknown parameters ignored,
errors as ``{error, error_description}``. They are still declared with ``@endpoint`` so the permission table, rate
limits (``auth`` group: token and device code) and the OpenAPI document cover them. Clients authenticate in the
request itself (client_id, PKCE verifier, device code), so no session or bearer authentication runs here, and a
browser's cookies cannot turn these requests into something else.
"""

from __future__ import annotations

from django.http import HttpResponse, JsonResponse
from django.http.multipartparser import MultiPartParserError
from drf_spectacular.utils import OpenApiResponse
from oauth2_provider.views.mixins import OAuthLibMixin
from rest_framework.exceptions import ParseError
from rest_framework.parsers import FormParser

from apps.accounts import oauth, services
from apps.accounts.inputs import ClientMetadataIn, DeviceAuthorizationIn, RevocationIn, TokenRequestIn
from apps.accounts.presenters import (
    ClientRegisteredOut,
    DeviceAuthorizationOut,
    OAuthErrorOut,
    OAuthTokenOut,
    present_registered_client,
)
from apps.core.api.parsers import JSONParser
from apps.core.api.views import CmsAPIView, endpoint
from apps.core.errors import ValidationError

OAUTH_ERROR = OpenApiResponse(OAuthErrorOut, description="An OAuth error (RFC 6749 §5.2).")


def _oauthlib_response(headers: dict, body: str, status: int) -> HttpResponse:
    response = HttpResponse(body or "", status=status, content_type="application/json" if body else None)
    for name, value in headers.items():
        response[name] = value
    return response


class OAuthView(OAuthLibMixin, CmsAPIView):
    authentication_classes = []
    parser_classes = [FormParser]

    def handle_exception(self, exc):
        # A body Django cannot parse (multipart without a boundary …) is the client's error, in the RFCs' shape.
        if isinstance(exc, MultiPartParserError):
            return oauth.OAuthProblem(
                "invalid_request", "The body must be application/x-www-form-urlencoded."
            ).response()
        return super().handle_exception(exc)


class TokenView(OAuthView):
    @endpoint(
        "public",
        body=TokenRequestIn,
        validate_body=False,
        response=OAuthTokenOut,
        envelope=False,
        ratelimit="auth",
        error_bodies={400: OAUTH_ERROR, 401: OAUTH_ERROR},
        summary="OAuth token endpoint: authorization code (PKCE), refresh token, device code",
    )
    def post(self, request):
        """RFC 6749 §3.2. Authorization codes need the PKCE `code_verifier` (S256) and the same `redirect_uri`;
        refresh tokens rotate; device codes answer `authorization_pending`, `slow_down`, `access_denied` or
        `expired_token` until approved (RFC 8628 §3.5)."""
        form = request._request.POST
        if form.get("grant_type") == oauth.DEVICE_CODE:
            problem = oauth.device_code_poll(
                device_code=form.get("device_code", ""), client_id=form.get("client_id", "")
            )
            if problem is not None:
                return problem.response()
        _url, headers, body, status = self.create_token_response(request._request)
        return _oauthlib_response(headers, body, status)


class DeviceAuthorizationView(OAuthView):
    @endpoint(
        "public",
        body=DeviceAuthorizationIn,
        validate_body=False,
        response=DeviceAuthorizationOut,
        envelope=False,
        ratelimit="auth",
        error_bodies={400: OAUTH_ERROR, 401: OAUTH_ERROR},
        summary="OAuth device authorization: a device code and a code for the user to enter",
    )
    def post(self, request):
        """RFC 8628 §3.1. The user enters `user_code` at `verification_uri` within 15 minutes; the device polls the
        token endpoint no faster than `interval` seconds."""
        form = request._request.POST
        try:
            data = services.device_authorization_create(
                client_id=form.get("client_id", ""),
                scope=form.get("scope"),
                resources=form.getlist("resource"),
            )
        except services.DeviceRefused as refused:
            return refused.problem.response()
        response = JsonResponse(data, json_dumps_params={"separators": (",", ":")})
        response["Cache-Control"] = "no-store"
        return response


class RegistrationView(OAuthView):
    parser_classes = [JSONParser]

    @endpoint(
        "public",
        body=ClientMetadataIn,
        validate_body=False,
        response=ClientRegisteredOut,
        status=201,
        envelope=False,
        ratelimit="auth",
        error_bodies={400: OAUTH_ERROR},
        summary="OAuth dynamic client registration (public clients)",
    )
    def post(self, request):
        """RFC 7591 §3. Open to anyone, for public clients only (`token_endpoint_auth_method: none`); redirect URIs
        must be https, or http on a loopback host. Metadata we do not use is ignored."""
        try:
            metadata = request.data
            application, client = services.oauth_client_register(metadata=metadata)
        except ParseError:
            return oauth.OAuthProblem("invalid_client_metadata", "The body must be JSON.").response()
        except ValidationError as invalid:
            return oauth.OAuthProblem("invalid_client_metadata", invalid.message).response()
        except services.RegistrationRefused as refused:
            return oauth.OAuthProblem(refused.error, refused.description).response()
        response = JsonResponse(
            present_registered_client(application, client),
            status=201,
            json_dumps_params={"separators": (",", ":")},
        )
        response["Cache-Control"] = "no-store"
        return response


class RevocationView(OAuthView):
    @endpoint(
        "public",
        body=RevocationIn,
        validate_body=False,
        response=None,
        envelope=False,
        error_bodies={400: OAUTH_ERROR, 401: OAUTH_ERROR},
        summary="OAuth token revocation",
    )
    def post(self, request):
        """RFC 7009 §2: revokes an access or refresh token of the calling client (and its pair); answers 200 also
        for unknown tokens."""
        _url, headers, body, status = self.create_revocation_response(request._request)
        return _oauthlib_response(headers, body, status)
