"""Anonymous reads of one public entry answered in front of Django (issue 22: a 304 at least half the rate of a bare
WSGI hello world and an anonymous GET at 0.15x, where Django's own floor is about 0.65x and the API's request stack
took most of a 304 and half of a small GET).

``PublicEntryFastPath`` wraps the WSGI application. A ``GET`` or ``HEAD`` of ``/_cms/api/content/:collection/:ref``
without a query string, sent without any credential (no ``Authorization``, no session cookie, no preview token, no
``Origin``), is looked at here: the entry is read by the same selector as the view's, as an anonymous reader, and its
validators are computed by the same function. Then:

- the client's copy is current (``If-None-Match``): the 304, with the headers Django's would carry;
- Django answered this representation before (the same path, ``Accept``, ``Accept-Encoding`` and ETag): that answer,
  kept in this worker's memory (``KeptAnswers``), since an ETag names one version of one answer;
- otherwise Django answers, and a public 200 carrying that ETag is kept for next time.

Everything else goes to Django unchanged: an entry that is not public (or not there), a query string, a cross-origin
request (its CORS headers are the middleware's), a database error. Nothing is answered here that the view would not
answer alike, to anyone.

Answers from here skip the API rate limit and the request log: each costs one read of the entry's row, less than what
the limiter protects, and a CDN revalidating its copies makes most of these requests.
"""

from __future__ import annotations

import logging
import re
import threading

from django.conf import settings
from django.db import DatabaseError
from django.http.request import split_domain_port, validate_host

