"""What an import's batch of new entries tells the rest of the system: one ``entries_created`` event per batch, which
the search index, the audit log and plugin hooks each handle for the whole batch (a plugin hook without a batch form
still sees every entry, one call each)."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from apps.plugins import registry
from apps.plugins.base import Plugin
from apps.plugins.models import AuditEvent, PluginState
from tests.factories import make_collection
from tests.importer.helpers import post, run_import, wxr

BUILT_IN = ["apps.plugins.builtin.callout", "apps.plugins.builtin.audit"]
CALLS: list[tuple[str, list[str]]] = []


class OneByOne(Plugin):
    id = "one-by-one"
    name = "One by one"

    def hooks(self):
        return {"content.create": lambda *, entry, action, actor: CALLS.append(("single", [entry.slug]))}


class Batched(Plugin):
    id = "batched"
    name = "Batched"

    def hooks(self):
        return {
            "content.create": lambda *, entry, action, actor: CALLS.append(("batched-single", [entry.slug]))
        }

    def batch_hooks(self):
        def record(payloads):
            assert {payload["action"] for payload in payloads} == {"create"}
            CALLS.append(("batch", [payload["entry"].slug for payload in payloads]))

        return {"content.create": record}


class FailingBatch(Plugin):
    id = "failing-batch"
    name = "Failing batch"

    def hooks(self):
        return {"content.create": lambda **payload: None}

    def batch_hooks(self):
        def explode(payloads):
            PluginState.objects.create(plugin_id="written-by-a-failing-batch")
            raise RuntimeError("fails on purpose")

        return {"content.create": explode}


class BatchOnly(Plugin):
    id = "batch-only"
    name = "Batch only"

    def batch_hooks(self):
        return {"content.create": lambda payloads: None}


@pytest.fixture
def plugins():
    def load(*classes):
        CALLS.clear()
        registry.load([*BUILT_IN, *(f"{__name__}.{cls.__name__}" for cls in classes)])

    yield load
    registry.load(BUILT_IN)


THREE_POSTS = wxr(
    "".join(post(number, title=f"Post {number}", slug=f"post-{number}") for number in (1, 2, 3))
)


def test_the_audit_log_records_every_imported_entry(admin_api):
    job = run_import(admin_api, content=THREE_POSTS)

    assert job["summary"]["imported"] == {"posts": {"created": 3}}
    events = admin_api.get("/_cms/api/audit-log", {"limit": 10}).json()["data"]["items"]
    assert sorted((e["action"], e["detail"], e["objectType"], e["summary"]["slug"]) for e in events) == [
        ("content.create", "create", "entry", "post-1"),
        ("content.create", "create", "entry", "post-2"),
        ("content.create", "create", "entry", "post-3"),
    ]
    assert {e["summary"]["status"] for e in events} == {"published"}
    assert len({e["id"] for e in events}) == 3


def test_a_batch_hook_gets_the_batch_and_other_hooks_one_call_per_entry(admin_api, plugins):
    plugins(OneByOne, Batched)

    run_import(admin_api, content=THREE_POSTS)

    assert sorted(CALLS) == [
        ("batch", ["post-1", "post-2", "post-3"]),
        ("single", ["post-1"]),
        ("single", ["post-2"]),
        ("single", ["post-3"]),
    ]


def test_single_creates_still_reach_the_single_form(admin_api, plugins):
    plugins(Batched)
    make_collection("notes", fields=(("title", "string"),))

    response = admin_api.post("/_cms/api/content/notes", {"data": {"title": "Alone"}}, format="json")

    assert response.status_code == 201
    assert CALLS == [("batched-single", ["alone"])]


def test_a_failing_batch_hook_is_undone_and_does_not_undo_the_import(admin_api, plugins):
    plugins(FailingBatch)

    job = run_import(admin_api, content=THREE_POSTS)

    assert job["summary"]["imported"] == {"posts": {"created": 3}}
    assert not PluginState.objects.filter(plugin_id="written-by-a-failing-batch").exists()
    # The audit log is another plugin: its batch was written.
    assert AuditEvent.objects.filter(action="content.create").count() == 3
    found = admin_api.get("/_cms/api/search?q=post").json()["results"]
    assert sorted(item["slug"] for item in found) == ["post-1", "post-2", "post-3"]


def test_a_batch_hook_needs_its_single_form():
    try:
        with pytest.raises(
            ImproperlyConfigured, match=r"batch hooks without their single form: content\.create"
        ):
            registry.load([*BUILT_IN, f"{__name__}.BatchOnly"])
    finally:
        registry.load(BUILT_IN)
