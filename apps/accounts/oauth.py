"""OAuth 2.1 on django-oauth-toolkit: what we configure, and what we add where the toolkit falls short.

The toolkit (with oauthlib) parses requests, issues and stores tokens and answers in RFC 6749 form. This module:

- **PKCE, S256 only** (RFC 7636 §4.2, RFC 9700 §2.1.1): the server knows no other method, so ``plain`` (or no method,
  which means ``plain``) is refused before the consent page is shown; a missing or wrong verifier is
  ``invalid_grant``.
- **Authorization codes** are stored hashed (``OAuthGrant.code``), valid ten minutes, used once: redeeming one is a
  conditional UPDATE, and a second presentation revokes the refresh-token family (and so the access tokens) it was
  exchanged for (RFC 6749 §4.1.2, RFC 9700 §4.5).
- **Refresh tokens** rotate; presenting a rotated one revokes the whole family (the toolkit's reuse protection);
  a family ends 90 days after the grant that started it, however often it is refreshed (``OAuthTokenFamily``).
- **Scopes granted** = requested ∩ the client's registered scopes ∩ what the user's role allows (SPEC §5 minimum roles,
  ``permissions.allowed_scopes``); unknown scope names are dropped; an empty result is ``invalid_scope``. A request
  without ``scope`` asks for ``permissions.DEFAULT_SCOPES`` (not ``schema:write`` or ``admin``), and the consent and
  device pages never tick those two for the user.
- **Resources** (RFC 8707): a token is bound to the resource it was requested for, either the REST API
  (``{base}/_cms/api``) or the MCP endpoint (``{base}/_cms/api/mcp``); any other value is ``invalid_target``, and a
  token requested without one is bound to the REST API, except a device-flow token, which is bound to both (the
  tool server works without asking; ``device_default_resources``). ``access_token_authenticate`` checks the binding.
- **Device flow** (RFC 8628): codes expire after 15 minutes, the device code is stored hashed and exchanged once,
  polling faster than the interval gets ``slow_down`` (and a five-second longer interval), denial ``access_denied``.
- **Grant types per client**: the toolkit's Application has one; a registered client may have several
  (``OAuthClient.grant_types``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.http import JsonResponse
from oauth2_provider.models import (
    AbstractApplication,
    get_access_token_model,
    get_application_model,
    get_device_grant_model,
    get_grant_model,
    get_refresh_token_model,
)
from oauth2_provider.oauth2_validators import OAuth2Validator
from oauthlib.oauth2 import Server
from oauthlib.oauth2.rfc6749 import errors as oauth_errors
from oauthlib.oauth2.rfc6749.grant_types.authorization_code import code_challenge_method_s256

from apps.accounts.fields import sha256_hex
from apps.accounts.models import OAuthClient, OAuthTokenFamily, User
from apps.accounts.permissions import DEFAULT_SCOPES, DELIBERATE_SCOPES, SCOPES, allowed_scopes
from apps.core.errors import Unauthorized
from apps.core.timefmt import iso, now

logger = logging.getLogger("cms.oauth")

AUTHORIZATION_CODE = "authorization_code"
REFRESH_TOKEN = "refresh_token"  # noqa: S105 (a grant type name)
DEVICE_CODE = "urn:ietf:params:oauth:grant-type:device_code"
GRANT_TYPES = (AUTHORIZATION_CODE, REFRESH_TOKEN, DEVICE_CODE)


# --- Where things are -----------------------------------------------------------------------------------------------


def issuer() -> str:
    return f"{settings.CMS_BASE_URL}/_cms"


def api_base() -> str:
    return f"{settings.CMS_BASE_URL}{settings.CMS_API_PREFIX}"


def rest_resource() -> str:
    """The REST API as an RFC 8707 resource: tokens requested without a resource are bound to it."""
    return api_base()


def mcp_resource() -> str:
    """The MCP endpoint as an RFC 8707/RFC 9728 resource."""
    return f"{api_base()}/mcp"


def canonical_resource(uri: str) -> str | None:
    """Our identifier for ``uri`` (trailing slashes ignored), or None when it is not a resource of this service."""
    if not isinstance(uri, str):
        return None
    wanted = uri.rstrip("/")
    for resource in (rest_resource(), mcp_resource()):
        if wanted == resource:
            return resource
    return None


def device_verification_uri() -> str:
    return f"{settings.CMS_BASE_URL}/_cms/admin/device"


# --- Clients and scopes ---------------------------------------------------------------------------------------------


def client_profile(application) -> OAuthClient | None:
    try:
        return application.cms_client
    except OAuthClient.DoesNotExist:
        return None


def client_grant_types(application) -> set[str]:
    profile = client_profile(application)
    if profile is not None:
        return set(profile.grant_types) | {REFRESH_TOKEN}
    # Applications created in the Django admin: their one grant type, plus refresh.
    if application.authorization_grant_type == AbstractApplication.GRANT_AUTHORIZATION_CODE:
        return {AUTHORIZATION_CODE, REFRESH_TOKEN}
    if application.authorization_grant_type == AbstractApplication.GRANT_DEVICE_CODE:
        return {DEVICE_CODE, REFRESH_TOKEN}
    return set()


def client_scopes(application) -> list[str]:
    profile = client_profile(application)
    registered = set(profile.scopes) if profile is not None and profile.scopes else set(SCOPES)
    return [scope for scope in SCOPES if scope in registered]


def default_scopes(application) -> list[str]:
    """What a request without ``scope`` asks for: DEFAULT_SCOPES, as far as the client may have them."""
    registered = set(client_scopes(application))
    return [scope for scope in DEFAULT_SCOPES if scope in registered]


def grantable_scopes(requested, *, application, user: User | None) -> list[str]:
    """requested ∩ client's ∩ role-allowed (when the user is known), in the canonical order of SCOPES."""
    wanted = set(requested or ())
    allowed = set(client_scopes(application))
    if user is not None:
        allowed &= allowed_scopes(user.role)
    return [scope for scope in SCOPES if scope in wanted and scope in allowed]


