"""Per-request context: a request id (taken from ``X-Request-ID`` when well-formed), one JSON log line per request,
``Cache-Control: private, no-store`` on API answers that did not choose their own caching, and the span in which
values read alongside the request's first query are kept (``apps.core.db.request_scalars``); and, when metrics are
enabled, each request counted and timed by the URL pattern it matched (``MetricsMiddleware``)."""

from __future__ import annotations

import logging
import re
import time

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.conf import settings
from django.core.exceptions import MiddlewareNotUsed
from django.db import connections
from django.http import HttpRequest, HttpResponse

from apps.core import metrics
from apps.core.db.request_scalars import request_scalars_scope
from apps.core.ids import new_id

logger = logging.getLogger("cms.request")
_REQUEST_ID_RE = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


class RequestContextMiddleware:
    sync_capable = True
    async_capable = True

    def __init__(self, get_response):
        self.get_response = get_response
        self.api_prefix = settings.CMS_API_PREFIX + "/"
        self.log_requests = settings.CMS_REQUEST_LOG
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest):
        if self.is_async:
            return self._acall(request)
        started = self._begin(request)
        with request_scalars_scope():
            response = self.get_response(request)
        return self._finish(request, response, started)

    async def _acall(self, request: HttpRequest):
        started = self._begin(request)
        with request_scalars_scope():
            response = await self.get_response(request)
        return self._finish(request, response, started)

    def _begin(self, request: HttpRequest) -> float:
        incoming = request.headers.get("X-Request-ID", "")
        request.request_id = incoming if _REQUEST_ID_RE.match(incoming) else new_id()
        return time.perf_counter()

    def _finish(self, request: HttpRequest, response: HttpResponse, started: float) -> HttpResponse:
        response["X-Request-ID"] = request.request_id
        if request.path.startswith(self.api_prefix) and not response.has_header("Cache-Control"):
            response["Cache-Control"] = "private, no-store"
        if self.log_requests:
            user = getattr(request, "_cms_user_id", None)
            logger.info(
                "%s %s %s",
                request.method,
                request.path,
                response.status_code,
                extra={
                    "request_id": request.request_id,
                    "method": request.method,
                    "path": request.path,
                    "status": response.status_code,
                    "duration_ms": round((time.perf_counter() - started) * 1000, 2),
                    "user_id": user,
                },
            )
        return response


class _QueryCounter:
    """A connection execute wrapper counting the queries of one request (Django's ``execute_wrapper`` hook)."""

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, execute, sql, params, many, context):
        self.count += 1
        return execute(sql, params, many, context)


class MetricsMiddleware:
    """Request count, latency and database queries per request, by URL pattern and status (apps/core/metrics.py).
    Installed first, so its time covers the other middleware; absent altogether while metrics are off
    (``CMS_METRICS_TOKEN`` unset), so it then costs nothing. Synchronous only: under ASGI Django adapts it."""

    def __init__(self, get_response):
        if not settings.CMS_METRICS_TOKEN:
            raise MiddlewareNotUsed
        self.get_response = get_response

    def __call__(self, request: HttpRequest):
        counter = _QueryCounter()
        # Every alias (a replica too): connection objects are per thread, so the wrappers see this request's only.
        wrapped = [connection.execute_wrappers for connection in connections.all()]
        for wrappers in wrapped:
            wrappers.append(counter)
        started = time.perf_counter()
        try:
            response = self.get_response(request)
        finally:
            for wrappers in wrapped:
                wrappers.remove(counter)
        match = request.resolver_match
        metrics.observe_request(
            request.method,
            "/" + match.route if match is not None else metrics.UNMATCHED,
            response.status_code,
            time.perf_counter() - started,
            counter.count,
        )
        return response
