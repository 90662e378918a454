"""Audit-log retention (issue 24) through ``manage.py cms_prune``: events older than CMS_AUDIT_RETENTION_DAYS go,
in batches, the recent ones stay, 0 keeps everything; the audit log answers what is left."""

from __future__ import annotations

import re
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.core.timefmt import now
from apps.plugins.models import AuditEvent
from tests.factories import make_collection

AUDIT = "/_cms/api/audit-log"


@pytest.fixture
def posts():
    return make_collection("posts", [{"slug": "title", "type": "string", "required": True}])


def create_entries(api, count: int) -> list[str]:
    return [
        api.post("/_cms/api/content/posts", {"data": {"title": f"Post {n}"}}, format="json").json()["data"][
            "item"
        ]["id"]
        for n in range(count)
    ]


def age(entry_ids: list[str], days: int) -> None:
    """Given events recorded ``days`` ago (the log's clock is the only thing a test cannot drive through the API)."""
    AuditEvent.objects.filter(object_id__in=entry_ids).update(at=now() - timedelta(days=days))


def logged(api) -> list[str]:
    return [event["objectId"] for event in api.get(AUDIT, {"limit": 100}).json()["data"]["items"]]


def prune(*args: str) -> str:
    out = StringIO()
    call_command("cms_prune", *args, stdout=out)
    return out.getvalue()


def test_prune_deletes_exactly_the_events_older_than_the_retention(admin_api, posts, settings):
    settings.CMS_AUDIT_RETENTION_DAYS = 30
    settings.CMS_RETENTION_BATCH_SIZE = 2  # five old events: three batches, the last one short
    old = create_entries(admin_api, 5)
    edge = create_entries(admin_api, 1)
    recent = create_entries(admin_api, 2)
    age(old, 31)
    age(edge, 29)

    with CaptureQueriesContext(connection) as queries:
        output = prune("--only", "audit")

    assert output == "Audit log: deleted 5 event(s) older than 30 day(s).\n"
    # Bounded transactions: one DELETE per batch, none naming more than the batch size.
    deletes = [query["sql"] for query in queries if query["sql"].startswith("DELETE")]
    assert [len(re.findall(r"'[0-9A-Z]{26}'", sql)) for sql in deletes] == [2, 2, 1]
    assert sorted(logged(admin_api)) == sorted(edge + recent)
    assert prune("--only", "audit") == "Audit log: deleted 0 event(s) older than 30 day(s).\n"


def test_retention_zero_keeps_every_event(admin_api, posts, settings):
    settings.CMS_AUDIT_RETENTION_DAYS = 0
    ids = create_entries(admin_api, 3)
    age(ids, 3650)

    assert prune("--only", "audit") == "Audit log: kept forever (CMS_AUDIT_RETENTION_DAYS=0).\n"
    assert sorted(logged(admin_api)) == sorted(ids)


def test_prune_audit_takes_an_explicit_cutoff(admin_api, posts, settings):
    from apps.plugins.retention import prune_audit

    settings.CMS_AUDIT_RETENTION_DAYS = (
        0  # an explicit cutoff is obeyed even when the setting keeps everything
    )
    old, recent = create_entries(admin_api, 2), create_entries(admin_api, 1)
    age(old, 10)

    assert prune_audit(before=now() - timedelta(days=5), batch_size=1) == 2
    assert logged(admin_api) == recent


def test_every_part_runs_by_default_and_unknown_parts_are_refused(admin_api, posts, settings):
    settings.CMS_AUDIT_RETENTION_DAYS = 365
    settings.CMS_WEBHOOK_RETENTION_DAYS = 30
    create_entries(admin_api, 1)

    assert prune() == (
        "Audit log: deleted 0 event(s) older than 365 day(s).\n"
        "Webhooks: deleted 0 finished delivery(ies) older than 30 day(s).\n"
        "Imports: removed 0 stored export(s) and 0 orphaned file(s).\n"
    )
    with pytest.raises(
        CommandError, match=re.escape("Unknown part(s) tasks; known: audit, webhooks, imports.")
    ):
        prune("--only", "audit,tasks")


def test_a_worker_prunes_the_audit_log_when_events_are_past_the_retention(admin_api, posts, settings):
    settings.CMS_AUDIT_RETENTION_DAYS = 30
    recent = create_entries(admin_api, 2)
    out = StringIO()
    call_command("worker", "--once", "--queues", "maintenance", stdout=out)
    assert out.getvalue() == ""  # nothing past the retention: the sweep enqueues nothing

    old = create_entries(admin_api, 3)
    age(old, 31)
    out = StringIO()
    call_command("worker", "--once", "--queues", "maintenance", stdout=out)
    assert out.getvalue() == "prune_audit_log: 3\n"
    assert sorted(logged(admin_api)) == sorted(recent)
