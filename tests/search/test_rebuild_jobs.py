"""``POST /search/rebuild/jobs`` and ``GET /search/rebuild/jobs/{id}``: a rebuild queued for the worker, one at a time,
with its progress stored after each batch, and taken over when its worker dies (its lease expires)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings

from apps.accounts.models import Role
from apps.core import leases
from apps.core.timefmt import now
from apps.search import services
from apps.search.models import SearchDocument, SearchRebuildJob
from apps.search.tasks import search_rebuild_jobs
from tests.search.conftest import REBUILD, article, error_of, index_state

JOBS = f"{REBUILD}/jobs"


@pytest.fixture
def three(articles):
    return [article(articles, f"Harbour {number}", "Boats and tides") for number in range(3)]


def test_a_queued_rebuild_runs_in_the_worker_and_repairs_the_index(admin_api, articles, three):
    expected = index_state()
    SearchDocument.objects.all().delete()
    response = admin_api.post(JOBS, {"collections": ["articles"]}, format="json")
    assert response.status_code == 202, response.content
    job = response.json()["data"]
    assert (job["state"], job["done"], job["total"], job["collections"], job["result"]) == (
        "queued",
        0,
        3,
        ["articles"],
        None,
    )
    # Asking again while it waits answers the same job.
    assert admin_api.post(JOBS, {}, format="json").json()["data"]["id"] == job["id"]

    seen: list[int] = []
    original = services.collection_index

    def watching(**options):
        progress = options["progress"]

        def spy(counts, total):
            progress(counts, total)
            seen.append(admin_api.get(f"{JOBS}/{job['id']}").json()["data"]["done"])

        return original(**{**options, "progress": spy, "batch_size": 2})

    services.collection_index = watching
    try:
        assert services.search_rebuild_jobs_run() == 1
    finally:
        services.collection_index = original
    assert seen == [0, 2, 3]
    done = admin_api.get(f"{JOBS}/{job['id']}").json()["data"]
    assert (done["state"], done["done"], done["total"]) == ("done", 3, 3)
    assert done["result"]["written"] == 3 and done["finishedAt"] is not None
    assert index_state() == expected
    assert services.search_rebuild_jobs_run() == 0


def test_rebuild_jobs_are_for_admins_and_check_collections(admin_api, client_for, articles):
    editor = client_for(role=Role.EDITOR, scopes=["content:read", "content:write"])
    assert editor.post(JOBS, {}, format="json").status_code == 403
    response = admin_api.post(JOBS, {"collections": ["nope"]}, format="json")
    assert response.status_code == 400
    assert error_of(response)["details"] == {"collections": "Unknown: nope."}
    assert admin_api.get(f"{JOBS}/01NOSUCHJOB00000000000000").status_code == 404


def test_a_failing_rebuild_says_why(admin_api, articles, monkeypatch):
    job = admin_api.post(JOBS, {}, format="json").json()["data"]

    def broken(**options):
        raise RuntimeError("disk full")

    monkeypatch.setattr(services, "search_rebuild", broken)
    assert services.search_rebuild_jobs_run() == 1
    failed = admin_api.get(f"{JOBS}/{job['id']}").json()["data"]
    assert (failed["state"], failed["error"]) == ("failed", "disk full")


class WorkerKilled(BaseException):
    """The worker process ends mid-rebuild (a kill, an out-of-memory): nothing of it runs any more, no ``except
    Exception`` records a failure, and its job is left ``running``."""


def _dies_after_first_batch(monkeypatch):
    original = services.collection_index

    def dying(**options):
        progress = options["progress"]

        def spy(counts, total):
            progress(counts, total)
            if counts.entries:
                raise WorkerKilled

        return original(**{**options, "progress": spy, "batch_size": 2})

    monkeypatch.setattr(services, "collection_index", dying)


def test_a_rebuild_whose_worker_died_is_taken_over_once_its_lease_expires(
    admin_api, articles, three, monkeypatch
):
    expected = index_state()
    SearchDocument.objects.all().delete()
    job = admin_api.post(JOBS, {"collections": ["articles"]}, format="json").json()["data"]
    _dies_after_first_batch(monkeypatch)
    with pytest.raises(WorkerKilled):
        search_rebuild_jobs.call()
    monkeypatch.undo()
    left = admin_api.get(f"{JOBS}/{job['id']}").json()["data"]
    assert (left["state"], left["done"]) == ("running", 2)

    # Within its lease the job may still be running somewhere: a second worker leaves it alone, and asking for a
    # rebuild answers it.
    assert search_rebuild_jobs.call() == 0
    assert admin_api.get(f"{JOBS}/{job['id']}").json()["data"] == left
    again = admin_api.post(JOBS, {}, format="json")
    assert (again.status_code, again.json()["data"]["id"], again.json()["data"]["state"]) == (
        202,
        job["id"],
        "running",
    )

    # The lease expires (the clock moves past it): the next worker pass takes the job over and rebuilds it from the
    # start, to its end.
    later = now() + timedelta(seconds=settings.CMS_SEARCH_REBUILD_LEASE_SECONDS + 1)
    monkeypatch.setattr(leases, "now", lambda: later)
    assert search_rebuild_jobs.call() == 1
    done = admin_api.get(f"{JOBS}/{job['id']}").json()["data"]
    assert (done["state"], done["done"], done["total"], done["error"]) == ("done", 3, 3, "")
    assert done["result"]["entries"] == 3
    assert index_state() == expected
    assert search_rebuild_jobs.call() == 0


def test_asking_for_a_rebuild_does_not_answer_one_whose_worker_died(admin_api, articles, three):
    expected = index_state()
    stuck = admin_api.post(JOBS, {}, format="json").json()["data"]
    expired = now() - timedelta(seconds=settings.CMS_SEARCH_REBUILD_LEASE_SECONDS + 1)
    SearchRebuildJob.objects.filter(pk=stuck["id"]).update(state="running", done=1, lease_renewed_at=expired)
    SearchDocument.objects.all().delete()

    response = admin_api.post(JOBS, {"collections": ["articles"], "full": True}, format="json")
    assert response.status_code == 202, response.content
    fresh = response.json()["data"]
    assert fresh["id"] != stuck["id"]
    assert (fresh["state"], fresh["collections"], fresh["full"]) == ("queued", ["articles"], True)
    superseded = admin_api.get(f"{JOBS}/{stuck['id']}").json()["data"]
    assert superseded["state"] == "failed"
    assert (
        superseded["error"] == f"Its worker stopped before it finished; superseded by rebuild {fresh['id']}."
    )

    # The worker runs the new rebuild only: the dead one is not started again.
    assert search_rebuild_jobs.call() == 1
    assert admin_api.get(f"{JOBS}/{fresh['id']}").json()["data"]["state"] == "done"
    assert admin_api.get(f"{JOBS}/{stuck['id']}").json()["data"]["state"] == "failed"
    assert search_rebuild_jobs.call() == 0
    assert index_state() == expected


def test_a_worker_whose_job_was_taken_over_stops_without_writing_to_it(
    admin_api, articles, three, monkeypatch
):
    job = admin_api.post(JOBS, {}, format="json").json()["data"]
    original = services.collection_index
    other = now() + timedelta(minutes=1)

    def overtaken(**options):
        progress = options["progress"]

        def spy(counts, total):
            if counts.entries:
                # This worker stalled past its lease and another one took the job over meanwhile.
                SearchRebuildJob.objects.filter(pk=job["id"]).update(lease_renewed_at=other, done=0)
            progress(counts, total)

        return original(**{**options, "progress": spy, "batch_size": 2})

    monkeypatch.setattr(services, "collection_index", overtaken)
    assert search_rebuild_jobs.call() == 1
    left = SearchRebuildJob.objects.get(pk=job["id"])
    assert (left.state, left.done, left.result, left.lease_renewed_at) == ("running", 0, None, other)
