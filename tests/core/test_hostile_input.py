"""Hostile request bodies and paths: each gets a clear 4xx in the envelope and stored data stays as it was."""

from __future__ import annotations

import json

import pytest

POSTS = "/_cms/api/content/posts"


def error(response):
    return json.loads(response.content)


def _create(admin_api, title="kept"):
    response = admin_api.post(POSTS, {"data": {"title": title}}, format="json")
    assert response.status_code == 201, response.content
    return response.json()["data"]


def test_deeply_nested_json_is_refused_without_a_crash(admin_api, posts_collection):
    body = '{"data": {"title": "x", "body": ' + "[" * 100_000 + "]" * 100_000 + "}}"
    response = admin_api.generic("POST", POSTS, body, content_type="application/json")
    assert response.status_code == 400
    assert error(response)["error"]["code"] == "VALIDATION_ERROR"
    assert admin_api.get(POSTS).json()["data"]["items"] == []


def test_nesting_deeper_than_any_document_is_refused_naming_where(admin_api, posts_collection):
    body = '{"data": {"title": "x", "body": ' + "[" * 600 + "]" * 600 + "}}"
    response = admin_api.generic("POST", POSTS, body, content_type="application/json")
    assert response.status_code == 400
    details = error(response)["error"]["details"]
    assert details == {"data.body" + ".0" * 62: "Nested more than 64 levels deep."}


def test_invalid_utf8_body_is_refused(admin_api, posts_collection):
    response = admin_api.generic(
        "POST", POSTS, b'{"data": {"title": "\xff\xfe"}}', content_type="application/json"
    )
    assert response.status_code == 400
    assert error(response)["error"]["code"] == "VALIDATION_ERROR"


@pytest.mark.parametrize(
    ("escaped", "where"),
    [("nul\\u0000inside", "data.title"), ("lone surrogate \\ud800", "body")],
)
def test_text_no_database_can_store_is_refused(admin_api, posts_collection, escaped, where):
    """PostgreSQL cannot store NUL in text or JSON, and no database can store a lone surrogate as UTF-8: both are
    refused as validation errors, on every database alike, instead of failing inside the write."""
    entry = _create(admin_api)
    body = '{"data": {"title": "' + escaped + '"}, "_rev": "' + entry["_rev"] + '"}'
    response = admin_api.generic(
        "PATCH", f"{POSTS}/{entry['item']['id']}", body, content_type="application/json"
    )
    assert response.status_code == 400, response.content
    refused = error(response)["error"]
    assert refused["code"] == "VALIDATION_ERROR"
    assert list(refused["details"]) == [where]
    assert admin_api.get(f"{POSTS}/{entry['item']['id']}").json()["data"]["item"]["data"]["title"] == "kept"


@pytest.mark.parametrize(
    "key", ["../../etc/passwd", "..%2F..%2Fetc%2Fpasswd", "/etc/passwd", "a/../../b", "%00.png"]
)
def test_media_keys_that_escape_the_root_are_refused(admin_api, media_root, key):
    response = admin_api.get(f"/_cms/api/media/file/{key}")
    assert response.status_code in (400, 404)
    if response["Content-Type"].startswith("application/json"):
        assert error(response)["success"] is False


@pytest.mark.parametrize("path", ["/_cms/api/content/posts/a%00b", "/_cms/api/taxonomies/a%00b"])
def test_nul_in_a_path_segment_is_refused(admin_api, posts_collection, path):
    response = admin_api.get(path)
    assert response.status_code == 400
    assert error(response)["error"]["code"] == "VALIDATION_ERROR"
    assert list(error(response)["error"]["details"].values()) == ["Null characters are not allowed."]


@pytest.mark.parametrize(
    "path", ["/_cms/api/oauth/token", "/_cms/api/oauth/device/code", "/_cms/api/oauth/revoke"]
)
def test_oauth_endpoints_answer_a_broken_multipart_body_in_their_own_error_shape(api, path):
    response = api.generic("POST", path, "client_id=x", content_type="multipart/form-data")
    assert response.status_code == 400
    assert json.loads(response.content) == {
        "error": "invalid_request",
        "error_description": "The body must be application/x-www-form-urlencoded.",
    }


def test_client_registration_with_nul_text_is_invalid_client_metadata(api):
    response = api.generic(
        "POST", "/_cms/api/oauth/register", '{"client_name": "a\\u0000b"}', content_type="application/json"
    )
    assert response.status_code == 400
    assert json.loads(response.content) == {
        "error": "invalid_client_metadata",
        "error_description": "client_name: Text may not contain the NUL character (\\u0000).",
    }


def test_renaming_a_passkey_without_a_name_is_refused(admin_api):
    response = admin_api.patch("/_cms/api/auth/passkey/01ARZ3NDEKTSV4RRFFQ69G5FAV", {}, format="json")
    assert response.status_code == 400
    assert error(response)["error"]["details"] == {"name": "This field is required."}
