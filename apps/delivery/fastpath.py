"""Conditional reads of one public entry answered in front of Django (issue 22: a 304 at least half the rate of a bare
WSGI hello world, where Django's own floor is about 0.65x and the API's request stack alone took most of a 304).

``PublicEntryFastPath`` wraps the WSGI application. A ``GET`` or ``HEAD`` of ``/_cms/api/content/:collection/:ref``
without a query string, sent without any credential (no ``Authorization``, no session cookie, no preview token) and
with ``If-None-Match``, is looked at here: the entry is read by the same selector as the view's, as an anonymous
reader, its validators are computed by the same function, and when the client's copy is current the 304 is answered
here with the headers Django's would carry. Everything else goes to Django unchanged: a copy that is not current, an
entry that is not public (or not there), a cross-origin request (its CORS headers are the middleware's), a database
error. Nothing is answered here that the view would not answer alike, to anyone.

A 304 answered here skips the API rate limit and the request log: it costs one read of the entry's row, less than
what the limiter protects, and a CDN revalidating its copies makes the most of these requests.
"""

from __future__ import annotations

import logging
import re

from django.conf import settings
from django.db import DatabaseError
from django.http.request import split_domain_port, validate_host

from apps.accounts.permissions import ANONYMOUS, public_site, rule_for
from apps.content.inputs import EntryGetQuery
from apps.content.presenters import entry_freshness
from apps.content.selectors import collection_for_reader, entry_read
from apps.core.api.views import query_values
from apps.core.db.request_scalars import request_scalars_scope
from apps.core.errors import CmsError
from apps.core.httpcache import matching_tag, public_headers
from apps.core.ids import new_id

logger = logging.getLogger("cms.delivery")

# The Vary of Django's answer: the view's, plus the session middleware's (Cookie) and the CORS middleware's (origin).
VARY = "Accept, Accept-Encoding, Authorization, Cookie, origin"
ALLOW = "GET, PUT, PATCH, DELETE, HEAD, OPTIONS"
# Requests carrying any of these are not anonymous reads (or not only): Django answers them.
CREDENTIALS = ("HTTP_AUTHORIZATION", "HTTP_X_CMS_PREVIEW", "HTTP_ORIGIN")


def _secure(environ) -> bool:
    header = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    if header:
        return environ.get(header[0], "").split(",")[0].strip() == header[1]
    return environ.get("wsgi.url_scheme") == "https"


def security_headers(secure: bool) -> list[tuple[str, str]]:
    """What Django's SecurityMiddleware and XFrameOptionsMiddleware add to every answer, from the same settings."""
    headers = []
    if secure and settings.SECURE_HSTS_SECONDS:
        hsts = f"max-age={settings.SECURE_HSTS_SECONDS}"
        if settings.SECURE_HSTS_INCLUDE_SUBDOMAINS:
            hsts += "; includeSubDomains"
        if settings.SECURE_HSTS_PRELOAD:
            hsts += "; preload"
        headers.append(("Strict-Transport-Security", hsts))
    if settings.X_FRAME_OPTIONS:
        headers.append(("X-Frame-Options", settings.X_FRAME_OPTIONS.upper()))
    if settings.SECURE_CONTENT_TYPE_NOSNIFF:
        headers.append(("X-Content-Type-Options", "nosniff"))
    if settings.SECURE_REFERRER_POLICY:
        policy = settings.SECURE_REFERRER_POLICY
        headers.append(("Referrer-Policy", policy if isinstance(policy, str) else ",".join(policy)))
    if settings.SECURE_CROSS_ORIGIN_OPENER_POLICY:
        headers.append(("Cross-Origin-Opener-Policy", settings.SECURE_CROSS_ORIGIN_OPENER_POLICY))
    return headers


class PublicEntryFastPath:
    def __init__(self, application):
        self.application = application
        prefix = re.escape(settings.CMS_API_PREFIX)
        self.path = re.compile(rf"^{prefix}/content/([^/]{{1,100}})/([^/]{{1,300}})$")
        self.session_cookie = f"{settings.SESSION_COOKIE_NAME}="
        # The view's query for a GET without a query string: part of the validators, as the view computes them.
        self.query = query_values(EntryGetQuery, {})

    def __call__(self, environ, start_response):
        method = environ.get("REQUEST_METHOD")
        if method in ("GET", "HEAD") and "HTTP_IF_NONE_MATCH" in environ and not environ.get("QUERY_STRING"):
            match = self.path.match(environ.get("PATH_INFO", ""))
            if match is not None and self.anonymous(environ) and self.servable(environ):
                headers = self.not_modified(environ, *match.groups())
                if headers is not None:
                    start_response("304 Not Modified", headers)
                    return []
        return self.application(environ, start_response)

    def anonymous(self, environ) -> bool:
        if any(name in environ for name in CREDENTIALS):
            return False
        return self.session_cookie not in environ.get("HTTP_COOKIE", "")

    def servable(self, environ) -> bool:
        """What Django would refuse or redirect before any view is left to it: a host it does not serve, plain http
        where it redirects to https."""
        host = environ.get("HTTP_HOST") or environ.get("SERVER_NAME", "")
        if not validate_host(split_domain_port(host)[0], settings.ALLOWED_HOSTS):
            return False
        return not (settings.SECURE_SSL_REDIRECT and not _secure(environ))

    def not_modified(self, environ, collection_slug: str, ref: str) -> list[tuple[str, str]] | None:
        """The headers of a 304 when the client's copy of a public entry is current, else None (Django answers)."""
        if "\x00" in collection_slug or "\x00" in ref:
            return None
        if not rule_for("content.read").anonymous:
            return None
        try:
            # One read of the schema's version token for the whole check, as a request of Django's makes.
            with request_scalars_scope():
                if not public_site():
                    return None
                collection = collection_for_reader(actor=ANONYMOUS, slug=collection_slug)
                seen = entry_read(actor=ANONYMOUS, collection=collection, ref=ref)
                fresh = entry_freshness(seen, query=self.query)
        except CmsError:
            return None
        except DatabaseError:
            # A connection the database dropped: Django's request cycle checks and replaces it.
            logger.warning("public entry fast path: database error", exc_info=True)
            return None
        matched = matching_tag(environ["HTTP_IF_NONE_MATCH"], fresh.etag)
        if matched is None:
            return None
        headers = {**public_headers(fresh, matched), "Vary": VARY, "Allow": ALLOW}
        return [
            *headers.items(),
            *security_headers(_secure(environ)),
            ("Content-Length", "0"),
            ("X-Request-ID", new_id()),
        ]
