"""The webhook endpoints' REST and MCP faces: whole answers, the secret shown once, admins only."""

from __future__ import annotations

import re

import pytest

from apps.accounts.models import Role
from apps.webhooks import delivery
from tests.factories import make_entry, make_token, make_user
from tests.mcp.wire import McpClient

HOOK = "https://hooks.example.com/cms"
STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def test_create_answers_the_secret_once(admin_api):
    response = admin_api.post(
        "/_cms/api/webhooks",
        {"url": HOOK, "description": "Rebuild the site", "eventTypes": ["entry.published", "entry.*"]},
        format="json",
    )
    assert response.status_code == 201
    created = response.json()["data"]
    assert re.fullmatch(r"whsec_[A-Za-z0-9+/]{43}=", created["secret"])
    assert STAMP.match(created["createdAt"]) and STAMP.match(created["updatedAt"])
    shown = {
        "id": created["id"],
        "url": HOOK,
        "description": "Rebuild the site",
        "eventTypes": ["entry.published", "entry.*"],
        "collections": [],
        "active": True,
        "payloadMode": "full",
        "disabledReason": None,
        "disabledAt": None,
        "failureCount": 0,
        "previousSecretExpiresAt": None,
        "createdAt": created["createdAt"],
        "updatedAt": created["updatedAt"],
    }
    assert created == {**shown, "secret": created["secret"]}
    assert admin_api.get(f"/_cms/api/webhooks/{created['id']}").json() == {"success": True, "data": shown}
    assert admin_api.get("/_cms/api/webhooks").json() == {
        "success": True,
        "data": {"items": [shown], "nextCursor": None},
    }


def test_update_changes_what_is_sent_and_delete_removes(admin_api):
    created = admin_api.post("/_cms/api/webhooks", {"url": HOOK}, format="json").json()["data"]
    path = f"/_cms/api/webhooks/{created['id']}"
    response = admin_api.patch(
        path, {"payloadMode": "ids", "eventTypes": ["*", "media.created"]}, format="json"
    )
    assert response.status_code == 200
    changed = response.json()["data"]
    assert (changed["payloadMode"], changed["eventTypes"], changed["url"]) == ("ids", ["*"], HOOK)
    response = admin_api.patch(path, {"active": False}, format="json")
    assert response.json()["data"]["disabledReason"] == "Turned off by an administrator."
    assert admin_api.delete(path).json() == {"success": True, "data": {"success": True}}
    assert admin_api.get(path).status_code == 404


@pytest.mark.parametrize(
    ("body", "details"),
    [
        (
            {"url": "ftp://example.com/x"},
            {"url": "An http or https URL with a host, e.g. https://example.com/hooks/cms."},
        ),
        (
            {"url": "https://user:pw@example.com/x"},
            {"url": "No user name or password in the URL: put a token in its path or query instead."},
        ),
        (
            {"url": HOOK, "eventTypes": ["entry.published", "entry.exploded"]},
            {
                "eventTypes.1": "Unknown event type 'entry.exploded'; use a name from docs/webhooks.md, a group ("
            },
        ),
        (
            {"url": HOOK, "eventTypes": []},
            {"eventTypes": "Name at least one event type, a group such as 'entry.*', or '*' for all."},
        ),
        (
            {"url": HOOK, "collections": ["nope"]},
            {"collections.0": "No collection 'nope'; collections: none yet."},
        ),
        ({"url": HOOK, "payloadMode": "everything"}, {"payloadMode": '"everything" is not a valid choice.'}),
        ({"url": HOOK, "secret": "whsec_mine"}, {"secret": "Unknown field; allowed: "}),
    ],
)
def test_bad_input_is_refused_naming_the_field(admin_api, body, details):
    response = admin_api.post("/_cms/api/webhooks", body, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    assert set(error["details"]) == set(details)
    for key, start in details.items():
        assert error["details"][key].startswith(start)


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/_cms/api/webhooks"),
        ("post", "/_cms/api/webhooks"),
        ("get", "/_cms/api/webhooks/01HZZZZZZZZZZZZZZZZZZZZZZZ"),
        ("patch", "/_cms/api/webhooks/01HZZZZZZZZZZZZZZZZZZZZZZZ"),
        ("delete", "/_cms/api/webhooks/01HZZZZZZZZZZZZZZZZZZZZZZZ"),
        ("post", "/_cms/api/webhooks/01HZZZZZZZZZZZZZZZZZZZZZZZ/rotate-secret"),
        ("get", "/_cms/api/webhooks/01HZZZZZZZZZZZZZZZZZZZZZZZ/deliveries"),
        ("post", "/_cms/api/webhooks/deliveries/01HZZZZZZZZZZZZZZZZZZZZZZZ/redeliver"),
    ],
)
def test_only_admins_manage_webhooks(api, client_for, method, path):
    assert getattr(api, method)(path, format="json").status_code == 401
    editor = client_for(Role.EDITOR, scopes=("content:read", "content:write"))
    response = getattr(editor, method)(path, {"url": HOOK} if method == "post" else None, format="json")
    assert response.status_code == 403
    assert response.json()["error"] == {
        "code": "FORBIDDEN",
        "message": "Insufficient scope: requires admin.",
        "details": {"requiredScope": "admin"},
    }


