"""Every face names its operation and takes scope, role and shapes from the one declaration (issue 18).

A tool that states its own scope or role, an endpoint or tool whose operation is not in the permission table, a tool
importing from the REST package, or a domain still declaring DRF serializers fails here.
"""

from __future__ import annotations

import ast
from pathlib import Path

from apps.accounts.permissions import RULES
from apps.core import shapes
from apps.mcp import registry
from tests.core.test_routes import api_routes

APPS = Path(__file__).resolve().parents[2] / "apps"


def test_every_tool_names_an_operation_of_the_permission_table():
    loose = [tool.name for tool in registry.builtin_tools() if tool.operation not in RULES]
    assert loose == []


def test_no_tool_states_its_own_scope_or_role():
    stated = []
    for path in sorted(APPS.glob("*/tools.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "tool":
                stated += [
                    f"{path.parent.name}: {keyword.arg}"
                    for keyword in node.keywords
                    if keyword.arg in {"scope", "min_role"}
                ]
    assert stated == []


def test_every_endpoint_names_an_operation_of_the_permission_table():
    loose = sorted(
        f"{method.upper()} {path}: {handler.cms_endpoint.operation}"
        for path, method, handler in api_routes()
        if handler.cms_endpoint.operation not in RULES
    )
    assert loose == []


def test_every_endpoint_and_tool_reads_shape_declarations():
    """Inputs are Input models and outputs TypedDicts (or raw media), never DRF serializers."""
    serializers = []
    for path, method, handler in api_routes():
        spec = handler.cms_endpoint
        bodies = spec.body.values() if isinstance(spec.body, dict) else [spec.body]
        for declared in (spec.query, *bodies):
            if declared is not None and not shapes.is_shape(declared):
                serializers.append(f"{method.upper()} {path}: {declared.__name__}")
    assert serializers == []
    assert [
        tool.name for tool in registry.builtin_tools() if not issubclass(tool.input_model, shapes.Input)
    ] == []


def test_no_face_imports_another_face_and_no_serializer_module_is_left():
    crossing = []
    for path in sorted(APPS.glob("*/tools.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and ".api" in node.module:
                crossing.append(f"{path.parent.name}/tools.py imports {node.module}")
    assert crossing == []
    assert sorted(str(path.relative_to(APPS)) for path in APPS.glob("*/api/*serializers.py")) == []
