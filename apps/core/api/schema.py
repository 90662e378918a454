"""OpenAPI generation from the ``@endpoint`` declarations (drf-spectacular).

The same declaration that the base view enforces documents the operation: query parameters, request body, the
enveloped success response, and the error responses this endpoint can give, all in the error envelope. The document is
served at ``/_cms/api/openapi.json`` and kept in ``docs/openapi.json`` (a test compares the two).
"""

from __future__ import annotations

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import ResolvedComponent, build_basic_type, build_parameter_type
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse

from apps.core import shapes
from apps.core.api.views import BODY_METHODS, Endpoint
from apps.core.presenters import ErrorEnvelopeOut

COMPONENTS = "#/components/schemas/{model}"
# Every shape that became a component, by name: two different shapes must not share one name.
_named: dict[str, object] = {}

ERROR_DESCRIPTIONS = {
    400: "Invalid input (VALIDATION_ERROR and the other 400 codes of SPEC §7).",
    401: "Missing, invalid, expired or revoked credentials (UNAUTHORIZED).",
    403: "The token lacks the scope, or the user the role, for this operation (FORBIDDEN).",
    404: "No such resource (NOT_FOUND).",
    409: "Conflict with the current state (CONFLICT, DUPLICATE_SLUG).",
    413: "The request body is too large (PAYLOAD_TOO_LARGE).",
    415: "The Content-Type of the request body is not one this endpoint takes (UNSUPPORTED_MEDIA_TYPE).",
    422: "The input is understood but cannot be processed (IMAGE_TOO_LARGE: an image over the rendition pixel limit).",
    429: "Rate limited (RATE_LIMITED); see the Retry-After header.",
    507: "Out of storage: the disk is full (INSUFFICIENT_STORAGE), or the media quota is reached "
    "(STORAGE_QUOTA_EXCEEDED, details show the usage); nothing was stored.",
    503: "Temporarily unavailable (SERVICE_UNAVAILABLE); see the Retry-After header.",
}


def only_api_paths(endpoints):
    """Document the REST API only: not the admin, not the documentation routes themselves. A path that also serves a
    resource of the same name (``…/fields/reorder``) is documented for its own method only."""
    return [
        (path, path_regex, method, callback)
        for path, path_regex, method, callback in endpoints
        if path.startswith("/_cms/api/")
        and not path.endswith(("/openapi.json", "/docs"))
        and not (path.endswith("/fields/reorder") and method != "POST")
    ]


