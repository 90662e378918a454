"""OAuth clients and device grants: RFC 7591 registration, RFC 8628 device authorization and its approval.

Registration is open, as MCP clients expect, but only for public clients (``token_endpoint_auth_method: none``, no
secret), whose tokens are protected by PKCE or the device flow instead. Each redirect URI must be one URI of RFC 3986
characters (no whitespace: the toolkit stores them space-separated), https, or http on a loopback host for native
apps (RFC 8252 §7.3); they are matched exactly afterwards, except for the port of a loopback IP (RFC 8252 §7.3,
RFC 9700 §2.1). Unknown metadata is ignored (RFC 7591 §2).
"""

from __future__ import annotations

import ipaddress
import re
from datetime import timedelta
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from oauth2_provider.models import AbstractApplication, get_application_model, get_device_grant_model
from oauth2_provider.utils import user_code_generator
from oauthlib.common import generate_token

from apps.accounts import oauth
from apps.accounts.errors import LinkUnusable
from apps.accounts.models import OAuthClient
from apps.accounts.permissions import DEFAULT_SCOPES, SCOPES, Actor, authorize
from apps.core.errors import ValidationError
from apps.core.timefmt import now

MAX_REDIRECT_URIS = 10


class RegistrationRefused(Exception):
    """An RFC 7591 §3.2.2 error: ``invalid_redirect_uri`` or ``invalid_client_metadata``."""

    def __init__(self, error: str, description: str):
        self.error = error
        self.description = description
        super().__init__(description)


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


# The characters of an RFC 3986 URI (§2.2 reserved, §2.3 unreserved, "%" of §2.1 escapes). Nothing else may appear,
# whitespace above all: the toolkit keeps a client's redirect URIs in one space-separated column, so a "URI" with a
# space in it would be stored, and later matched, as several, none of which this function checked.
_URI_CHARACTERS = re.compile(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]+")
_BROKEN_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")


def _one_uri(uri: str):
    """The parts of ``uri`` if it is one URI, made of RFC 3986 characters, with a valid port; else refused."""
    if not _URI_CHARACTERS.fullmatch(uri) or _BROKEN_ESCAPE.search(uri):
        raise RegistrationRefused(
            "invalid_redirect_uri",
            f"{uri!r}: each redirect URI must be one URI, without spaces, control characters or other characters "
            "RFC 3986 does not allow (percent-encode them); send several as separate items of redirect_uris.",
        )
    try:
        parts = urlsplit(uri)
        parts.port  # noqa: B018 (parsing the port is the check: it raises ValueError for a bad one)
    except ValueError:
        raise RegistrationRefused(
            "invalid_redirect_uri", f"{uri!r}: not a valid URI (check the host and the port)."
        ) from None
    return parts


def validate_redirect_uri(uri) -> str:
    """``uri`` if it may be registered: one absolute https URI, or http on a loopback host, without a fragment or
    user credentials; RegistrationRefused (``invalid_redirect_uri``) otherwise."""
    if not isinstance(uri, str) or not uri or len(uri) > 2000:
        raise RegistrationRefused(
            "invalid_redirect_uri", "Each redirect URI must be a string of 1-2000 characters."
        )
    parts = _one_uri(uri)
    if "#" in uri or parts.username is not None or parts.password is not None or not parts.hostname:
        raise RegistrationRefused(
            "invalid_redirect_uri",
            f"{uri!r}: a redirect URI needs a host and may carry neither a fragment nor user credentials.",
        )
    if parts.scheme == "https" or (parts.scheme == "http" and _is_loopback(parts.hostname)):
        return uri
    raise RegistrationRefused(
        "invalid_redirect_uri",
        f"{uri!r}: redirect URIs must use https, or http on a loopback host (127.0.0.1, [::1], localhost).",
    )


def _string_list(metadata: dict, name: str, default: list[str]) -> list[str]:
    value = metadata.get(name, default)
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise RegistrationRefused("invalid_client_metadata", f"{name} must be an array of strings.")
    return value


