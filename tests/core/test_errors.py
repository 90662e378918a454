"""The error envelope of SPEC §4.1 for every kind of failure, through the HTTP stack."""

import json
import logging

import pytest
from django.test import override_settings

from apps.accounts.models import Role

TOKENS = "/_cms/api/admin/api-tokens"


def error(response):
    return json.loads(response.content)


def test_unknown_query_parameter_is_refused_by_name(admin_api):
    response = admin_api.get(TOKENS, {"limit": 5, "colour": "red"})
    assert response.status_code == 400
    assert error(response) == {
        "success": False,
        "error": {
            "code": "VALIDATION_ERROR",
            "message": "colour: Unknown query parameter; allowed: cursor, limit, userId.",
            "details": {"colour": "Unknown query parameter; allowed: cursor, limit, userId."},
        },
    }


def test_unknown_body_key_is_refused_by_name(admin_api):
    response = admin_api.post(
        TOKENS, {"name": "ci", "scopes": ["content:read"], "scope": "admin"}, format="json"
    )
    assert response.status_code == 400
    assert error(response)["error"] == {
        "code": "VALIDATION_ERROR",
        "message": "scope: Unknown field; allowed: expiresAt, name, scopes, userId.",
        "details": {"scope": "Unknown field; allowed: expiresAt, name, scopes, userId."},
    }


def test_each_bad_field_is_named_with_what_is_expected(admin_api):
    response = admin_api.post(TOKENS, {"name": "", "scopes": ["content:read", "everything"]}, format="json")
    assert response.status_code == 400
    body = error(response)["error"]
    assert body["code"] == "VALIDATION_ERROR"
    assert body["details"] == {
        "name": "This field may not be blank.",
        "scopes.1": '"everything" is not a valid choice.',
    }
    assert body["message"] == "name: This field may not be blank. (and 1 more problem; see details)"


def test_malformed_json_is_a_validation_error(admin_api):
    response = admin_api.generic("POST", TOKENS, '{"name": "x",', content_type="application/json")
    assert response.status_code == 400
    body = error(response)["error"]
    assert body["code"] == "VALIDATION_ERROR"
    assert body["message"].startswith("The request body could not be parsed: JSON parse error")
    assert body["details"] == {"body": "Expected valid JSON."}


def test_a_body_that_is_not_an_object_is_refused(admin_api):
    response = admin_api.generic("POST", TOKENS, '["name"]', content_type="application/json")
    assert response.status_code == 400
    assert error(response)["error"] == {
        "code": "VALIDATION_ERROR",
        "message": "The request body must be a JSON object.",
        "details": {"body": "Expected a JSON object."},
    }


def test_unsupported_content_type_is_415(admin_api):
    response = admin_api.generic("POST", TOKENS, "name=x", content_type="text/plain")
    assert response.status_code == 415
    body = error(response)["error"]
    assert body["code"] == "UNSUPPORTED_MEDIA_TYPE"
    assert "application/json" in body["message"]


def test_missing_token_is_401_with_bearer_challenge(api):
    response = api.get(TOKENS)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == (
        'Bearer realm="cms", scope="content:read content:write media:read media:write schema:read"'
    )
    assert error(response) == {
        "success": False,
        "error": {
            "code": "UNAUTHORIZED",
            "message": "Authentication required: send 'Authorization: Bearer <token>'.",
            "details": {},
        },
    }


def test_unknown_token_is_401_invalid_token(api):
    response = api.as_token("ec_pat_" + "A" * 43).get(TOKENS)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == (
        'Bearer realm="cms", scope="content:read content:write media:read media:write schema:read", '
        'error="invalid_token"'
    )
    assert error(response)["error"] == {"code": "UNAUTHORIZED", "message": "Invalid token.", "details": {}}


def test_wrong_scope_is_403(client_for):
    response = client_for(Role.ADMIN, ["content:read"]).get(TOKENS)
    assert response.status_code == 403
    assert error(response)["error"] == {
        "code": "FORBIDDEN",
        "message": "Insufficient scope: requires admin.",
        "details": {"requiredScope": "admin"},
    }


def test_unknown_api_path_is_404_in_the_envelope(admin_api):
    response = admin_api.get("/_cms/api/no/such/thing")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert error(response) == {
        "success": False,
        "error": {
            "code": "NOT_FOUND",
            "message": "No API endpoint at /_cms/api/no/such/thing.",
            "details": {},
        },
    }


