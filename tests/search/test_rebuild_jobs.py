"""``POST /search/rebuild/jobs`` and ``GET /search/rebuild/jobs/{id}``: a rebuild queued for the worker, one at a time,
with its progress stored after each batch."""

from __future__ import annotations

import pytest

from apps.accounts.models import Role
from apps.search import services
from apps.search.models import SearchDocument
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
