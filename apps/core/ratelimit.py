"""Rate limits by endpoint group, counted with django-ratelimit in the default cache.

Each API endpoint belongs to a group (``api`` unless it names another, e.g. ``auth``); the limits come from
``settings.CMS_RATE_LIMITS``. The key is the authenticated user, else the client address. A limited request gets 429 in
the envelope with ``Retry-After`` (seconds until the counter's window ends).
"""

from __future__ import annotations

import logging

from django.conf import settings
from django_ratelimit.core import get_usage

from apps.core.errors import RateLimited

logger = logging.getLogger(__name__)


def client_ip(request) -> str:
    """The client address: the socket peer, or the entry a trusted proxy appended to X-Forwarded-For."""
    hops = settings.CMS_TRUSTED_PROXY_COUNT
    if hops > 0:
        forwarded = [
            part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if part.strip()
        ]
        if len(forwarded) >= hops:
            return forwarded[-hops]
    return request.META.get("REMOTE_ADDR", "") or "unknown"


def _key(group: str, request) -> str:
    user = getattr(request, "user", None)
    if user is not None and getattr(user, "is_authenticated", False):
        return f"user:{user.pk}"
    return f"ip:{client_ip(request)}"


def enforce(request, group: str, key: str | None = None) -> None:
    """Count this request against ``group`` and raise RateLimited when over the limit.

    The counter is per user, else per client address; ``key`` counts per something else instead (an email address
    asking for sign-in links, say), hashed by django-ratelimit before it reaches the cache.
    """
    rate = settings.CMS_RATE_LIMITS.get(group)
    if not rate or rate == "off":
        return
    try:
        usage = get_usage(
            request,
            group=f"cms.{group}",
            key=_key if key is None else (lambda _group, _request: key),
            rate=rate,
            increment=True,
        )
    except Exception:
        # A broken counter store must not take the API down with it: let the request through, loudly.
        logger.exception("rate limit counter unavailable; allowing request", extra={"group": group})
        return
    if usage is not None and usage["should_limit"]:
        raise RateLimited(retry_after=usage["time_left"])
