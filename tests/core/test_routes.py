"""Every API route, found from the URL configuration: declared, and closed to anonymous callers unless public.

A route added later without an ``@endpoint`` declaration, or a non-public one that answers without credentials,
fails here.
"""

from __future__ import annotations

import re

from django.urls import URLPattern, URLResolver, get_resolver

from apps.accounts.models import Role
from apps.accounts.permissions import allowed_scopes, rule_for

DUMMY = "01ARZ3NDEKTSV4RRFFQ69G5FAV"
UNDOCUMENTED_VIEWS = {"OpenApiView", "SpectacularSwaggerView"}


def _walk(patterns, prefix=""):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _walk(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            yield prefix + str(pattern.pattern), pattern.callback


def _concrete(route: str) -> str:
    route = route.replace("^", "").replace("$", "")
    route = re.sub(r"<(?:\w+:)?\w+>", DUMMY, route)
    route = re.sub(r"\(\?P<\w+>[^)]*\)", DUMMY, route)
    return "/" + route.replace("\\", "")


def api_routes():
    for route, callback in _walk(get_resolver().url_patterns):
        path = _concrete(route)
        if not path.startswith("/_cms/api/"):
            continue
        view_class = getattr(callback, "cls", None) or getattr(callback, "view_class", None)
        if view_class is None or view_class.__name__ in UNDOCUMENTED_VIEWS:
            continue
        actions = getattr(callback, "actions", None)
        if actions:
            methods = {method: getattr(view_class, action) for method, action in actions.items()}
        else:
            methods = {
                method: getattr(view_class, method)
                for method in ("get", "post", "put", "patch", "delete")
                if hasattr(view_class, method)
            }
        for method, handler in methods.items():
            yield path, method, handler


def test_every_api_handler_declares_its_endpoint():
    undeclared = [
        f"{method.upper()} {path}"
        for path, method, handler in api_routes()
        if not hasattr(handler, "cms_endpoint")
    ]
    assert undeclared == []


def test_non_public_routes_refuse_anonymous_callers(api):
    checked = 0
    for path, method, handler in api_routes():
        if rule_for(handler.cms_endpoint.operation).public:
            continue
        response = getattr(api, method)(path)
        assert response.status_code == 401, f"{method.upper()} {path} answered {response.status_code}"
        checked += 1
    assert checked >= 3


WRITE_SCOPES = {"content:write", "media:write", "schema:write", "admin"}


def test_write_routes_refuse_a_read_only_token(client_for):
    """An admin's token that carries only the read scopes is refused by every route whose operation needs more."""
    reader = client_for(Role.ADMIN, scopes=("content:read", "media:read", "schema:read"))
    checked = 0
    for path, method, handler in api_routes():
        rule = rule_for(handler.cms_endpoint.operation)
        if rule.public or rule.scope not in WRITE_SCOPES:
            continue
        response = getattr(reader, method)(path)
        assert response.status_code == 403, f"{method.upper()} {path} answered {response.status_code}"
        if method != "head":
            assert response.json()["error"]["code"] == "FORBIDDEN", f"{method.upper()} {path}"
        checked += 1
    assert checked >= 20


def test_admin_routes_refuse_an_editor(client_for):
    """An editor holding every scope an editor may hold is refused by every admin-only route."""
    editor = client_for(Role.EDITOR, scopes=sorted(allowed_scopes(Role.EDITOR)))
    checked = 0
    for path, method, handler in api_routes():
        rule = rule_for(handler.cms_endpoint.operation)
        if rule.public or rule.min_role < Role.ADMIN:
            continue
        response = getattr(editor, method)(path)
        assert response.status_code == 403, f"{method.upper()} {path} answered {response.status_code}"
        checked += 1
    assert checked >= 5
