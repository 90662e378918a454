"""The one base for every REST view: declared endpoints, strict input, permission, rate limit, envelope.

A handler states what it is with ``@endpoint``: the permission operation (a key of the table in
``apps/accounts/permissions.py``), the query and body input models and the response shape (apps/core/shapes.py; the
OpenAPI document is generated from them) and its rate-limit group. The base class then, before the handler runs: authenticates, checks the operation's scope
and role, counts the rate limit, and validates the query string and body, refusing any parameter or key it does not
declare. Handlers receive clean dicts in ``self.query`` and ``self.body``, call a service or selector, and return
``ok(data)``. A handler without ``@endpoint`` is reachable by admins only (fail closed).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from rest_framework.exceptions import MethodNotAllowed
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView
from rest_framework.viewsets import ViewSet

from apps.core import ratelimit, shapes
from apps.core.api.renderers import JSONRenderer
from apps.core.errors import UnsupportedMediaType, ValidationError

BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


@dataclass(frozen=True)
class Endpoint:
    operation: str
    query: type[shapes.Input] | None = None
    # The body's input model; or {media type: model} when the endpoint takes several (JSON and multipart uploads).
    body: type[shapes.Input] | Mapping[str, type[shapes.Input]] | None = None
    # What ``data`` holds in a successful answer: an output shape (a TypedDict, paged(...)), or None for no body.
    response: Any = None
    status: int = 200
    # Rate-limit group (settings.CMS_RATE_LIMITS); None exempts the endpoint (health checks).
    ratelimit: str | None = "api"
    # The SPEC §7 code reported when the handler fails unexpectedly (e.g. CONTENT_LIST_ERROR); INTERNAL_ERROR if None.
    error_code: str | None = None
    # False for the few answers that are not enveloped (search, file downloads).
    envelope: bool = True
    summary: str | None = None
    # Extra documented error statuses beyond the ones every endpoint can give.
    errors: tuple[int, ...] = ()
    # The media type of the success answer when it is not JSON (e.g. "text/html" for a page).
    media_type: str | None = None
    # False where a protocol library parses the body itself and answers in its own error format (OAuth, RFC 6749
    # §3.2 and §5.2: unknown parameters are ignored, errors are `{error, error_description}`): ``body`` then only
    # documents the request.
    validate_body: bool = True
    # Error answers that are not our envelope (protocol endpoints, see validate_body, or HTML pages): keyed by
    # status to replace the envelope, by (status, media type) to document another representation beside it.
    error_bodies: Mapping[Any, Any] | None = None
    # Further success statuses answered with the same body as ``status`` (an upload that found an existing item: 200).
    also: tuple[int, ...] = ()
    # Success statuses without a body, with their description (304 Not Modified of a conditional download).
    bodiless: Mapping[int, str] | None = None


def endpoint(operation: str, **options: Any) -> Callable:
    def mark(handler: Callable) -> Callable:
        handler.cms_endpoint = Endpoint(operation=operation, **options)
        return handler

    return mark


def ok(data: Any = None, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """The success envelope of SPEC §4.1."""
    return Response({"success": True, "data": data}, status=status, headers=headers)


def _plain_query(query_params) -> dict[str, Any]:
    """QueryDict to dict; a repeated parameter keeps all its values so list fields can take them."""
    return {key: values if len(values) > 1 else values[0] for key, values in query_params.lists()}


class CmsViewMixin:
    query: dict[str, Any]
    body: dict[str, Any]

    def get_endpoint(self) -> Endpoint | None:
        method = self.request.method.lower() if self.request else None
        name = getattr(self, "action", None) or method
        handler = getattr(self, name, None) if name else None
        return getattr(handler, "cms_endpoint", None)

    def check_throttles(self, request: Request) -> None:
        spec = self.get_endpoint()
        group = spec.ratelimit if spec else "api"
        if group:
            ratelimit.enforce(request, group)

    def finalize_response(self, request: Request, response, *args: Any, **kwargs: Any):
        response = super().finalize_response(request, response, *args, **kwargs)
        # Errors are always JSON envelopes, even on endpoints that also speak another format (TypeScript export).
        if isinstance(response, Response) and response.status_code >= 400:
            response.accepted_renderer = JSONRenderer()
            response.accepted_media_type = JSONRenderer.media_type
        return response

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        # An unsupported method is 405 for everyone, before authentication could turn it into 401 or 403.
        if getattr(self, request.method.lower(), None) is None:
            raise MethodNotAllowed(request.method)
        super().initial(request, *args, **kwargs)
        # Path segments reach lookups unvalidated; PostgreSQL cannot even compare text holding NUL.
        bad = {
            name: "Null characters are not allowed." for name, value in kwargs.items() if "\x00" in str(value)
        }
        if bad:
            raise ValidationError(details=bad)
        spec = self.get_endpoint()
        self.query = self.validate_query(spec, request)
        self.body = self.validate_body(spec, request)

    def validate_query(self, spec: Endpoint | None, request: Request) -> dict[str, Any]:
        params = _plain_query(request.query_params)
        if spec is None or spec.query is None:
            if params:
                raise ValidationError(
                    details={name: "Unknown query parameter; this endpoint takes none." for name in params}
                )
            return {}
        # Readers repeat the same few query strings (a front end's list page, or none at all), and the answer is a pure
        # function of the string: validating it again on every request was a fifth of a GET's own time (measured with
        # DRF serializers; the models are cheaper, the cache still saves the work). Only valid queries are kept, the newest _QUERY_CACHE_SIZE of them.
        key = (
            spec.query,
            tuple(
                sorted(
                    (name, value if isinstance(value, str) else tuple(value))
                    for name, value in params.items()
                )
            ),
        )
        clean = _QUERY_CACHE.get(key)
        if clean is None:
            clean = query_values(spec.query, params)
            if len(_QUERY_CACHE) >= _QUERY_CACHE_SIZE:
                del _QUERY_CACHE[next(iter(_QUERY_CACHE))]
            _QUERY_CACHE[key] = clean
        return copy.deepcopy(clean)

    def validate_body(self, spec: Endpoint | None, request: Request) -> dict[str, Any]:
        if request.method not in BODY_METHODS or spec is None or spec.body is None or not spec.validate_body:
            return {}
        model = spec.body
        if isinstance(model, Mapping):
            # The parsers already refused media types the view does not take (415).
            model = model.get(request.content_type.split(";")[0].strip().lower())
            if model is None:
                raise UnsupportedMediaType(
                    f"Unsupported Content-Type '{request.content_type}'; send one of: {', '.join(spec.body)}."
                )
        data = request.data
        if not isinstance(data, Mapping):
            raise ValidationError(
                "The request body must be a JSON object.", details={"body": "Expected a JSON object."}
            )
        # PATCH changes only what it sends: required fields and defaults do not apply.
        model = shapes.partial(model) if request.method == "PATCH" else model
        # Multipart bodies arrive as a QueryDict: one value per key unless the model takes a list.
        if hasattr(data, "lists"):
            data = _plain_form(model, data)
        return shapes.validate(model, data).values()


def query_values(model, params: dict[str, Any]) -> dict[str, Any]:
    # A parameter given once still fills a list field; one given twice for a single value is refused by the model.
    lists = {name for name, info in model.model_fields.items() if shapes.is_list_annotation(info.annotation)}
    params = {
        name: [value] if name in lists and isinstance(value, str) else value for name, value in params.items()
    }
    return shapes.validate(model, params, what="query parameter").values()


def _plain_form(model, data) -> dict[str, Any]:
    lists = {name for name, info in model.model_fields.items() if shapes.is_list_annotation(info.annotation)}
    return {key: values if key in lists else values[-1] for key, values in data.lists()}


_QUERY_CACHE: dict[tuple, dict[str, Any]] = {}
_QUERY_CACHE_SIZE = 512


def flatten_errors(errors: Any, prefix: str = "") -> dict[str, str]:
    """DRF's nested error lists as ``{"dotted.path": "message"}``: one message per field, what is wrong and expected."""
    flat: dict[str, str] = {}
    if isinstance(errors, dict):
        for key, value in errors.items():
            name = prefix if key == "non_field_errors" else (f"{prefix}.{key}" if prefix else str(key))
            flat.update(flatten_errors(value, name))
    elif isinstance(errors, list):
        if errors and all(not isinstance(item, (dict, list)) for item in errors):
            flat[prefix] = " ".join(str(item) for item in errors)
        else:
            for index, item in enumerate(errors):
                if item:
                    flat.update(flatten_errors(item, f"{prefix}[{index}]"))
    else:
        flat[prefix] = str(errors)
    return flat


class CmsAPIView(CmsViewMixin, APIView):
    """For single-purpose endpoints (health, schema export)."""


class CmsViewSet(CmsViewMixin, ViewSet):
    """For resources: list/retrieve/create/update/destroy plus extra actions."""
