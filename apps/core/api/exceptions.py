"""Every API failure in the SPEC §4.1 envelope: ``{success: false, error: {code, message, details}}``.

``exception_handler`` is DRF's hook and sees everything raised in a REST view: our CmsErrors, DRF's own exceptions
(parse errors, 401/403/404/405, unsupported media types), Django's (oversized bodies) and anything unexpected, which
becomes a 500 whose body names only the request id; the traceback goes to the log under that id. The ``handler*``
functions cover what happens outside DRF views (unknown URLs, CSRF failures) for paths under the API prefix.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.views import defaults
from django.views.csrf import csrf_failure as django_csrf_failure
from rest_framework import exceptions as drf
from rest_framework.response import Response
from rest_framework.views import set_rollback

from apps.core import errors
from apps.core.api.views import flatten_errors

logger = logging.getLogger("cms.errors")

BEARER_CHALLENGE = 'Bearer realm="cms"'


def to_cms_error(exc: BaseException) -> errors.CmsError | None:
    """The CmsError that describes ``exc``, or None when it is unexpected."""
    if isinstance(exc, errors.CmsError):
        return exc
    if isinstance(exc, drf.ValidationError):
        return errors.ValidationError(details=flatten_errors(exc.detail) or {"body": str(exc.detail)})
    if isinstance(exc, drf.ParseError):
        # DRF's multipart parser re-raises Django's error as a ParseError: the body was meant to be multipart.
        expected = "multipart/form-data" if isinstance(exc.__context__, MultiPartParserError) else "JSON"
        return errors.ValidationError(
            f"The request body could not be parsed: {exc.detail}",
            details={"body": f"Expected valid {expected}."},
        )
    if isinstance(exc, (drf.NotAuthenticated, drf.AuthenticationFailed)):
        return errors.Unauthorized(str(exc.detail) if isinstance(exc, drf.AuthenticationFailed) else None)
    if isinstance(exc, (drf.PermissionDenied, DjangoPermissionDenied)):
        detail = getattr(exc, "detail", None)
        return errors.Forbidden(str(detail) if detail else None)
    if isinstance(exc, (drf.NotFound, Http404)):
        return errors.NotFound()
    if isinstance(exc, drf.MethodNotAllowed):
        return errors.MethodNotAllowed(str(exc.detail))
    if isinstance(exc, drf.NotAcceptable):
        return errors.NotAcceptable()
    if isinstance(exc, drf.UnsupportedMediaType):
        return errors.UnsupportedMediaType(f"{exc.detail} Send 'Content-Type: application/json'.")
    if isinstance(exc, drf.Throttled):
        return errors.RateLimited(retry_after=int(exc.wait or 1))
    if isinstance(exc, RequestDataTooBig):
        return errors.PayloadTooLarge(
            f"The request body is larger than the limit of {settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes."
        )
    if isinstance(exc, MultiPartParserError):
        return errors.ValidationError(
            f"The request body could not be parsed: {exc}",
            details={"body": "Expected valid multipart/form-data."},
        )
    if isinstance(exc, TooManyFieldsSent):
        return errors.PayloadTooLarge("The request has too many fields.")
    if errors.storage_full(exc):
        # A write outside the media service (Django spooling an upload to a temporary file, say): the same 507. Code
        # that writes files removes what it wrote itself; here there is only the answer left to give.
        logger.error("storage full", exc_info=exc)
        return errors.InsufficientStorage()
    if isinstance(exc, (OperationalError, InterfaceError)) and not str(exc).startswith(
        ("no such table", "no such column")
    ):
        # The database is unreachable or busy: the client should retry, not report a bug. (SQLite reports a missing
        # table as an OperationalError too; that is a bug or a pending migration, not a reason to retry.)
        return errors.ServiceUnavailable()
    if errors.storage_unreachable(exc):
        # Object storage down or hung, reached outside the media service's own handling: retry, not a bug.
        return errors.ServiceUnavailable()
    return None


def error_body(error: errors.CmsError) -> dict[str, Any]:
    return {"success": False, "error": error.as_dict()}


def _error_headers(error: errors.CmsError, exc: BaseException, view=None, request=None) -> dict[str, str]:
    headers = dict(error.headers)
    if error.status == 401:
        # The view's authentication class words the challenge (DRF sets `auth_header` from it only for its own
        # exceptions, not for the 401 of our permission check).
        own = view.get_authenticate_header(request) if view is not None and request is not None else None
        challenge = getattr(exc, "auth_header", None) or own or BEARER_CHALLENGE
        if isinstance(exc, drf.AuthenticationFailed) and "error=" not in challenge:
            challenge += ', error="invalid_token"'
        headers.setdefault("WWW-Authenticate", challenge)
    return headers


def unexpected_error(exc: BaseException, request_id: str, code: str | None) -> errors.CmsError:
    logger.error("unhandled error", exc_info=exc, extra={"request_id": request_id})
    error = errors.CmsError(f"An unexpected error occurred. Quote request id {request_id} when reporting it.")
    if code:
        error.code = code
    return error


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response:
    request = context.get("request")
    view = context.get("view")
    request_id = getattr(request, "request_id", None) or getattr(
        getattr(request, "_request", None), "request_id", "-"
    )
    error = to_cms_error(exc)
    if error is None:
        spec = view.get_endpoint() if hasattr(view, "get_endpoint") else None
        error = unexpected_error(exc, request_id, spec.error_code if spec else None)
    elif isinstance(error, errors.ServiceUnavailable) and error is not exc:
        # Raised as a ServiceUnavailable, it was logged where it was understood (media storage, say).
        logger.warning("service unavailable", exc_info=exc, extra={"request_id": request_id})
    set_rollback()
    headers = _error_headers(error, exc, view if hasattr(view, "get_authenticate_header") else None, request)
    return Response(error_body(error), status=error.status, headers=headers)


# --- Django-level handlers (urls.py): API paths answer in the envelope, other paths keep Django's pages. -------------


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith(settings.CMS_API_PREFIX + "/") or request.path == settings.CMS_API_PREFIX


def error_response(error: errors.CmsError) -> JsonResponse:
    response = JsonResponse(
        error_body(error), status=error.status, json_dumps_params={"separators": (",", ":")}
    )
    for name, value in error.headers.items():
        response[name] = value
    return response


def handler400(request: HttpRequest, exception: Exception | None = None):
    if _is_api(request):
        return error_response(errors.ValidationError("Bad request."))
    return defaults.bad_request(request, exception)


def handler403(request: HttpRequest, exception: Exception | None = None):
    if _is_api(request):
        return error_response(errors.Forbidden())
    return defaults.permission_denied(request, exception)


def handler404(request: HttpRequest, exception: Exception | None = None):
    if _is_api(request):
        return error_response(errors.NotFound(f"No API endpoint at {request.path}."))
    return defaults.page_not_found(request, exception)


def handler500(request: HttpRequest):
    if _is_api(request):
        request_id = getattr(request, "request_id", "-")
        return error_response(
            errors.CmsError(f"An unexpected error occurred. Quote request id {request_id} when reporting it.")
        )
    return defaults.server_error(request)


def csrf_failure(request: HttpRequest, reason: str = ""):
    if _is_api(request):
        return error_response(
            errors.Forbidden(f"CSRF check failed: {reason}. Send the X-CSRFToken header or use a token.")
        )
    return django_csrf_failure(request, reason)
