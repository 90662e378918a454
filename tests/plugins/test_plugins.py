"""Plugins (SPEC §4.6): the installed list, enable and disable, and what each contribution does while enabled:
Portable Text block types, MCP tools and import sources (registry level), hooks, and the audit log."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from apps.accounts.models import Role
from apps.accounts.permissions import Actor
from apps.core import portabletext
from apps.plugins import registry
from apps.plugins.base import Plugin
from apps.plugins.models import AuditEvent, PluginState
from tests.factories import make_collection, make_entry, make_media, make_user
from tests.plugins import sample

PLUGINS = "/_cms/api/plugins"
BUILT_IN = ["apps.plugins.builtin.callout", "apps.plugins.builtin.audit"]
CALLOUT = {
    "_type": "callout",
    "_key": "c1",
    "tone": "warning",
    "title": "Heads up",
    "content": [
        {
            "_type": "block",
            "_key": "b1",
            "children": [{"_type": "span", "_key": "s1", "text": "Mind the gap"}],
        }
    ],
}


def known_types() -> str:
    """The type list of the "unknown block type" message, as the registry has it now (callout disabled)."""
    from apps.core import portabletext

    return ", ".join(["block", *sorted(portabletext.available_types())])


@pytest.fixture
def with_sample():
    sample.CALLS.clear()
    registry.load([*BUILT_IN, "tests.plugins.sample"])
    yield sample.CALLS
    registry.load(BUILT_IN)


@pytest.fixture
def posts():
    return make_collection("posts", fields=(("title", "string"), ("body", "portableText")))


def test_the_built_in_plugins_are_listed(admin_api):
    response = admin_api.get(PLUGINS)
    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "data": {
            "items": [
                {
                    "id": "audit-log",
                    "name": "Audit log",
                    "version": "1.0.0",
                    "description": "Records who changed which entry or media item, and how.",
                    "enabled": True,
                    "contributions": {
                        "blockTypes": [],
                        "mcpTools": [],
                        "importSources": [],
                        "hooks": [
                            "content.create",
                            "content.delete",
                            "content.publish",
                            "content.unpublish",
                            "content.update",
                            "media.delete",
                            "media.update",
                            "media.upload",
                        ],
                    },
                    "updatedAt": None,
                },
                {
                    "id": "callout",
                    "name": "Callout blocks",
                    "version": "1.0.0",
                    "description": "A Portable Text block for highlighted notes: info, tip, warning or danger, with "
                    "rich content.",
                    "enabled": True,
                    "contributions": {
                        "blockTypes": ["callout"],
                        "mcpTools": [],
                        "importSources": [],
                        "hooks": [],
                    },
                    "updatedAt": None,
                },
            ]
        },
    }


def test_get_enable_disable(admin_api, admin_user):
    disabled = admin_api.post(f"{PLUGINS}/callout/disable")
    assert disabled.status_code == 200
    assert disabled.json()["data"]["enabled"] is False
    assert disabled.json()["data"]["updatedAt"] is not None
    assert PluginState.objects.get(plugin_id="callout").updated_by_id == admin_user.pk
    assert admin_api.get(f"{PLUGINS}/callout").json()["data"]["enabled"] is False
    assert admin_api.post(f"{PLUGINS}/callout/enable").json()["data"]["enabled"] is True
    unknown = admin_api.post(f"{PLUGINS}/nope/enable")
    assert unknown.status_code == 404
    assert (
        unknown.json()["error"]["message"] == "No plugin 'nope' is installed; installed: audit-log, callout."
    )


def test_plugins_are_managed_by_admins_only(client_for):
    assert client_for(Role.EDITOR, ["content:read", "content:write"]).get(PLUGINS).status_code == 403
    assert client_for(Role.ADMIN, ["content:write"]).post(f"{PLUGINS}/callout/disable").status_code == 403


# --- block types ------------------------------------------------------------------------------------------------------


def test_callout_blocks_validate_while_the_plugin_is_enabled(admin_api, posts):
    created = admin_api.post(
        "/_cms/api/content/posts", {"data": {"title": "T", "body": [CALLOUT]}}, format="json"
    )
    assert created.status_code == 201
    block = created.json()["data"]["item"]["data"]["body"][0]
    assert (block["_type"], block["tone"], block["content"][0]["children"][0]["text"]) == (
        "callout",
        "warning",
        "Mind the gap",
    )
    assert portabletext.plain_text([CALLOUT]) == "Heads up\nMind the gap"


def test_callout_content_is_checked_with_paths(admin_api, posts):
    bad = {**CALLOUT, "tone": "loud", "content": [{"_type": "block", "children": [{"text": 1}]}]}
    response = admin_api.post(
        "/_cms/api/content/posts", {"data": {"title": "T", "body": [bad]}}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "body": "[0].tone: One of info, tip, warning, danger. (and 1 more)"
    }


def test_disabling_the_plugin_removes_its_block_type_at_once(admin_api, posts):
    admin_api.post(f"{PLUGINS}/callout/disable")
    response = admin_api.post(
        "/_cms/api/content/posts", {"data": {"title": "T", "body": [CALLOUT]}}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "body": f"[0]._type: Unknown block type 'callout'; known types: {known_types()}."
    }
    admin_api.post("/_cms/api/widget-areas", {"name": "sidebar", "label": "Sidebar"}, format="json")
    widget = admin_api.post(
        "/_cms/api/widget-areas/sidebar/widgets", {"type": "content", "content": [CALLOUT]}, format="json"
    )
    assert widget.status_code == 400
    admin_api.post(f"{PLUGINS}/callout/enable")
    again = admin_api.post(
        "/_cms/api/content/posts", {"data": {"title": "T", "body": [CALLOUT]}}, format="json"
    )
    assert again.status_code == 201


def test_a_change_made_by_another_process_is_seen_at_the_next_request(admin_api, posts):
    assert registry.is_enabled("callout")  # this process has cached the flags
    # Another process disables the plugin: only the database changes.
    PluginState.objects.create(plugin_id="callout", enabled=False)
    response = admin_api.post(
        "/_cms/api/content/posts", {"data": {"title": "T", "body": [CALLOUT]}}, format="json"
    )
    assert response.status_code == 400
    assert registry.is_enabled("callout") is False


def test_the_worker_rereads_the_flags_for_each_task(posts):
    from io import StringIO

    from django.core.management import call_command

    from apps.content.tasks import publish_scheduled

    assert registry.is_enabled("callout")
    PluginState.objects.create(plugin_id="callout", enabled=False)
    publish_scheduled.enqueue()
    call_command("worker", "--once", stdout=StringIO())
    assert registry.is_enabled("callout") is False


# --- MCP tools, import sources and hooks ------------------------------------------------------------------------------


def test_tools_and_import_sources_are_offered_while_enabled(admin_api, with_sample):
    tools = registry.active_mcp_tools()
    assert [(plugin_id, tool.name, tool.scope, tool.read_only) for plugin_id, tool in tools] == [
        ("sample", "sample_echo", "content:read", True)
    ]
    actor = Actor.for_session(make_user(Role.SUBSCRIBER))
    assert tools[0][1].handler(actor, {"text": "hi"}) == {"echo": "hi", "user": actor.user_id}
    sources = registry.active_import_sources()
    assert [(plugin_id, source.id) for plugin_id, source in sources] == [("sample", "sample-feed")]
    assert next(iter(sources[0][1].fetch(None)))["slug"] == "hello"
    contributions = admin_api.get(f"{PLUGINS}/sample").json()["data"]["contributions"]
    assert contributions == {
        "blockTypes": [],
        "mcpTools": ["sample_echo"],
        "importSources": ["sample-feed"],
        "hooks": ["content.create", "content.delete", "content.publish", "content.update", "media.upload"],
    }
    admin_api.post(f"{PLUGINS}/sample/disable")
    assert registry.active_mcp_tools() == []
    assert registry.active_import_sources() == []


def test_hooks_receive_content_and_media_changes(admin_api, admin_user, posts, with_sample):
    created = admin_api.post("/_cms/api/content/posts", {"data": {"title": "Hello"}}, format="json").json()[
        "data"
    ]
    entry_id = created["item"]["id"]
    admin_api.post(f"/_cms/api/content/posts/{entry_id}/publish", {}, format="json")
    admin_api.delete(f"/_cms/api/content/posts/{entry_id}")
    admin_api.delete(f"/_cms/api/content/posts/{entry_id}/permanent")
    make_media(author=admin_user)
    calls = [(hook, payload.get("action"), payload.get("permanent")) for hook, payload in with_sample]
    assert calls == [
        ("content.create", "create", None),
        ("content.publish", "publish", None),
        ("content.delete", "trash", False),
        ("content.delete", "delete", True),
        ("media.upload", "upload", None),
    ]
    assert with_sample[0][1]["entry"].pk == entry_id
    assert with_sample[0][1]["actor"].user_id == admin_user.pk
    assert with_sample[-1][1]["deduplicated"] is False


def test_a_failing_hook_is_undone_and_does_not_undo_the_change(admin_api, posts, with_sample):
    entry = make_entry(posts, {"title": "Before"})
    response = admin_api.patch(
        f"/_cms/api/content/posts/{entry.pk}", {"data": {"title": "After"}}, format="json"
    )
    assert response.status_code == 200
    entry.refresh_from_db()
    assert entry.data["title"] == "After"
    assert not PluginState.objects.filter(plugin_id="written-by-a-failing-hook").exists()


def test_disabled_plugins_hooks_are_not_called(admin_api, posts, with_sample):
    admin_api.post(f"{PLUGINS}/sample/disable")
    admin_api.post("/_cms/api/content/posts", {"data": {"title": "Hello"}}, format="json")
    assert with_sample == []


class NoId(Plugin):
    name = "No id"


class BadHook(Plugin):
    id = "bad-hook"
    name = "Bad hook"

    def hooks(self):
        return {"content.saved": lambda **payload: None}


class Shadow(Plugin):
    id = "shadow"
    name = "Shadow"

    def block_types(self):
        return [portabletext.BlockType("code", portabletext.object_validator(required={}))]


@pytest.mark.parametrize(
    ("paths", "message"),
    [
        (["tests.plugins.test_plugins.NoId"], "needs an id"),
        (["tests.plugins.test_plugins.BadHook"], "hooks content.saved; known hooks:"),
        (["tests.plugins.test_plugins.Shadow"], "redefines the built-in block type 'code'"),
        (
            ["apps.plugins.builtin.callout", "apps.plugins.builtin.callout"],
            "two plugins have the id 'callout'",
        ),
        (["apps.plugins.base"], "has no 'plugin' attribute"),
    ],
)
def test_bad_plugins_are_refused_at_load(paths, message):
    try:
        with pytest.raises(ImproperlyConfigured, match=message):
            registry.load(paths)
    finally:
        registry.load(BUILT_IN)
    assert "callout" in portabletext.registered_types()


# --- the audit log ------------------------------------------------------------------------------------------------


def test_the_audit_log_records_who_changed_what(admin_api, admin_user, posts):
    entry_id = admin_api.post("/_cms/api/content/posts", {"data": {"title": "Hello"}}, format="json").json()[
        "data"
    ]["item"]["id"]
    admin_api.post(f"/_cms/api/content/posts/{entry_id}/publish", {}, format="json")
    admin_api.delete(f"/_cms/api/content/posts/{entry_id}")
    item = make_media(author=admin_user, filename="pic.png")
    response = admin_api.get("/_cms/api/audit-log")
    assert response.status_code == 200
    events = response.json()["data"]["items"]
    assert [(e["action"], e["detail"], e["objectType"]) for e in events] == [
        ("media.upload", "upload", "media"),
        ("content.delete", "trash", "entry"),
        ("content.publish", "publish", "entry"),
        ("content.create", "create", "entry"),
    ]
    assert events[-1] == {
        "id": events[-1]["id"],
        "at": events[-1]["at"],
        "action": "content.create",
        "detail": "create",
        "objectType": "entry",
        "objectId": entry_id,
        "summary": {"collection": "posts", "slug": "hello", "status": "draft"},
        "actorId": admin_user.pk,
        "actorLabel": admin_user.email,
        "via": "token",
    }
    assert events[0]["summary"] == {"filename": "pic.png", "mimeType": "image/png"}
    assert events[0]["objectId"] == item.pk
    only_entry = admin_api.get("/_cms/api/audit-log", {"objectId": entry_id, "limit": 2}).json()["data"]
    assert [e["action"] for e in only_entry["items"]] == ["content.delete", "content.publish"]
    assert only_entry["nextCursor"] is not None


def test_a_disabled_audit_log_records_nothing_and_stays_readable(admin_api, posts):
    make_entry(posts, {"title": "Before"})
    admin_api.post(f"{PLUGINS}/audit-log/disable")
    make_entry(posts, {"title": "After"})
    assert AuditEvent.objects.count() == 1
    assert len(admin_api.get("/_cms/api/audit-log").json()["data"]["items"]) == 1


def test_the_audit_log_is_for_admins(client_for):
    assert client_for(Role.EDITOR, ["content:read"]).get("/_cms/api/audit-log").status_code == 403


def test_the_admin_lists_the_log_read_only(admin_user, posts):
    from django.test import Client

    make_entry(posts, {"title": "Logged"})
    client = Client()
    client.force_login(admin_user)
    page = client.get("/django-admin/plugins/auditevent/")
    assert page.status_code == 200
    assert "content.create" in page.content.decode()
    assert client.get("/django-admin/plugins/auditevent/add/").status_code == 403