def test_unknown_ids_are_not_found(admin_api):
    response = admin_api.get("/_cms/api/webhooks/01HZZZZZZZZZZZZZZZZZZZZZZZ")
    assert response.status_code == 404
    assert response.json()["error"]["message"] == (
        "No webhook endpoint 01HZZZZZZZZZZZZZZZZZZZZZZZ; GET /_cms/api/webhooks lists them."
    )
    response = admin_api.post("/_cms/api/webhooks/deliveries/01HZZZZZZZZZZZZZZZZZZZZZZZ/redeliver")
    assert response.status_code == 404


def test_deliveries_are_paged_newest_first(admin_api, posts_collection):
    created = admin_api.post("/_cms/api/webhooks", {"url": HOOK, "payloadMode": "ids"}, format="json").json()
    hook = created["data"]["id"]
    entries = [make_entry(posts_collection, {"title": f"Post {n}"}) for n in range(3)]
    delivery.fan_out(10)
    path = f"/_cms/api/webhooks/{hook}/deliveries"
    first = admin_api.get(path, {"limit": 2}).json()["data"]
    second = admin_api.get(path, {"limit": 2, "cursor": first["nextCursor"]}).json()["data"]
    seen = [item["payload"]["data"]["id"] for item in first["items"] + second["items"]]
    assert seen == [entry.pk for entry in reversed(entries)]
    assert second["nextCursor"] is None
    assert admin_api.get(path, {"state": "delivered"}).json()["data"]["items"] == []


@pytest.fixture
def admin_mcp() -> McpClient:
    _, raw = make_token(make_user(Role.ADMIN), ["admin"])
    return McpClient(raw)


def test_mcp_tools_manage_endpoints(admin_mcp, posts_collection):
    created = admin_mcp.ok("webhook_create", {"url": HOOK, "eventTypes": ["entry.*"], "payloadMode": "ids"})
    assert created["secret"].startswith("whsec_")
    hook = created["id"]
    listed = admin_mcp.ok("webhook_list", {})
    assert [item["id"] for item in listed["items"]] == [hook]
    assert "secret" not in listed["items"][0]
    assert "secret" not in admin_mcp.ok("webhook_get", {"id": hook})
    updated = admin_mcp.ok("webhook_update", {"id": hook, "description": "Docs site"})
    assert (updated["description"], updated["eventTypes"]) == ("Docs site", ["entry.*"])
    rotated = admin_mcp.ok("webhook_rotate_secret", {"id": hook, "gracePeriodSeconds": 0})
    assert rotated["secret"] != created["secret"] and rotated["previousSecretExpiresAt"] is None
    entry = make_entry(posts_collection, {"title": "Via MCP"})
    delivery.fan_out(10)
    [sent] = admin_mcp.ok("webhook_deliveries", {"id": hook})["items"]
    assert (sent["eventType"], sent["payload"]["data"]["id"]) == ("entry.created", entry.pk)
    again = admin_mcp.ok("webhook_redeliver", {"deliveryId": sent["id"]})
    assert (again["eventId"], again["state"]) == (sent["eventId"], "pending")
    assert admin_mcp.ok("webhook_delete", {"id": hook}) == {"success": True}
    _, error = admin_mcp.fails("webhook_get", {"id": hook})
    assert error["code"] == "NOT_FOUND"


def test_mcp_tools_refuse_non_admins():
    user = make_user(Role.EDITOR)
    _, raw = make_token(user, ["content:read", "content:write"])
    error = McpClient(raw).refused("webhook_list", {})
    assert error["message"] == "Insufficient scope: requires admin"
