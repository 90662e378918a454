"""Scheduled publishing that really happens: ``manage.py worker --once`` and ``publish_scheduled`` publish entries
whose time has come, with ``publishedAt`` = the scheduled time, and nothing before; two workers at once publish an
entry exactly once. Real commits (``transactional_db``): the worker runs each publication in its own transaction."""

from __future__ import annotations

import threading
from datetime import timedelta
from io import StringIO

import psycopg
import pytest
from django.core.management import call_command
from django.db import connection, connections

from apps.accounts.models import Role
from apps.content.models import Entry, Revision
from apps.content.services import lifecycle
from apps.core.timefmt import iso, now
from tests.conftest import ApiClient
from tests.content.conftest import POSTS, entry_url
from tests.factories import make_collection, make_entry, make_token, make_user

pytestmark = pytest.mark.usefixtures("transactional_db")


@pytest.fixture
def editor() -> ApiClient:
    return ApiClient().as_token(make_token(make_user(Role.EDITOR), ["content:read", "content:write"])[1])


@pytest.fixture
def posts():
    return make_collection(
        "posts", supports=["drafts", "revisions", "scheduling"], fields=[{"slug": "title", "required": True}]
    )


def run(command: str, *args: str) -> str:
    out = StringIO()
    call_command(command, *args, stdout=out)
    return out.getvalue()


def schedule(api, entry, when) -> dict:
    response = api.post(entry_url(entry, "/schedule"), {"scheduledAt": iso(when)}, format="json")
    assert response.status_code == 200, response.json()
    return response.json()["data"]["item"]


def soon():
    """A moment an hour ahead, in whole seconds (the wire format keeps milliseconds): far enough that no slow
    machine reaches it before the test moves the publisher's clock there."""
    return now().replace(microsecond=0) + timedelta(hours=1)


_offset = [timedelta(0)]


@pytest.fixture(autouse=True)
def _publisher_clock(monkeypatch):
    """The clock the lifecycle services read (scheduling, publishing due entries) runs ``_offset`` ahead of the real
    one, so a test moves time forward instead of sleeping until a schedule comes due."""
    _offset[0] = timedelta(0)
    monkeypatch.setattr(lifecycle, "now", lambda: now() + _offset[0])


def sleep_until(moment) -> None:
    """Move the publisher's clock just past ``moment``."""
    _offset[0] = max(_offset[0], moment - now() + timedelta(milliseconds=1))


def publish_revisions(entry) -> int:
    return Revision.objects.filter(entry_id=entry.pk, action="publish").count()


def test_the_worker_publishes_when_the_time_comes_and_not_before(editor, client_for, posts):
    entry = make_entry(posts, {"title": "Soon"})
    when = soon()
    item = schedule(editor, entry, when)
    assert (item["status"], item["scheduledAt"]) == ("scheduled", iso(when))

    assert run("worker", "--once") == ""
    stored = Entry.objects.get(pk=entry.pk)
    assert (stored.status, stored.live_data, stored.published_at) == ("scheduled", None, None)
    reader = client_for(role=Role.SUBSCRIBER, scopes=["content:read"])
    assert reader.get(entry_url(entry)).status_code == 404

    sleep_until(when)
    assert run("worker", "--once") == "publish_scheduled: 1\n"
    stored = Entry.objects.get(pk=entry.pk)
    assert (stored.status, stored.published_at, stored.scheduled_at) == ("published", when, None)
    assert stored.live_data == {"title": "Soon"}
    assert publish_revisions(entry) == 1
    item = reader.get(entry_url(entry)).json()["data"]["item"]
    assert (item["status"], item["publishedAt"], item["data"]) == ("published", iso(when), {"title": "Soon"})
    # Another pass has nothing left to do.
    assert run("worker", "--once") == ""
    assert publish_revisions(entry) == 1


def test_the_scheduled_working_copy_is_what_goes_live(editor, posts):
    entry = make_entry(posts, {"title": "First"}, status="published")
    editor.patch(entry_url(entry), {"data": {"title": "Second"}}, format="json")
    when = soon()
    schedule(editor, entry, when)
    sleep_until(when)
    run("worker", "--once")
    stored = Entry.objects.get(pk=entry.pk)
    assert (stored.status, stored.live_data, stored.published_at) == ("published", {"title": "Second"}, when)


def test_publish_scheduled_does_one_pass_for_cron(editor, posts):
    due = [make_entry(posts, {"title": f"Due {n}"}) for n in range(3)]
    later = make_entry(posts, {"title": "Later"})
    when = soon()
    for entry in due:
        schedule(editor, entry, when)
    schedule(editor, later, now() + timedelta(days=1))
    assert run("publish_scheduled") == "0 entries published.\n"
    sleep_until(when)
    output = run("publish_scheduled")
    lines = output.splitlines()
    assert lines[-1] == "3 entries published."
    assert sorted(lines[:-1]) == sorted(f"published posts/{entry.slug} ({entry.pk})" for entry in due)
    assert {Entry.objects.get(pk=entry.pk).status for entry in due} == {"published"}
    assert Entry.objects.get(pk=later.pk).status == "scheduled"


