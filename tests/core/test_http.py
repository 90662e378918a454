"""Cross-cutting HTTP: health, CORS, the OpenAPI document and its docs page."""

import json
from pathlib import Path

import pytest
from django.test import override_settings
from openapi_spec_validator import validate

from apps.core.api.openapi import openapi_document

ROOT = Path(__file__).resolve().parents[2]


def test_health_reports_database_and_migrations(api):
    from django.db import connection

    response = api.get("/_cms/api/health")
    assert response.status_code == 200
    assert response.json() == {"success": True, "data": {"status": "ok", "database": connection.vendor}}


def test_health_refuses_parameters(api):
    response = api.get("/_cms/api/health", {"verbose": "1"})
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "verbose": "Unknown query parameter; this endpoint takes none."
    }


@override_settings(CORS_ALLOWED_ORIGINS=["https://app.example.com"])
def test_cors_preflight_from_an_allowed_origin(api):
    response = api.options(
        "/_cms/api/admin/api-tokens",
        HTTP_ORIGIN="https://app.example.com",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="authorization, content-type",
    )
    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == "https://app.example.com"
    assert "POST" in response["Access-Control-Allow-Methods"]
    assert "authorization" in response["Access-Control-Allow-Headers"]
    assert "Access-Control-Allow-Credentials" not in response


@override_settings(CORS_ALLOWED_ORIGINS=["https://app.example.com"])
def test_cors_preflight_from_another_origin_gets_no_grant(api):
    response = api.options(
        "/_cms/api/admin/api-tokens",
        HTTP_ORIGIN="https://evil.example.net",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
    )
    assert "Access-Control-Allow-Origin" not in response


@override_settings(CORS_ALLOWED_ORIGINS=["https://app.example.com"])
def test_cors_headers_on_actual_api_answers_expose_retry_after(admin_api):
    response = admin_api.get("/_cms/api/admin/api-tokens", HTTP_ORIGIN="https://app.example.com")
    assert response["Access-Control-Allow-Origin"] == "https://app.example.com"
    assert "Retry-After" in response["Access-Control-Expose-Headers"]


@override_settings(CORS_ALLOWED_ORIGINS=["https://app.example.com"])
def test_cors_does_not_apply_outside_the_api(api):
    response = api.get("/django-admin/login/", HTTP_ORIGIN="https://app.example.com")
    assert "Access-Control-Allow-Origin" not in response


def test_openapi_document_is_valid_openapi_3(api):
    response = api.get("/_cms/api/openapi.json")
    assert response.status_code == 200
    document = response.json()
    assert document["openapi"].startswith("3.")
    validate(document)


def test_committed_openapi_document_is_current():
    committed = json.loads((ROOT / "docs" / "openapi.json").read_text())
    current = json.loads(json.dumps(openapi_document()))
    assert committed == current, "docs/openapi.json is stale: run `make openapi` and commit it"


def test_interactive_docs_page_is_served_without_external_assets(api):
    response = api.get("/_cms/api/docs")
    assert response.status_code == 200
    html = response.content.decode()
    assert "swagger" in html.lower()
    assert "cdn.jsdelivr" not in html and "unpkg.com" not in html


@pytest.mark.parametrize("path", ["/_cms/api/admin/api-tokens"])
def test_every_documented_operation_requires_a_security_scheme(path):
    operations = openapi_document()["paths"][path]
    for operation in operations.values():
        assert operation.get("security"), operation["operationId"]