class CmsAutoSchema(AutoSchema):
    def _register(self, name: str, shape: object, schema: dict) -> dict:
        known = _named.setdefault(name, shape)
        if known is not shape and not (
            isinstance(known, (shapes.Enveloped, shapes.Paged)) and name == known.__name__
        ):
            raise ValueError(f"two different shapes are both named {name}: {known!r} and {shape!r}")
        self.registry.register_on_missing(
            ResolvedComponent(name=name, type=ResolvedComponent.SCHEMA, object=name, schema=schema)
        )
        return {"$ref": COMPONENTS.format(model=name)}

    def shape_ref(self, shape) -> dict:
        """A component for an input model, an output TypedDict or an envelope of one, and a reference to it."""
        if isinstance(shape, shapes.Enveloped):
            inner = self.shape_ref(shape.shape)
            schema = {
                "type": "object",
                "properties": {"success": {"type": "boolean"}, "data": inner},
                "required": ["success", "data"],
            }
            return self._register(shape.__name__, shape, schema)
        if isinstance(shape, shapes.Paged):
            schema = {
                "type": "object",
                "properties": {
                    "items": {"type": "array", "items": self.shape_ref(shape.shape)},
                    "nextCursor": {
                        "anyOf": [{"type": "string"}, {"type": "null"}],
                        "description": "Pass as `cursor` for the next page; null on the last page.",
                    },
                },
                "required": ["items", "nextCursor"],
            }
            return self._register(shape.__name__, shape, schema)
        schema = shapes.schema_of(shape, ref_template=COMPONENTS)
        for name, definition in schema.pop("$defs", {}).items():
            self.registry.register_on_missing(
                ResolvedComponent(name=name, type=ResolvedComponent.SCHEMA, object=name, schema=definition)
            )
        return self._register(shapes.shape_name(shape), shape, schema)

    def _get_request_for_media_type(self, serializer, direction="request"):
        if shapes.is_shape(serializer):
            model = shapes.partial(serializer) if self.method == "PATCH" else serializer
            if not model.model_fields:
                # An endpoint that takes no input (sign-out) documents no body, as drf-spectacular does for an empty
                # serializer; the base view still refuses any key sent.
                return None, False
            ref = self.shape_ref(model)
            required = any(info.is_required() for info in model.model_fields.values())
            return ref, required
        return super()._get_request_for_media_type(serializer, direction)

    def _get_response_for_code(self, serializer, status_code, media_types=None, direction="response"):
        if isinstance(serializer, OpenApiResponse) and shapes.is_shape(serializer.response):
            serializer = OpenApiResponse(
                response=self.shape_ref(serializer.response),
                description=serializer.description,
                examples=serializer.examples,
            )
        elif shapes.is_shape(serializer):
            serializer = self.shape_ref(serializer)
        return super()._get_response_for_code(serializer, status_code, media_types, direction)

    def _shape_parameters(self, model) -> list[OpenApiParameter]:
        parameters = []
        properties = shapes.schema_of(model, ref_template=COMPONENTS)["properties"]
        for name, info in model.model_fields.items():
            schema = dict(properties[name])
            description = schema.pop("description", "") or ""
            deep = shapes._is_deep(info)
            if deep:
                schema = {"type": "object", "additionalProperties": {"type": "string"}}
            parameters.append(
                OpenApiParameter(
                    name=name,
                    type=schema,
                    location=OpenApiParameter.QUERY,
                    required=info.is_required(),
                    description=description,
                    style="deepObject" if deep else None,
                    explode=True if deep or shapes.is_list_annotation(info.annotation) else None,
                )
            )
        return parameters

    def _endpoint(self) -> Endpoint | None:
        name = getattr(self.view, "action", None) or self.method.lower()
        return getattr(getattr(self.view, name, None), "cms_endpoint", None)

    def _is_public(self) -> bool:
        spec = self._endpoint()
        return spec is not None and any(
            getattr(permission, "is_public_operation", lambda _op: False)(spec.operation)
            for permission in self.view.get_permissions()
        )

    def _allows_anonymous(self) -> bool:
        spec = self._endpoint()
        return spec is not None and any(
            getattr(permission, "is_anonymous_operation", lambda _op: False)(spec.operation)
            for permission in self.view.get_permissions()
        )

    def _is_list_view(self, serializer=None):
        # Our lists answer one enveloped page object, never a bare array.
        return False if self._endpoint() else super()._is_list_view(serializer)

    def get_override_parameters(self):
        spec = self._endpoint()
        if not (spec and spec.query):
            return super().get_override_parameters()
        return self._shape_parameters(spec.query)

    def get_request_serializer(self):
        spec = self._endpoint()
        if spec is None:
            return super().get_request_serializer()
        return spec.body if self.method in BODY_METHODS else None

    def get_response_serializers(self):
        spec = self._endpoint()
        if spec is None:
            return super().get_response_serializers()
        responses = {}
        for status in (spec.status, *spec.also):
            if isinstance(spec.response, dict):
                # Several representations: {media type: shape or type}; JSON ones are enveloped.
                responses.update(
                    {
                        (status, media): shapes.enveloped(body) if media == "application/json" else body
                        for media, body in spec.response.items()
                    }
                )
                continue
            if isinstance(spec.response, OpenApiResponse) or not spec.envelope:
                success = spec.response
            elif spec.response is None:
                success = OpenApiResponse(description="No content.")
            else:
                success = shapes.enveloped(spec.response)
            responses[(status, spec.media_type) if spec.media_type else status] = success
        for status, description in (spec.bodiless or {}).items():
            responses[status] = OpenApiResponse(description=description)
        # 400 always: every endpoint refuses query parameters (and body keys) it does not declare.
        codes = {400, *spec.errors}
        if not self._is_public():
            codes |= {401, 403}
        if "{" in self.path:
            codes.add(404)
        if spec.ratelimit:
            codes.add(429)
        if self.method in BODY_METHODS:
            # Any body can be too large (DATA_UPLOAD_MAX_MEMORY_SIZE) or of a media type the endpoint does not parse.
            codes |= {413, 415}
        # Protocol endpoints document their own error bodies: keyed by status they replace the envelope, keyed by
        # (status, media type) they add a representation (an HTML error page beside the JSON envelope).
        protocol_errors = dict(spec.error_bodies or {})
        for code in sorted(codes - set(protocol_errors)):
            responses[code] = OpenApiResponse(response=ErrorEnvelopeOut, description=ERROR_DESCRIPTIONS[code])
        responses.update(protocol_errors)
        return responses

    def get_auth(self):
        if self._is_public():
            return []
        # Reads open to anonymous readers of public collections (docs/delivery.md): the token is optional.
        return [*super().get_auth(), {}] if self._allows_anonymous() else super().get_auth()

    def get_summary(self):
        spec = self._endpoint()
        return (spec.summary if spec else None) or super().get_summary()

    def get_operation_id(self):
        # Paths are declared explicitly (not by a router), so name operations by path and action: content_list,
        # content_retrieve, content_publish …
        tokens = [token.replace("-", "_") for token in self._tokenize_path() if not token.startswith("{")]
        action = getattr(self.view, "action", None) or self.method.lower()
        if tokens and tokens[-1] == action:
            tokens.pop()
        return "_".join([*tokens, action])

    def get_description(self):
        # The handler's own docstring only: the view class docstring describes code, not the operation.
        name = getattr(self.view, "action", None) or self.method.lower()
        doc = getattr(getattr(self.view, name, None), "__doc__", None)
        return " ".join(doc.split()) if doc else ""

    def _resolve_path_parameters(self, variables):
        # Every path parameter of this API is a string: a ULID, a slug or a name. A ``<path:…>`` one may span several
        # segments (a storage key such as 2026/01/photo.jpg); the extension says so to clients and to the tests.
        parameters = []
        for variable in variables:
            parameter = build_parameter_type(
                name=variable,
                location=OpenApiParameter.PATH,
                description="ULID of the resource." if variable in {"pk", "id"} else "",
                schema=build_basic_type(OpenApiTypes.STR),
            )
            if f"<path:{variable}>" in self.path_regex:
                parameter["x-multi-segment"] = True
                parameter["description"] = "May contain '/' (several path segments)."
            parameters.append(parameter)
        return parameters