def test_cancelled_or_trashed_schedules_are_not_published(editor, posts):
    cancelled, trashed = make_entry(posts, {"title": "Cancelled"}), make_entry(posts, {"title": "Trashed"})
    when = soon()
    schedule(editor, cancelled, when)
    schedule(editor, trashed, when)
    assert editor.delete(entry_url(cancelled, "/schedule")).status_code == 200
    assert editor.delete(entry_url(trashed)).status_code == 200
    sleep_until(when)
    assert run("worker", "--once") == ""
    assert Entry.objects.get(pk=cancelled.pk).status == "draft"
    stored = Entry.objects.get(pk=trashed.pk)
    assert (stored.status, stored.live_data) == ("scheduled", None)
    # Restored after its time, it is published by the next pass.
    assert editor.post(entry_url(trashed, "/restore"), {}, format="json").status_code == 200
    assert run("worker", "--once") == "publish_scheduled: 1\n"
    assert Entry.objects.get(pk=trashed.pk).published_at == when


def test_a_due_entry_the_state_table_refuses_is_named_with_the_editors_refusal(editor, posts):
    """The worker publishes by the state table an editor's publish follows: a due entry in the trash stays there,
    and the cron command names it with the words an editor publishing it gets."""
    due, trashed = make_entry(posts, {"title": "Due"}), make_entry(posts, {"title": "Trashed"})
    when = soon()
    schedule(editor, due, when)
    schedule(editor, trashed, when)
    assert editor.delete(entry_url(trashed)).status_code == 200
    refused = editor.post(entry_url(trashed, "/publish"), {}, format="json")
    assert refused.status_code == 400
    assert refused.json()["error"] == {
        "code": "INVALID_TRANSITION",
        "message": "Cannot publish an entry in the trash; restore it first.",
        "details": {"state": "trashed", "action": "publish"},
    }
    sleep_until(when)

    assert run("publish_scheduled").splitlines() == [
        f"published posts/{due.slug} ({due.pk})",
        f"not published posts/{trashed.slug} ({trashed.pk}): Cannot publish an entry in the trash; restore it first.",
        "1 entry published.",
    ]
    stored = Entry.objects.get(pk=trashed.pk)
    assert (stored.status, stored.live_data, stored.scheduled_at) == ("scheduled", None, when)
    assert publish_revisions(trashed) == 0
    # The worker leaves it as the command does, and says nothing of it: it has nothing to publish.
    assert run("worker", "--once") == ""


def test_two_workers_at_once_publish_an_entry_exactly_once(editor, posts):
    entries = [make_entry(posts, {"title": f"Race {n}"}) for n in range(5)]
    when = soon()
    for entry in entries:
        schedule(editor, entry, when)
    sleep_until(when)

    barrier = threading.Barrier(2)
    outputs, failures = [], []

    def worker_pass():
        try:
            barrier.wait()
            outputs.append(run("worker", "--once"))
        except BaseException as exc:
            failures.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker_pass) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not failures
    handled = sum(int(output.split(": ")[1]) for output in outputs if output)
    assert handled == 5, (outputs, [Entry.objects.get(pk=e.pk).status for e in entries])
    for entry in entries:
        stored = Entry.objects.get(pk=entry.pk)
        assert (stored.status, stored.published_at) == ("published", when)
        assert publish_revisions(entry) == 1
        assert stored.version == 3  # create, schedule, publish: one publication each


@pytest.mark.requires_postgres
def test_a_worker_skips_an_entry_another_worker_holds(editor, posts):
    entry = make_entry(posts, {"title": "Held"})
    when = soon()
    schedule(editor, entry, when)
    sleep_until(when)
    settings = connection.settings_dict
    other = psycopg.connect(
        host=settings["HOST"] or None,
        port=settings["PORT"] or None,
        user=settings["USER"],
        password=settings["PASSWORD"] or None,
        dbname=settings["NAME"],
    )
    try:
        with other.cursor() as cursor:
            # Another worker is publishing this entry right now (its row lock is held until it commits).
            cursor.execute("SELECT id FROM content_entry WHERE id = %s FOR UPDATE", [entry.pk])
        # This pass neither waits for it nor publishes it a second time.
        assert run("worker", "--once") == ""
        assert Entry.objects.get(pk=entry.pk).status == "scheduled"
        other.rollback()  # the other worker died before committing
    finally:
        other.close()
    assert run("worker", "--once") == "publish_scheduled: 1\n"
    assert publish_revisions(entry) == 1


def test_the_list_shows_scheduled_entries_to_editors(editor, posts):
    entry = make_entry(posts, {"title": "Queued"})
    schedule(editor, entry, now() + timedelta(days=2))
    items = editor.get(POSTS, {"status": "scheduled"}).json()["data"]["items"]
    assert [item["id"] for item in items] == [entry.pk]


@pytest.mark.requires_postgres
def test_a_collection_edit_in_progress_does_not_stop_the_worker(editor, posts):
    entries = [make_entry(posts, {"title": f"Due {n}"}) for n in range(2)]
    when = soon()
    for entry in entries:
        schedule(editor, entry, when)
    sleep_until(when)
    settings = connection.settings_dict
    other = psycopg.connect(
        host=settings["HOST"] or None,
        port=settings["PORT"] or None,
        user=settings["USER"],
        password=settings["PASSWORD"] or None,
        dbname=settings["NAME"],
    )
    try:
        with other.cursor() as cursor:
            # An operator is renaming the collection in a transaction that has not committed yet.
            cursor.execute("UPDATE schema_collection SET label = 'Articles' WHERE slug = 'posts'")
        # The worker locks the entries it publishes, not their collection: it publishes both.
        assert run("worker", "--once") == "publish_scheduled: 2\n"
        other.commit()
    finally:
        other.close()
    assert [publish_revisions(entry) for entry in entries] == [1, 1]
