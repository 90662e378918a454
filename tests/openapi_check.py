"""Checks a response against the OpenAPI document: the documented status, and a body matching its schema exactly.

Every request made through the ``api`` fixture passes through here, so an endpoint cannot answer something its
documentation does not describe: a missing key, an extra key (objects are checked as closed), a wrong type, or an
undocumented status code.
"""

from __future__ import annotations

import copy
import json
import re
import threading
from functools import cache

import jsonschema

from apps.core.api.openapi import openapi_document

# Answers any endpoint can give that are not repeated in every operation of the document.
UNIVERSAL_STATUSES = {405, 406, 413, 415, 500, 503}


@cache
def _routes() -> list[tuple[re.Pattern, dict]]:
    routes: list[tuple[int, re.Pattern, dict]] = []
    for template, operations in openapi_document()["paths"].items():
        # Parameters marked x-multi-segment (storage keys) may contain slashes; the others are one segment.
        spanning = {
            parameter["name"]
            for operation in operations.values()
            if isinstance(operation, dict)
            for parameter in operation.get("parameters", [])
            if parameter.get("in") == "path" and parameter.get("x-multi-segment")
        }
        pattern = (
            "^"
            + re.sub(
                r"\{([^}]+)\}",
                lambda match, spanning=spanning: ".+" if match.group(1) in spanning else "[^/]+",
                re.escape(template).replace(r"\{", "{").replace(r"\}", "}"),
            )
            + "$"
        )
        routes.append((template.count("{"), re.compile(pattern), operations))
    # Literal segments win over parameters (…/fields/reorder before …/fields/{field}), as in the URL configuration.
    return [(pattern, operations) for _, pattern, operations in sorted(routes, key=lambda route: route[0])]


def _closed(schema):
    """The schema with every object that lists its properties closed to other keys."""
    if isinstance(schema, dict):
        schema = {key: _closed(value) for key, value in schema.items()}
        if "properties" in schema and "additionalProperties" not in schema:
            schema["additionalProperties"] = False
        return schema
    if isinstance(schema, list):
        return [_closed(item) for item in schema]
    return schema


@cache
def _components() -> dict:
    return _closed(copy.deepcopy(openapi_document().get("components", {})))


# Generating the document is not thread-safe (drf-spectacular), and concurrency tests answer from several threads.
_first_use = threading.Lock()


def operation_for(method: str, path: str) -> dict | None:
    for pattern, operations in _routes():
        if pattern.match(path) and method.lower() in operations:
            return operations[method.lower()]
    return None


def check_response(method: str, path: str, response) -> None:
    if not path.startswith("/_cms/api/") or path.startswith("/_cms/api/test/"):
        return  # not the API, or the deliberately failing test-only endpoints (tests/core/urls.py)
    if path.endswith(("/openapi.json", "/docs")) or method.upper() in {"OPTIONS", "HEAD"}:
        return
    with _first_use:
        operation = operation_for(method, path)
        components = _components()
    if operation is None:
        if response.status_code in (404, 405):
            return  # an unknown route or method, answered by the generic handlers
        raise AssertionError(f"{method} {path} is not in the OpenAPI document")
    documented = operation["responses"].get(str(response.status_code))
    if documented is None:
        if response.status_code in UNIVERSAL_STATUSES:
            return
        raise AssertionError(
            f"{method} {path} answered {response.status_code}, which its documentation does not list "
            f"({', '.join(operation['responses'])})"
        )
    content = documented.get("content")
    if not content:
        return
    media = response.headers.get("Content-Type", "").split(";")[0].strip()
    if media not in content and "*/*" not in content and f"{media.split('/')[0]}/*" not in content:
        raise AssertionError(f"{method} {path} answered {media}, documented: {', '.join(content)}")
    if media != "application/json":
        return
    schema = {"components": components, "$defs": {"target": _closed(content[media]["schema"])}}
    schema["$ref"] = "#/$defs/target"
    body = json.loads(response.content)
    try:
        jsonschema.validate(body, schema, cls=jsonschema.Draft202012Validator)
    except jsonschema.ValidationError as exc:
        raise AssertionError(
            f"{method} {path} {response.status_code} does not match its documented schema: {exc.message} "
            f"at {'/'.join(str(p) for p in exc.absolute_path)}\nbody: {json.dumps(body)[:2000]}"
        ) from None