def scope_descriptions(scopes) -> list[tuple[str, str]]:
    described = settings.OAUTH2_PROVIDER["SCOPES"]
    return [(scope, described[scope]) for scope in scopes if scope in described]


DELIBERATE_WARNINGS = {
    "schema:write": "It can delete collections and fields, and the content in them.",
    "admin": "It can do everything your role allows, including creating tokens and inviting people.",
}


def consent_choices(offered, *, ticked) -> list[dict]:
    """The scope checkboxes of the consent and device pages: each offered scope with its description, ticked if in
    ``ticked``, and for DELIBERATE_SCOPES a warning (they are never ticked for the user)."""
    return [
        {
            "scope": scope,
            "description": description,
            "ticked": scope in ticked,
            "deliberate": scope in DELIBERATE_SCOPES,
            "warning": DELIBERATE_WARNINGS.get(scope, ""),
        }
        for scope, description in scope_descriptions(offered)
    ]


def preticked(offered) -> list[str]:
    """What a consent page ticks for the user: what the client asked for (and may get), less DELIBERATE_SCOPES."""
    return [scope for scope in offered if scope not in DELIBERATE_SCOPES]


# --- The oauthlib server and the toolkit's validator ----------------------------------------------------------------


class CmsOAuth2Server(Server):
    """oauthlib's server with PKCE limited to S256 (RFC 9700 §2.1.1): an authorization request without
    ``code_challenge_method`` defaults to ``plain`` (RFC 7636 §4.3) and is refused like an explicit ``plain``."""

    def __init__(self, request_validator, *args, **kwargs):
        super().__init__(request_validator, *args, **kwargs)
        self.auth_grant._code_challenge_methods = {"S256": code_challenge_method_s256}


def _revoke_family(family, reason: str) -> None:
    if family:
        logger.warning("revoking an OAuth token family", extra={"family": str(family), "reason": reason})
        get_refresh_token_model().revoke_family(family)


