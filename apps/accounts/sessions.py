"""Browser sessions: Django's, started after a passkey or magic-link sign-in and ended by signing out.

``login`` gives the visitor a new session key and CSRF token (no session fixation). A disabled user's session stops
working on their next request, because Django's ModelBackend loads only active users for a session.
"""

from __future__ import annotations

from django.contrib.auth import login, logout
from django.utils.http import url_has_allowed_host_and_scheme

from apps.accounts.models import User

BACKEND = "django.contrib.auth.backends.ModelBackend"


def _django(request):
    return getattr(request, "_request", request)


def sign_in(request, user: User) -> None:
    login(_django(request), user, backend=BACKEND)


def sign_out(request) -> None:
    logout(_django(request))


def safe_next(request, target: str | None, default: str) -> str:
    """``target`` if it is a path or URL on this site, else ``default`` (no open redirects after sign-in)."""
    request = _django(request)
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return default
