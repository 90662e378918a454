"""An import job's end is an event, written with the job's final state: ``import.completed`` for an import that
ran through, with the entries it created as ``entry.created`` events, and ``import.failed`` for one that stopped."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from apps.importer.models import ImportJob
from apps.importer.pipeline import driver
from apps.webhooks import delivery
from apps.webhooks.models import Event
from tests.importer.wxr_factory import write_wxr
from tests.webhooks.conftest import create_endpoint

HOOK = "https://hooks.example.com/cms"


def test_a_completed_import_is_an_event_after_its_entries(admin_api, tmp_path):
    create_endpoint(admin_api, HOOK, eventTypes=["import.*", "entry.created"], payloadMode="ids")
    call_command("import_wxr", str(write_wxr(tmp_path / "site.xml", 3)), "--no-progress", stdout=StringIO())
    job = ImportJob.objects.get()
    types = list(Event.objects.order_by("created_at", "id").values_list("type", flat=True))
    assert types == ["entry.created"] * 3 + ["import.completed"]
    finished = Event.objects.get(type="import.completed")
    assert (finished.ids, finished.actor) == ({"id": job.pk}, {"userId": None, "via": "import"})
    assert delivery.fan_out(10) == 4


def test_a_failed_import_is_an_event(admin_api, tmp_path, monkeypatch):
    create_endpoint(admin_api, HOOK, eventTypes=["import.failed"])

    def broken(*args, **kwargs):
        raise RuntimeError("the disk went away")

    # A fault inside the job's phases: the job stops as failed, as any unexpected error stops it.
    monkeypatch.setattr(driver, "_phases", broken)
    with pytest.raises(CommandError):
        call_command(
            "import_wxr", str(write_wxr(tmp_path / "site.xml", 1)), "--no-progress", stdout=StringIO()
        )
    job = ImportJob.objects.get()
    [event] = Event.objects.all()
    assert (event.type, event.data["id"], event.data["state"]) == ("import.failed", job.pk, "failed")
    assert event.data["error"]["message"] == "The import stopped: the disk went away"