class CmsOAuth2Validator(OAuth2Validator):
    def validate_grant_type(self, client_id, grant_type, client, request, *args, **kwargs):
        return grant_type in client_grant_types(client)

    def validate_response_type(self, client_id, response_type, client, request, *args, **kwargs):
        # OAuth 2.1 has the authorization code response type only (no implicit grant).
        return response_type == "code" and AUTHORIZATION_CODE in client_grant_types(client)

    def validate_scopes(self, client_id, scopes, client, request, *args, **kwargs):
        # Narrow instead of refusing: oauthlib goes on with request.scopes, so the grant gets the intersection.
        user = getattr(request, "user", None)
        request.scopes = grantable_scopes(
            scopes, application=client, user=user if isinstance(user, User) else None
        )
        return bool(request.scopes)

    def get_default_scopes(self, client_id, request, *args, **kwargs):
        return default_scopes(request.client)

    # -- authorization codes: single use, replay revokes --

    def validate_code(self, client_id, code, client, request, *args, **kwargs):
        Grant = get_grant_model()
        grant = Grant.objects.filter(code=code, application=client).first()
        if grant is None:
            return False
        if grant.used_at is not None:
            self._code_replayed(grant)
            return False
        if not super().validate_code(client_id, code, client, request, *args, **kwargs):
            return False  # expired
        if not request.user.is_active:
            return False
        if Grant.objects.filter(pk=grant.pk, used_at__isnull=True).update(used_at=now()) != 1:
            self._code_replayed(grant)  # a concurrent request redeemed it first
            return False
        return True

    def _code_replayed(self, grant) -> None:
        Grant = get_grant_model()
        Grant.objects.filter(pk=grant.pk).update(replayed_at=now())
        family = Grant.objects.filter(pk=grant.pk).values_list("token_family", flat=True).first()
        _revoke_family(family, "authorization code presented again")

    def invalidate_authorization_code(self, client_id, code, request, *args, **kwargs):
        # Keep the (used) grant until it expires, remembering what it was exchanged for, so a replay can revoke it.
        Grant = get_grant_model()
        family = getattr(request, "cms_token_family", None)
        grants = Grant.objects.filter(code=code, application=request.client)
        grants.update(token_family=family)
        # Written, then read: if a replay marked the grant between our redemption and now, we revoke what we issued.
        if grants.filter(replayed_at__isnull=False).exists():
            _revoke_family(family, "authorization code presented again during its exchange")

    # -- refresh tokens: family with an absolute end --

    def _create_refresh_token(self, request, refresh_token_code, access_token, previous_refresh_token):
        refresh_token = super()._create_refresh_token(
            request, refresh_token_code, access_token, previous_refresh_token
        )
        if previous_refresh_token is None:
            # Families past their end can never refresh again; a new one is a good moment to forget them.
            OAuthTokenFamily.objects.filter(expires_at__lte=now() - timedelta(days=1)).delete()
            OAuthTokenFamily.objects.get_or_create(
                family=refresh_token.token_family,
                defaults={
                    "user": refresh_token.user,
                    "application": refresh_token.application,
                    "expires_at": now() + timedelta(seconds=settings.CMS_REFRESH_TOKEN_ABSOLUTE_SECONDS),
                },
            )
        request.cms_token_family = refresh_token.token_family
        return refresh_token

    def validate_refresh_token(self, refresh_token, client, request, *args, **kwargs):
        if not super().validate_refresh_token(refresh_token, client, request, *args, **kwargs):
            return False
        token = request.refresh_token_instance
        family = OAuthTokenFamily.objects.filter(family=token.token_family).first()
        if family is None or family.expires_at <= now():
            _revoke_family(token.token_family, "refresh token family past its absolute lifetime")
            return False
        return token.user.is_active

    # -- resources (RFC 8707) --

    def _validate_resource_uris(self, request, resources):
        for resource in resources:
            if canonical_resource(resource) is None:
                raise oauth_errors.CustomOAuth2Error(
                    error="invalid_target",
                    description=(
                        f"Unknown resource {resource!r}; this server issues tokens for {rest_resource()} "
                        f"and {mcp_resource()}."
                    ),
                    request=request,
                )

    def _check_and_set_request_resource(self, request):
        super()._check_and_set_request_resource(request)
        request.resource = [canonical_resource(item) for item in request.resource] or [rest_resource()]


def device_default_resources() -> list[str]:
    """What a device token asked for without ``resource`` is bound to: both faces of this server. A device (a CLI, an
    agent on a server) has no redirect to carry the MCP client's usual ``resource`` through, and it mostly wants the
    tool server; the REST API is the same server with the same scopes and permission table, so binding the token to
    both hands it to no other party (the audience binding exists against that)."""
    return [rest_resource(), mcp_resource()]