@transaction.atomic
def oauth_client_register(*, metadata: dict):
    """Register a public client from RFC 7591 metadata; returns (application, OAuthClient)."""
    if not isinstance(metadata, dict):
        raise RegistrationRefused("invalid_client_metadata", "The request body must be a JSON object.")
    method = metadata.get("token_endpoint_auth_method", "none")
    if method != "none":
        raise RegistrationRefused(
            "invalid_client_metadata",
            "Only public clients can register: token_endpoint_auth_method must be 'none' (use PKCE).",
        )
    grant_types = _string_list(metadata, "grant_types", [oauth.AUTHORIZATION_CODE, oauth.REFRESH_TOKEN])
    unsupported = [grant for grant in grant_types if grant not in oauth.GRANT_TYPES]
    if unsupported:
        raise RegistrationRefused(
            "invalid_client_metadata",
            f"Unsupported grant type(s) {', '.join(unsupported)}; supported: {', '.join(oauth.GRANT_TYPES)}.",
        )
    if oauth.AUTHORIZATION_CODE not in grant_types and oauth.DEVICE_CODE not in grant_types:
        raise RegistrationRefused(
            "invalid_client_metadata",
            f"grant_types must include {oauth.AUTHORIZATION_CODE} or {oauth.DEVICE_CODE}.",
        )
    response_types = _string_list(
        metadata, "response_types", ["code"] if oauth.AUTHORIZATION_CODE in grant_types else []
    )
    if oauth.AUTHORIZATION_CODE in grant_types and response_types != ["code"]:
        raise RegistrationRefused("invalid_client_metadata", "response_types must be ['code'].")
    redirect_uris = _string_list(metadata, "redirect_uris", [])
    if oauth.AUTHORIZATION_CODE in grant_types and not redirect_uris:
        raise RegistrationRefused("invalid_redirect_uri", "redirect_uris is required for authorization_code.")
    if len(redirect_uris) > MAX_REDIRECT_URIS:
        raise RegistrationRefused("invalid_redirect_uri", f"At most {MAX_REDIRECT_URIS} redirect URIs.")
    redirect_uris = [validate_redirect_uri(uri) for uri in redirect_uris]
    name = metadata.get("client_name", "")
    if not isinstance(name, str) or len(name) > 200:
        raise RegistrationRefused(
            "invalid_client_metadata", "client_name must be a string of at most 200 characters."
        )
    scope = metadata.get("scope")
    if scope is None:
        scopes = list(DEFAULT_SCOPES)
    elif isinstance(scope, str):
        scopes = [item for item in SCOPES if item in scope.split()]
        if not scopes:
            raise RegistrationRefused(
                "invalid_client_metadata", f"scope must name some of: {' '.join(SCOPES)}."
            )
    else:
        raise RegistrationRefused("invalid_client_metadata", "scope must be a space-separated string.")

    application = get_application_model().objects.create(
        name=name.strip(),
        client_type=AbstractApplication.CLIENT_PUBLIC,
        authorization_grant_type=(
            AbstractApplication.GRANT_AUTHORIZATION_CODE
            if oauth.AUTHORIZATION_CODE in grant_types
            else AbstractApplication.GRANT_DEVICE_CODE
        ),
        redirect_uris=" ".join(redirect_uris),
        client_secret="",
        hash_client_secret=False,
        registration_source=AbstractApplication.RegistrationSource.DCR,
    )
    client = OAuthClient.objects.create(
        application=application,
        scopes=scopes,
        grant_types=[grant for grant in oauth.GRANT_TYPES if grant in grant_types],
    )
    return application, client


# --- Device flow ----------------------------------------------------------------------------------------------------


class DeviceRefused(Exception):
    """A device authorization request the server refuses, with the RFC 6749 §5.2 error to answer."""

    def __init__(self, problem: oauth.OAuthProblem):
        self.problem = problem
        super().__init__(problem.description)