def test_unknown_resource_id_is_404(admin_api):
    response = admin_api.delete(f"{TOKENS}/01ARZ3NDEKTSV4RRFFQ69G5FAV")
    assert response.status_code == 404
    assert error(response)["error"] == {
        "code": "NOT_FOUND",
        "message": "No API token with id 01ARZ3NDEKTSV4RRFFQ69G5FAV.",
        "details": {},
    }


def test_unsupported_method_is_405_even_without_credentials(api):
    response = api.put(TOKENS, {}, format="json")
    assert response.status_code == 405
    assert error(response)["error"] == {
        "code": "METHOD_NOT_ALLOWED",
        "message": 'Method "PUT" not allowed.',
        "details": {},
    }


@override_settings(ROOT_URLCONF="tests.core.urls")
def test_conflict_is_409(admin_api):
    response = admin_api.get("/_cms/api/test/conflict")
    assert response.status_code == 409
    assert error(response)["error"] == {
        "code": "CONFLICT",
        "message": "The entry changed since you read it; reload and retry.",
        "details": {"currentRev": "3"},
    }


@override_settings(ROOT_URLCONF="tests.core.urls")
def test_unexpected_error_is_500_without_internals_and_logged_with_the_request_id(admin_api, caplog):
    with caplog.at_level(logging.ERROR, logger="cms.errors"):
        response = admin_api.get("/_cms/api/test/boom", HTTP_X_REQUEST_ID="req-123")
    assert response.status_code == 500
    assert response["X-Request-ID"] == "req-123"
    assert error(response) == {
        "success": False,
        "error": {
            "code": "CONTENT_LIST_ERROR",
            "message": "An unexpected error occurred. Quote request id req-123 when reporting it.",
            "details": {},
        },
    }
    assert b"secret internals" not in response.content
    logged = [record for record in caplog.records if record.name == "cms.errors"]
    assert len(logged) == 1
    assert logged[0].request_id == "req-123"
    assert "secret internals" in logged[0].exc_text or "secret internals" in str(logged[0].exc_info[1])


@override_settings(ROOT_URLCONF="tests.core.urls")
def test_lost_database_is_503_with_retry_after(admin_api):
    response = admin_api.get("/_cms/api/test/db-down")
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert error(response)["error"] == {
        "code": "SERVICE_UNAVAILABLE",
        "message": "The service is temporarily unavailable; retry shortly.",
        "details": {},
    }


@override_settings(ROOT_URLCONF="tests.core.urls", DATA_UPLOAD_MAX_MEMORY_SIZE=1000)
def test_oversized_body_is_413(admin_api):
    response = admin_api.post("/_cms/api/test/echo", {"name": "x" * 5000}, format="json")
    assert response.status_code == 413
    assert error(response)["error"] == {
        "code": "PAYLOAD_TOO_LARGE",
        "message": "The request body is larger than the limit of 1000 bytes.",
        "details": {},
    }


@override_settings(CMS_RATE_LIMITS={"api": "3/m", "auth": "20/m"})
def test_rate_limit_is_429_with_retry_after(admin_api):
    for _ in range(3):
        assert admin_api.get(TOKENS).status_code == 200
    response = admin_api.get(TOKENS)
    assert response.status_code == 429
    retry_after = int(response["Retry-After"])
    assert 1 <= retry_after <= 60
    assert error(response)["error"] == {
        "code": "RATE_LIMITED",
        "message": f"Too many requests; retry in {retry_after} seconds.",
        "details": {"retryAfter": retry_after},
    }


@override_settings(CMS_RATE_LIMITS={"api": "2/m", "auth": "20/m"})
def test_rate_limit_counts_each_user_separately(client_for):
    first, second = client_for(), client_for()
    for _ in range(2):
        assert first.get(TOKENS).status_code == 200
    assert first.get(TOKENS).status_code == 429
    assert second.get(TOKENS).status_code == 200


@pytest.mark.parametrize("path", [TOKENS, "/_cms/api/health", "/_cms/api/nothing-here"])
def test_api_answers_are_not_cached(admin_api, path):
    response = admin_api.get(path)
    assert response["Cache-Control"] == "private, no-store"


def test_every_answer_carries_a_request_id(api):
    response = api.get("/_cms/api/health")
    assert len(response["X-Request-ID"]) == 26
    echoed = api.get("/_cms/api/health", HTTP_X_REQUEST_ID="trace-abc.1")
    assert echoed["X-Request-ID"] == "trace-abc.1"
    # A header that could forge log lines is replaced, not echoed.
    forged = api.get("/_cms/api/health", HTTP_X_REQUEST_ID="x\ninjected")
    assert forged["X-Request-ID"] != "x\ninjected"