def device_grant_pre_token(request) -> None:
    """oauthlib pre-token hook for the device grant: the user who approved, the scopes and resource they approved."""
    device_code = request._params.get("device_code")
    grant = get_device_grant_model().objects.filter(device_code=device_code).first() if device_code else None
    if grant is None or grant.user is None:
        raise oauth_errors.InvalidGrantError(
            description="Unknown or unapproved device code.", request=request
        )
    request.user = grant.user
    request.scopes = grant.scope.split() if grant.scope else []
    if not request._params.get("resource"):
        request.resource = list(grant.resource) or device_default_resources()


# --- Protocol errors ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OAuthProblem:
    """An RFC 6749 §5.2 (or RFC 8628 §3.5 / RFC 7591 §3.2.2) error answer."""

    error: str
    description: str
    status: int = 400

    def response(self) -> JsonResponse:
        response = JsonResponse(
            {"error": self.error, "error_description": self.description},
            status=self.status,
            json_dumps_params={"separators": (",", ":")},
        )
        response["Cache-Control"] = "no-store"
        return response


# --- Device flow ----------------------------------------------------------------------------------------------------

USER_CODE_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUV"


def normalize_user_code(value: str) -> str:
    """What people type: any case, with or without the dash we show."""
    return "".join(ch for ch in (value or "").upper() if ch.isalnum())


def format_user_code(code: str) -> str:
    return f"{code[:4]}-{code[4:]}" if len(code) == 8 else code


@transaction.atomic
def device_code_poll(*, device_code: str, client_id: str) -> OAuthProblem | None:
    """One poll of the token endpoint with a device code: the RFC 8628 §3.5 error to answer, or None when the grant
    is approved and has just been claimed for this request (a device code is exchanged once)."""
    DeviceGrant = get_device_grant_model()
    grant = (
        DeviceGrant.objects.select_for_update().filter(device_code=device_code).first()
        if device_code
        else None
    )
    if grant is None or grant.client_id != client_id:
        return OAuthProblem("invalid_grant", "Unknown device code for this client.")
    current = now()
    if grant.consumed_at is not None:
        return OAuthProblem("invalid_grant", "This device code was already exchanged for tokens.")
    if current >= grant.expires or grant.status == DeviceGrant.EXPIRED:
        if grant.status != DeviceGrant.EXPIRED:
            grant.status = DeviceGrant.EXPIRED
            grant.save(update_fields=["status"])
        return OAuthProblem("expired_token", "The device code expired; start again with a new one.")
    if grant.status == DeviceGrant.DENIED:
        return OAuthProblem("access_denied", "The user denied this device.")
    too_fast = grant.last_polled_at is not None and current - grant.last_polled_at < timedelta(
        seconds=grant.interval
    )
    grant.last_polled_at = current
    if too_fast:
        grant.interval += 5  # RFC 8628 §3.5: for this and all later requests
        grant.save(update_fields=["last_polled_at", "interval"])
        return OAuthProblem(
            "slow_down", f"Polling too fast; wait at least {grant.interval} seconds between requests."
        )
    if grant.status != DeviceGrant.AUTHORIZED:
        grant.save(update_fields=["last_polled_at"])
        return OAuthProblem("authorization_pending", "The user has not approved this device yet.")
    grant.consumed_at = current
    grant.save(update_fields=["last_polled_at", "consumed_at"])
    return None


# --- Resource-server side: access tokens ----------------------------------------------------------------------------


def access_token_authenticate(raw: str, *, resource: str):
    """The live access token for ``raw`` with user and application loaded, bound to ``resource``; else Unauthorized."""
    token = (
        get_access_token_model()
        .objects.select_related("user", "application")
        .filter(token_checksum=sha256_hex(raw))
        .first()
    )
    if token is None or token.user is None:
        raise Unauthorized("Invalid token.")
    if token.is_expired():
        raise Unauthorized(f"This token expired at {iso(token.expires)}; refresh it or sign in again.")
    if not token.user.is_active:
        raise Unauthorized("The account this token belongs to is disabled.")
    audiences = token.resource or [rest_resource()]
    if resource not in audiences:
        raise Unauthorized(
            f"This token was issued for {', '.join(audiences)}, not for {resource}; request a token with "
            f"resource={resource}."
        )
    return token


def application_for(client_id: str):
    return get_application_model().objects.filter(client_id=client_id).select_related("cms_client").first()
