"""Concurrent writers (SPEC §2.1 ``_rev``, §3 "a _rev sent is used for conflict detection"): two updates carrying the
same ``_rev`` — exactly one wins, the other is a 409 and writes nothing; updates without ``_rev`` are serialised and
lose nothing. Real commits (``transactional_db``), threads on both databases, and on PostgreSQL a second connection
that holds the row."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import psycopg
import pytest
from django.db import connection, connections

from apps.accounts.models import Role
from apps.content.models import Entry, Revision
from tests.conftest import ApiClient
from tests.factories import make_collection, make_entry, make_token, make_user

pytestmark = pytest.mark.usefixtures("transactional_db")


def run_together(*requests: Callable[[], object]) -> list:
    """Run each callable in its own thread (its own database connection), released at the same moment."""
    barrier = threading.Barrier(len(requests))
    results: list = [None] * len(requests)

    def work(index: int, request: Callable[[], object]) -> None:
        try:
            barrier.wait()
            results[index] = request()
        except BaseException as exc:  # reported in the main thread
            results[index] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=work, args=(i, request)) for i, request in enumerate(requests)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads), "a writer is stuck"
    for result in results:
        if isinstance(result, BaseException):
            raise result
    return results


@pytest.fixture
def editor_token() -> str:
    return make_token(make_user(Role.EDITOR), ["content:read", "content:write"])[1]


@pytest.fixture
def notes():
    collection = make_collection("notes", fields=[{"slug": f"f{n}", "type": "integer"} for n in range(4)])
    return make_entry(collection, {"f0": 0})


def patch(token: str, entry_id: str, body: dict) -> Callable[[], object]:
    def send():
        return ApiClient().as_token(token).patch(f"/_cms/api/content/notes/{entry_id}", body, format="json")

    return send


def test_two_updates_with_the_same_rev_exactly_one_wins(editor_token, notes):
    rev = notes.rev
    first, second = run_together(
        patch(editor_token, notes.pk, {"data": {"f1": 1}, "_rev": rev}),
        patch(editor_token, notes.pk, {"data": {"f2": 2}, "_rev": rev}),
    )
    statuses = sorted([first.status_code, second.status_code])
    assert statuses == [200, 409], (first.json(), second.json())
    winner, loser = (first, second) if first.status_code == 200 else (second, first)
    assert loser.json()["error"]["code"] == "CONFLICT"
    assert loser.json()["error"]["details"] == {"currentRev": winner.json()["data"]["_rev"]}
    stored = Entry.objects.get(pk=notes.pk)
    assert stored.version == 2
    assert stored.data == winner.json()["data"]["item"]["data"]
    assert stored.data in ({"f0": 0, "f1": 1}, {"f0": 0, "f2": 2})
    assert Revision.objects.filter(entry_id=notes.pk).count() == 2  # create + the winner


def test_updates_without_rev_are_serialised_and_lose_nothing(editor_token, notes):
    responses = run_together(
        *(patch(editor_token, notes.pk, {"data": {f"f{n}": n * 10}}) for n in range(1, 4)),
        patch(editor_token, notes.pk, {"data": {"f0": 5}}),
    )
    assert [response.status_code for response in responses] == [200, 200, 200, 200]
    stored = Entry.objects.get(pk=notes.pk)
    assert stored.data == {"f0": 5, "f1": 10, "f2": 20, "f3": 30}
    assert stored.version == 5
    # Every answer shows its own change (a later writer's may be there too: the answer is read after the commit).
    for response, (slug, value) in zip(
        responses, [("f1", 10), ("f2", 20), ("f3", 30), ("f0", 5)], strict=True
    ):
        assert response.json()["data"]["item"]["data"][slug] == value
    assert Revision.objects.filter(entry_id=notes.pk).count() == 5


def test_publish_and_update_at_once_both_apply(editor_token, notes):
    publish = ApiClient().as_token(editor_token)
    results = run_together(
        lambda: publish.post(f"/_cms/api/content/notes/{notes.pk}/publish", {}, format="json"),
        patch(editor_token, notes.pk, {"data": {"f1": 1}}),
    )
    assert [result.status_code for result in results] == [200, 200]
    stored = Entry.objects.get(pk=notes.pk)
    assert stored.status == "published" and stored.version == 3
    assert stored.data == {"f0": 0, "f1": 1}
    # The live version is the working copy as it was when the publish ran: with or without the other write.
    assert stored.live_data in ({"f0": 0}, {"f0": 0, "f1": 1})


# --- PostgreSQL: a second connection holding the row ---------------------------------------------------------------


def raw_connection() -> psycopg.Connection:
    settings = connection.settings_dict
    return psycopg.connect(
        host=settings["HOST"] or None,
        port=settings["PORT"] or None,
        user=settings["USER"],
        password=settings["PASSWORD"] or None,
        dbname=settings["NAME"],
        autocommit=False,
    )


def wait_until_blocked(observer: psycopg.Connection, holder_pid: int) -> None:
    """Until some backend waits for a lock that ``holder_pid`` holds (the request reached the locked row)."""
    for _ in range(400):
        with observer.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE %s = ANY(pg_blocking_pids(pid))", [holder_pid]
            )
            if cursor.fetchone()[0]:
                return
        time.sleep(0.025)
    raise AssertionError("the request never waited for the row lock")


@pytest.mark.requires_postgres
@pytest.mark.parametrize("outcome", ["commit", "rollback"])
def test_an_update_waits_for_the_row_lock_and_checks_rev_after_it(editor_token, notes, outcome):
    rev = notes.rev
    holder, observer = raw_connection(), raw_connection()
    observer.autocommit = True
    try:
        with holder.cursor() as cursor:
            # Another writer (a second process) is halfway through its own update of the row.
            cursor.execute(
                "UPDATE content_entry SET version = version + 1, data = %s::jsonb WHERE id = %s",
                ['{"f0": 0, "f3": 3}', notes.pk],
            )
            cursor.execute("SELECT pg_backend_pid()")
            holder_pid = cursor.fetchone()[0]
        results: list = []
        request = threading.Thread(
            target=lambda: (
                results.append(patch(editor_token, notes.pk, {"data": {"f1": 1}, "_rev": rev})()),
                connections.close_all(),
            )
        )
        request.start()
        wait_until_blocked(observer, holder_pid)
        getattr(holder, outcome)()
        request.join(timeout=60)
        assert not request.is_alive()
    finally:
        holder.close()
        observer.close()

    (response,) = results
    stored = Entry.objects.get(pk=notes.pk)
    if outcome == "commit":
        # The other writer won; our _rev is stale now, and its data stays.
        assert response.status_code == 409
        assert response.json()["error"]["code"] == "CONFLICT"
        assert (stored.version, stored.data) == (2, {"f0": 0, "f3": 3})
    else:
        # The other writer gave up; ours goes through on the version it read.
        assert response.status_code == 200
        assert (stored.version, stored.data) == (2, {"f0": 0, "f1": 1})


@pytest.mark.requires_postgres
def test_an_entry_write_does_not_wait_for_a_collection_edit(editor_token, notes):
    holder, observer = raw_connection(), raw_connection()
    observer.autocommit = True
    try:
        with holder.cursor() as cursor:
            # An operator is renaming the collection in a transaction that has not committed yet.
            cursor.execute("UPDATE schema_collection SET label = 'Memos' WHERE slug = 'notes'")
            cursor.execute("SELECT pg_backend_pid()")
            holder_pid = cursor.fetchone()[0]
        results: list = []
        request = threading.Thread(
            target=lambda: (
                results.append(patch(editor_token, notes.pk, {"data": {"f1": 1}})()),
                connections.close_all(),
            )
        )
        request.start()
        # The request either finishes or waits for the operator's transaction; it must not wait.
        while request.is_alive():
            with observer.cursor() as cursor:
                cursor.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE %s = ANY(pg_blocking_pids(pid))",
                    [holder_pid],
                )
                blocked = cursor.fetchone()[0]
            if blocked:
                holder.rollback()
                request.join(timeout=60)
                pytest.fail("the entry write waited for a lock on its collection")
            request.join(timeout=0.05)
        holder.rollback()
    finally:
        holder.close()
        observer.close()
    assert results[0].status_code == 200


# --- concurrent creates ---------------------------------------------------------------------------------------------


def create(token: str, collection: str, body: dict) -> Callable[[], object]:
    def send():
        return ApiClient().as_token(token).post(f"/_cms/api/content/{collection}", body, format="json")

    return send


def test_two_creates_with_the_same_title_get_different_slugs(editor_token, notes):
    make_collection("posts", fields=[{"slug": "title"}])
    results = run_together(
        *(create(editor_token, "posts", {"data": {"title": "Same title"}}) for _ in range(2))
    )
    assert [result.status_code for result in results] == [201, 201]
    assert sorted(result.json()["data"]["item"]["slug"] for result in results) == [
        "same-title",
        "same-title-2",
    ]


def test_two_creates_with_the_same_explicit_slug_one_is_a_duplicate(editor_token, notes):
    make_collection("posts", fields=[{"slug": "title"}])
    results = run_together(
        *(create(editor_token, "posts", {"data": {"title": "x"}, "slug": "taken"}) for _ in range(2))
    )
    assert sorted(result.status_code for result in results) == [201, 409]
    loser = next(result for result in results if result.status_code == 409)
    assert loser.json()["error"]["code"] == "DUPLICATE_SLUG"
    assert Entry.objects.filter(collection__slug="posts").count() == 1


def test_two_creates_with_the_same_unique_value_one_is_a_conflict(editor_token, notes):
    make_collection("books", fields=[{"slug": "title"}, {"slug": "isbn", "unique": True}])
    results = run_together(
        create(editor_token, "books", {"data": {"title": "One", "isbn": "978-3"}}),
        create(editor_token, "books", {"data": {"title": "Two", "isbn": "978-3"}}),
    )
    assert sorted(result.status_code for result in results) == [201, 409], [r.json() for r in results]
    loser = next(result for result in results if result.status_code == 409)
    assert loser.json()["error"]["code"] == "CONFLICT"
    assert Entry.objects.filter(collection__slug="books").count() == 1