from apps.accounts.permissions import ANONYMOUS, public_site, rule_for
from apps.content.inputs import EntryGetQuery
from apps.content.presenters import entry_freshness
from apps.content.selectors import collection_for_reader, entry_read
from apps.core import metrics
from apps.core.api.views import query_values
from apps.core.db.request_scalars import request_scalars_scope
from apps.core.errors import CmsError
from apps.core.httpcache import Freshness, matching_tag, public_headers
from apps.core.ids import new_id
from apps.core.replicas import replica_reads

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
        self.answers = KeptAnswers()

    @property
    def route(self) -> str:
        return metrics.route_of(f"{settings.CMS_API_PREFIX}/content/collection/entry")

    def __call__(self, environ, start_response):
        method = environ.get("REQUEST_METHOD")
        # A date-only conditional request is the view's to answer (its 304 by Last-Modified), not a kept 200's.
        if (
            method in ("GET", "HEAD")
            and not environ.get("QUERY_STRING")
            and ("HTTP_IF_NONE_MATCH" in environ or "HTTP_IF_MODIFIED_SINCE" not in environ)
        ):
            conditional = "HTTP_IF_NONE_MATCH" in environ
            if conditional or self.answers.budget():
                match = self.path.match(environ.get("PATH_INFO", ""))
                if match is not None and self.anonymous(environ) and self.servable(environ):
                    fresh = self.freshness(*match.groups())
                    if fresh is not None:
                        return self.answer(environ, start_response, fresh)
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

    def freshness(self, collection_slug: str, ref: str) -> Freshness | None:
        """The validators of a public entry's answer, as the view computes them; None when Django must answer."""
        if "\x00" in collection_slug or "\x00" in ref:
            return None
        if not rule_for("content.read").anonymous:
            return None
        try:
            # One read of the schema's version token for the whole check, as a request of Django's makes; an
            # anonymous read may use the replica (apps/core/replicas.py).
            with request_scalars_scope(), replica_reads():
                if not public_site():
                    return None
                collection = collection_for_reader(actor=ANONYMOUS, slug=collection_slug)
                seen = entry_read(actor=ANONYMOUS, collection=collection, ref=ref)
                return entry_freshness(seen, query=self.query)
        except CmsError:
            return None
        except DatabaseError:
            # A connection the database dropped: Django's request cycle checks and replaces it.
            logger.warning("public entry fast path: database error", exc_info=True)
            return None
        except Exception:
            # Anything unforeseen is Django's to answer, in the error envelope, rather than a bare 500 from here.
            logger.exception("public entry fast path: unexpected error")
            return None

    def answer(self, environ, start_response, fresh: Freshness):
        wanted = environ.get("HTTP_IF_NONE_MATCH")
        matched = matching_tag(wanted, fresh.etag) if wanted else None
        if matched is not None:
            environ[metrics.ROUTE_KEY] = self.route
            headers = {**public_headers(fresh, matched), "Vary": VARY, "Allow": ALLOW}
            start_response(
                "304 Not Modified",
                [
                    *headers.items(),
                    *security_headers(_secure(environ)),
                    ("Content-Length", "0"),
                    ("X-Request-ID", new_id()),
                ],
            )
            return []
        # The same representation (ETag) asked for with the same Accept and Accept-Encoding (the Vary that can differ
        # here) was answered by Django before: its answer, as it was.
        key = (
            environ["PATH_INFO"],
            environ.get("HTTP_ACCEPT", ""),
            environ.get("HTTP_ACCEPT_ENCODING", ""),
            fresh.etag,
        )
        kept = self.answers.get(key)
        if kept is not None:
            environ[metrics.ROUTE_KEY] = self.route
            status, headers, body = kept
            start_response(status, [*headers, ("X-Request-ID", new_id())])
            return [] if environ["REQUEST_METHOD"] == "HEAD" else [body]
        if environ["REQUEST_METHOD"] == "HEAD" or not self.answers.budget():
            return self.application(environ, start_response)
        return self.remembered(environ, start_response, key, fresh)

    def remembered(self, environ, start_response, key: tuple, fresh: Freshness):
        """Django's answer, kept when it is the public representation named by ``fresh`` (a 200 with its ETag,
        shared caching and no cookie)."""
        answered = {}

        def capture(status, headers, exc_info=None):
            answered["status"], answered["headers"] = status, headers
            return start_response(status, headers, exc_info) if exc_info else start_response(status, headers)

        chunks = self.application(environ, capture)
        try:
            body = b"".join(chunks)
        finally:
            if hasattr(chunks, "close"):
                chunks.close()
        status, headers = answered.get("status", ""), answered.get("headers", [])
        named = {name.lower(): value for name, value in headers}
        if (
            status.startswith("200 ")
            and matching_tag(named.get("etag", ""), fresh.etag) is not None
            and named.get("cache-control", "").startswith("public")
            and "set-cookie" not in named
        ):
            self.answers.keep(
                key, (status, [(n, v) for n, v in headers if n.lower() != "x-request-id"], body)
            )
        return [body]


class KeptAnswers:
    """Answers of Django's to anonymous reads, each under the representation it is (its path, Accept, Accept-Encoding
    and ETag), in this worker's memory: at most ``CMS_PUBLIC_ANSWERS_BYTES`` of bodies (0: none kept), the oldest
    dropped first. An entry that changes gets a new ETag, so a kept answer is never served for another version; it
    stays until pushed out."""

    def __init__(self):
        self._answers: dict[tuple, tuple[str, list, bytes]] = {}
        self._bytes = 0
        self._lock = threading.Lock()

    def budget(self) -> int:
        return settings.CMS_PUBLIC_ANSWERS_BYTES

    def get(self, key: tuple):
        return self._answers.get(key)

    def keep(self, key: tuple, answer: tuple[str, list, bytes]) -> None:
        size = len(answer[2])
        limit = self.budget()
        if size > limit // 16:
            return  # one answer never takes more than a sixteenth of the room
        with self._lock:
            previous = self._answers.pop(key, None)
            if previous is not None:
                self._bytes -= len(previous[2])
            while self._answers and self._bytes + size > limit:
                oldest = next(iter(self._answers))
                self._bytes -= len(self._answers.pop(oldest)[2])
            self._answers[key] = answer
            self._bytes += size