@transaction.atomic
def device_authorization_create(*, client_id: str, scope: str | None, resources: list[str]) -> dict:
    """RFC 8628 §3.1-3.2: a device code (stored hashed) and a user code for a public ``client_id``, valid 15
    minutes, with the scopes the client may have; DeviceRefused carries the RFC 6749 §5.2 error otherwise."""
    application = oauth.application_for(client_id) if client_id else None
    if not client_id:
        raise DeviceRefused(oauth.OAuthProblem("invalid_request", "client_id is required."))
    if application is None:
        raise DeviceRefused(oauth.OAuthProblem("invalid_client", "Unknown client_id.", status=401))
    if application.client_type != AbstractApplication.CLIENT_PUBLIC:
        raise DeviceRefused(
            oauth.OAuthProblem("invalid_client", "The device flow is for public clients.", status=401)
        )
    if oauth.DEVICE_CODE not in oauth.client_grant_types(application):
        raise DeviceRefused(
            oauth.OAuthProblem("unauthorized_client", "This client is not registered for the device flow.")
        )
    requested = scope.split() if scope else oauth.default_scopes(application)
    scopes = oauth.grantable_scopes(requested, application=application, user=None)
    if not scopes:
        raise DeviceRefused(
            oauth.OAuthProblem("invalid_scope", "None of the requested scopes can be granted.")
        )
    canonical = [oauth.canonical_resource(item) for item in resources]
    if None in canonical:
        raise DeviceRefused(
            oauth.OAuthProblem(
                "invalid_target",
                f"Unknown resource; this server issues tokens for {oauth.rest_resource()} and {oauth.mcp_resource()}.",
            )
        )
    DeviceGrant = get_device_grant_model()
    current = now()
    DeviceGrant.objects.filter(expires__lte=current - timedelta(days=1)).delete()
    user_code = user_code_generator()
    while DeviceGrant.objects.filter(user_code=user_code, status=DeviceGrant.AUTHORIZATION_PENDING).exists():
        user_code = user_code_generator()
    device_code = generate_token(40)
    lifetime = settings.CMS_DEVICE_CODE_EXPIRE_SECONDS
    interval = settings.OAUTH2_PROVIDER["DEVICE_FLOW_INTERVAL"]
    DeviceGrant.objects.create(
        client_id=client_id,
        device_code=device_code,
        user_code=user_code,
        scope=" ".join(scopes),
        resource=list(dict.fromkeys(canonical)),
        interval=interval,
        expires=current + timedelta(seconds=lifetime),
    )
    verification_uri = oauth.device_verification_uri()
    return {
        "device_code": device_code,
        "user_code": oauth.format_user_code(user_code),
        "verification_uri": verification_uri,
        "verification_uri_complete": f"{verification_uri}?user_code={oauth.format_user_code(user_code)}",
        "expires_in": lifetime,
        "interval": interval,
    }


DEVICE_MESSAGES = {
    "unknown": "No device is waiting for this code. Check the code your device shows.",
    "expired": "This code has expired. Start the sign-in on your device again.",
    "decided": "This code has already been approved or denied.",
}


def device_grant_pending(*, user_code: str, lock: bool = False):
    """The device grant waiting for ``user_code``; LinkUnusable (unknown, expired, decided) otherwise."""
    DeviceGrant = get_device_grant_model()
    code = oauth.normalize_user_code(user_code)
    grants = DeviceGrant.objects.filter(user_code=code).order_by("-expires")
    grant = (grants.select_for_update() if lock else grants).first() if code else None
    if grant is None:
        raise LinkUnusable("unknown", DEVICE_MESSAGES["unknown"], field="userCode")
    if grant.status != DeviceGrant.AUTHORIZATION_PENDING:
        state = "expired" if grant.status == DeviceGrant.EXPIRED else "decided"
        raise LinkUnusable(state, DEVICE_MESSAGES[state], field="userCode")
    if now() >= grant.expires:
        raise LinkUnusable("expired", DEVICE_MESSAGES["expired"], field="userCode")
    return grant


@transaction.atomic
def device_grant_decide(*, actor: Actor, user_code: str, approve: bool, scopes: list[str] | None = None):
    """The signed-in user approves (with the scopes they keep) or denies the device waiting for ``user_code``."""
    authorize(actor, "signed_in")
    DeviceGrant = get_device_grant_model()
    grant = device_grant_pending(user_code=user_code, lock=True)
    grant.user = actor.user
    if approve:
        application = oauth.application_for(grant.client_id)
        if application is None:  # the client was deleted while the user was deciding
            raise LinkUnusable("unknown", DEVICE_MESSAGES["unknown"], field="userCode")
        offered = oauth.grantable_scopes(grant.scope.split(), application=application, user=actor.user)
        chosen = offered if scopes is None else [scope for scope in offered if scope in scopes]
        if not chosen:
            raise ValidationError(
                details={"scopes": "Choose at least one of the offered scopes, or deny the device."}
            )
        grant.scope = " ".join(chosen)
        grant.status = DeviceGrant.AUTHORIZED
    else:
        grant.status = DeviceGrant.DENIED
    grant.save(update_fields=["user", "scope", "status"])
    return grant
