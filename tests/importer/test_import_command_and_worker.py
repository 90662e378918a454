"""``manage.py import_wxr`` and import jobs run by ``manage.py worker``, including a worker killed half-way."""

from __future__ import annotations

import gc
import signal
import time
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from apps.importer.models import ImportJob
from apps.importer.tasks import import_jobs
from tests.importer.conftest import IMPORTER_DATA, THEME_UNIT_TEST
from tests.importer.helpers import EXECUTE, all_entries, all_pages, analyze, job_url, post, statuses, wxr
from tests.importer.wxr_factory import write_wxr
from tests.processes import start_worker


def run(*args: str) -> str:
    out = StringIO()
    call_command("import_wxr", *args, "--no-progress", stdout=out)
    return out.getvalue()


@pytest.mark.parametrize("read_ahead_bytes", [10**12, 0], ids=["in-process", "read-ahead"])
def test_import_wxr_imports_the_theme_unit_test(admin_api, settings, read_ahead_bytes):
    # Read ahead or not (apps/importer/readahead.py), the import's result is the same.
    settings.CMS_IMPORT_READ_AHEAD_BYTES = read_ahead_bytes
    output = run(str(THEME_UNIT_TEST))

    job = ImportJob.objects.get()
    assert output == (
        f"Import job {job.pk}: 186 items in the export: 79 entries (page 21, post 58), 37 attachments, 70 menu "
        "items\n"
        "State: completed\n"
        "  pages: created 21\n"
        "  posts: created 58\n"
        "  attachments 37, bylines 3, collections 2, entries 79, menuItems 70, menus 6, taxonomies 3, terms 191\n"
        "Warnings: 1\n"
        "  PASSWORD_PROTECTED: Item 1168 'Template: Password Protected (the password is \"enter\")' is "
        "password-protected in WordPress; imported as a draft so that it does not become public.\n"
    )
    assert statuses(all_entries(admin_api, "posts")) == {"published": 55, "draft": 2, "scheduled": 1}
    assert len(all_entries(admin_api, "pages")) == 21
    assert len(all_pages(admin_api, "/_cms/api/taxonomies/category/terms")) == 68


def test_an_import_gives_the_process_its_garbage_collection_back(tmp_path):
    # Imports collect garbage less often while they run (apps/core/memory.py); a worker that goes on serving
    # other jobs and publications must not keep that setting, whether the import succeeds or fails.
    before = gc.get_threshold()
    run(str(THEME_UNIT_TEST))
    assert (gc.get_threshold(), gc.get_freeze_count()) == (before, 0)

    broken = tmp_path / "broken.xml"
    broken.write_bytes(b"<rss><channel><item><title>unclosed</channel></rss>")
    with pytest.raises(CommandError):
        run(str(broken))
    assert (gc.get_threshold(), gc.get_freeze_count()) == (before, 0)


def test_import_wxr_maps_and_skips_post_types(admin_api):
    output = run(str(THEME_UNIT_TEST), "--map", "post=articles", "--create", "--map", "page=", "--no-menus")

    assert "  articles: created 58\n" in output
    assert "  skipped 21 page: Not enabled in postTypeMappings\n" in output
    assert len(all_entries(admin_api, "articles")) == 58
    assert admin_api.get("/_cms/api/menus").json()["data"]["items"] == []


def test_import_wxr_reports_an_invalid_file():
    with pytest.raises(CommandError) as error:
        run(str(IMPORTER_DATA / "malformed-simple.xml"))
    # Said once (it was said twice, and its line three times).
    assert str(error.value) == (
        "The file cannot be imported: The file is not well-formed XML (no element found, column 0). (line 14)"
    )


def test_import_wxr_needs_a_file_or_a_job():
    with pytest.raises(CommandError) as error:
        run()
    assert str(error.value) == "Give the WXR file to import, or --resume JOB."


def test_import_wxr_resumes_a_paused_job(admin_api, settings, monkeypatch):
    from django.db import OperationalError

    from apps.content.services import entries as content_entries

    settings.CMS_IMPORT_BATCH_SIZE = 1
    create = content_entries.validate_data
    state = {"calls": 0}

    def flaky(**kwargs):
        state["calls"] += 1
        if state["calls"] == 2:
            raise OperationalError("connection lost")
        return create(**kwargs)

    monkeypatch.setattr(content_entries, "validate_data", flaky)
    analysis = analyze(
        admin_api, content=wxr(post(1, slug="one") + post(2, slug="two") + post(3, slug="three"))
    )
    response = admin_api.post(EXECUTE, {"analysisId": analysis["analysisId"]}, format="json")
    job = response.json()["data"]
    assert (job["state"], job["progress"]["current"]) == ("paused", 1)

    output = run("--resume", job["id"])

    assert f"Import job {job['id']}" in output
    assert "State: completed\n  posts: created 3\n" in output
    assert sorted(item["slug"] for item in all_entries(admin_api, "posts")) == ["one", "three", "two"]


# --- a worker killed half-way ---------------------------------------------------------------------------------------

POSTS = 300
EXPECTED_SUMMARY = {
    "imported": {"posts": {"created": POSTS}},
    "kinds": {
        "attachments": 50,
        "bylines": 5,
        "collections": 1,
        "entries": POSTS,
        "taxonomies": 2,
        "terms": 70,
    },
    "failed": [],
}


def _final_state(client) -> dict:
    entries = all_entries(client, "posts")
    return {
        "entries": sorted((item["slug"], item["status"], item["data"]["title"]) for item in entries),
        "categories": sorted(
            term["slug"] for term in all_pages(client, "/_cms/api/taxonomies/category/terms")
        ),
        "tags": sorted(term["slug"] for term in all_pages(client, "/_cms/api/taxonomies/post_tag/terms")),
        "bylines": len({item["primaryBylineId"] for item in entries}),
    }


def _summary(job: dict) -> dict:
    return {key: job["summary"][key] for key in ("imported", "kinds", "failed")}


def test_an_uninterrupted_run_gives_the_expected_state(transactional_db, admin_api, tmp_path, settings):
    path = write_wxr(tmp_path / "big.xml", POSTS)
    settings.CMS_IMPORT_SYNC_MAX_BYTES = 10
    analysis = analyze(admin_api, content=path.read_bytes())
    job = admin_api.post(EXECUTE, {"analysisId": analysis["analysisId"]}, format="json").json()["data"]

    call_command("worker", "--once", stdout=StringIO())

    done = admin_api.get(job_url(job["id"])).json()["data"]
    assert done["state"] == "completed"
    assert _summary(done) == EXPECTED_SUMMARY
    state = _final_state(admin_api)
    assert len(state["entries"]) == POSTS
    assert (len(state["categories"]), len(state["tags"]), state["bylines"]) == (20, 50, 5)


def test_a_killed_worker_resumes_to_the_same_final_state(
    transactional_db, admin_api, tmp_path, settings, import_dir
):
    path = write_wxr(tmp_path / "big.xml", POSTS)
    settings.CMS_IMPORT_SYNC_MAX_BYTES = 10
    analysis = analyze(admin_api, content=path.read_bytes())
    response = admin_api.post(EXECUTE, {"analysisId": analysis["analysisId"]}, format="json")
    assert response.status_code == 202
    job_id = response.json()["data"]["id"]

    worker = start_worker(import_dir=import_dir, batch_size=10)
    try:
        # Kill it once a few batches are committed: neither before it starts nor after it finishes.
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            job = ImportJob.objects.get(pk=job_id)
            if job.cursor >= 100:
                break
            assert worker.poll() is None, "the worker stopped on its own"
            time.sleep(0.05)
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=30)
    finally:
        if worker.poll() is None:
            worker.kill()
    killed = ImportJob.objects.get(pk=job_id)
    assert killed.state == "running"
    assert 100 <= killed.cursor < POSTS + 50
    assert len(all_entries(admin_api, "posts")) < POSTS

    settings.CMS_IMPORT_LEASE_SECONDS = 0
    response = admin_api.post(f"{job_url(job_id)}/resume")
    assert response.status_code == 202
    assert response.json()["data"]["state"] == "queued"
    call_command("worker", "--once", stdout=StringIO())

    done = admin_api.get(job_url(job_id)).json()["data"]
    assert done["state"] == "completed"
    assert _summary(done) == EXPECTED_SUMMARY
    state = _final_state(admin_api)
    assert len(state["entries"]) == POSTS
    assert len({slug for slug, _, _ in state["entries"]}) == POSTS
    assert (len(state["categories"]), len(state["tags"]), state["bylines"]) == (20, 50, 5)
    assert {status for _, status, _ in state["entries"]} == {"published"}


def test_a_running_job_cannot_be_resumed(transactional_db, admin_api, settings):
    settings.CMS_IMPORT_SYNC_MAX_BYTES = 10
    analysis = analyze(admin_api, content=wxr(post(1)))
    job_id = admin_api.post(EXECUTE, {"analysisId": analysis["analysisId"]}, format="json").json()["data"][
        "id"
    ]
    ImportJob.objects.filter(pk=job_id).update(state="running")

    response = admin_api.post(f"{job_url(job_id)}/resume")

    assert response.status_code == 409
    assert (
        response.json()["error"]["message"]
        == "The job is running; it can be resumed once it pauses or fails."
    )


def test_import_cleanup_removes_old_uploads_that_no_unfinished_job_needs(admin_api, import_dir):
    from datetime import timedelta

    from apps.core.timefmt import now
    from apps.importer.models import ImportAnalysis

    done = analyze(admin_api, content=wxr(post(1, slug="one")))
    waiting = analyze(admin_api, content=wxr(post(2, slug="two")))
    fresh = analyze(admin_api, content=wxr(post(3, slug="three")))
    job = ImportJob.objects.create(analysis_id=waiting["analysisId"], options={"site": "x"}, state="paused")
    ImportAnalysis.objects.exclude(pk=fresh["analysisId"]).update(created_at=now() - timedelta(days=10))

    out = StringIO()
    call_command("import_cleanup", "--days", "7", stdout=out)

    assert out.getvalue() == "Removed 1 stored export(s) and 0 orphaned file(s).\n"
    assert sorted(path.name for path in import_dir.iterdir()) == sorted(
        [f"{waiting['analysisId']}.xml", f"{fresh['analysisId']}.xml"]
    )
    assert not ImportAnalysis.objects.filter(pk=done["analysisId"]).exists()
    assert ImportJob.objects.get(pk=job.pk).analysis_id == waiting["analysisId"]


def test_the_worker_runs_a_job_in_slices(transactional_db, admin_api, settings):
    settings.CMS_IMPORT_SYNC_MAX_BYTES = 10
    settings.CMS_IMPORT_BATCH_SIZE = 10
    settings.CMS_IMPORT_WORKER_SLICE_SECONDS = 0
    analysis = analyze(admin_api, content=wxr("".join(post(n, slug=f"post-{n}") for n in range(1, 26))))
    job_id = admin_api.post(EXECUTE, {"analysisId": analysis["analysisId"]}, format="json").json()["data"][
        "id"
    ]

    seen = []
    for _ in range(3):
        call_command("worker", "--once", stdout=StringIO())
        job = admin_api.get(job_url(job_id)).json()["data"]
        seen.append((job["state"], job["progress"]["current"]))

    # Each pass does one batch and puts the job back in the queue; the last one finishes it.
    assert seen == [("queued", 10), ("queued", 20), ("completed", 25)]
    assert job["summary"]["imported"] == {"posts": {"created": 25}}
    assert len(all_entries(admin_api, "posts")) == 25


def _sliced_job(admin_api, settings, monkeypatch) -> tuple[str, list[str]]:
    """A queued job of 25 posts that the worker runs ten items a pass, and the list of contents converted."""
    from apps.importer.sources import wxr as wxr_reader

    settings.CMS_IMPORT_SYNC_MAX_BYTES = 10
    settings.CMS_IMPORT_BATCH_SIZE = 10
    settings.CMS_IMPORT_WORKER_SLICE_SECONDS = 0
    # Read in this process, where the conversions can be counted.
    settings.CMS_IMPORT_READ_AHEAD_BYTES = 10**12
    converted: list[str] = []
    convert = wxr_reader.convert_post
    monkeypatch.setattr(wxr_reader, "convert_post", lambda raw: converted.append(raw) or convert(raw))
    # Ann is declared in the header only: the slices after the first must still know her name.
    header = (
        "<wp:author><wp:author_login>ann</wp:author_login><wp:author_email>ann@example.test</wp:author_email>"
        "<wp:author_display_name><![CDATA[Ann Author]]></wp:author_display_name></wp:author>"
    )
    items = "".join(
        post(n, slug=f"post-{n}", creator="admin" if n <= 10 else "ann", content=f"<p>Post {n}</p>")
        for n in range(1, 26)
    )
    analysis = analyze(admin_api, content=wxr(items, header=header))
    response = admin_api.post(EXECUTE, {"analysisId": analysis["analysisId"]}, format="json")
    assert response.status_code == 202
    return response.json()["data"]["id"], converted


def test_the_worker_goes_on_reading_where_its_last_slice_stopped(
    transactional_db, admin_api, settings, monkeypatch
):
    # Each slice read the export again from its start, parsing and converting every item already imported to skip
    # it: a 20,000-post import stood still for 75 of its 224 seconds, longer with each slice.
    job_id, converted = _sliced_job(admin_api, settings, monkeypatch)

    seen = []
    for _ in range(3):
        import_jobs.call()  # one pass of the worker's import task
        job = admin_api.get(job_url(job_id)).json()["data"]
        seen.append((job["state"], job["progress"]["current"], len(converted)))

    # Between its slices the job stays this worker's, and every item is converted once (the first twice: reading the
    # export's header, before the items phase, stops at it).
    assert seen == [("running", 10, 11), ("running", 20, 21), ("completed", 25, 26)]
    assert job["summary"]["imported"] == {"posts": {"created": 25}}
    assert sorted(entry["slug"] for entry in all_entries(admin_api, "posts")) == sorted(
        f"post-{n}" for n in range(1, 26)
    )
    bylines = {item["displayName"] for item in admin_api.get("/_cms/api/bylines").json()["data"]["items"]}
    assert bylines == {"admin", "Ann Author"}


def test_a_stopping_worker_hands_its_unfinished_job_back_to_the_queue(
    transactional_db, admin_api, settings, monkeypatch
):
    job_id, converted = _sliced_job(admin_api, settings, monkeypatch)
    import_jobs.call()
    assert admin_api.get(job_url(job_id)).json()["data"]["state"] == "running"
    import_jobs.call()  # a second slice

    # A worker stopping (here one that served only the mail queue) hands back what its process holds.
    call_command("worker", "--once", "--queues", "mail", stdout=StringIO())

    job = admin_api.get(job_url(job_id)).json()["data"]
    assert (job["state"], job["progress"]["current"]) == ("queued", 20)
    assert len(converted) == 21
    # Any worker goes on with it, reading the export from its start.
    call_command("worker", "--once", stdout=StringIO())
    job = admin_api.get(job_url(job_id)).json()["data"]
    assert (job["state"], job["progress"]["current"]) == ("completed", 25)
    assert len(all_entries(admin_api, "posts")) == 25


def test_a_job_taken_over_by_another_worker_is_not_continued_from_the_old_reader(
    transactional_db, admin_api, settings, monkeypatch
):
    from datetime import timedelta

    from apps.core.timefmt import now

    job_id, converted = _sliced_job(admin_api, settings, monkeypatch)
    import_jobs.call()
    # Another worker claimed it (this one's lease had expired) and imported a batch more.
    ImportJob.objects.filter(pk=job_id).update(cursor=20, updated_at=now())
    assert import_jobs.call() == 0  # its lease is the other worker's now

    # That worker died too: once its lease expires, this one claims the job and reads from the start.
    ImportJob.objects.filter(pk=job_id).update(cursor=10, updated_at=now() - timedelta(hours=1))
    import_jobs.call()
    import_jobs.call()

    job = admin_api.get(job_url(job_id)).json()["data"]
    assert (job["state"], job["progress"]["current"]) == ("completed", 25)
    assert len(all_entries(admin_api, "posts")) == 25
    assert len(converted) == 11 + 20 + 5


def test_import_wxr_with_media(admin_api, web, tmp_path):
    from tests.factories import png_bytes

    web.routes["/uploads/photo.png"] = (200, png_bytes(), {"Content-Type": "image/png"})
    url = f"{web.base}/uploads/photo.png"
    items = (
        f"<item><title>Photo</title><wp:post_id>9</wp:post_id><wp:post_type>attachment</wp:post_type>"
        f"<wp:status>inherit</wp:status><wp:attachment_url>{url}</wp:attachment_url></item>"
        + post(
            1,
            slug="with-photo",
            content=f'<!-- wp:image --><figure class="wp-block-image"><img src="{url}" alt=""/></figure>'
            "<!-- /wp:image -->",
            extra="<wp:postmeta><wp:meta_key>_thumbnail_id</wp:meta_key><wp:meta_value>9</wp:meta_value>"
            "</wp:postmeta>",
        )
    )
    path = tmp_path / "export.xml"
    path.write_bytes(wxr(items))

    output = run(str(path), "--media")

    assert "Media: 1 imported, 0 failed\n" in output
    entry = all_entries(admin_api, "posts")[0]
    from apps.media.models import MediaItem

    media = MediaItem.objects.get()
    assert entry["data"]["featured_image"]["id"] == media.pk
    assert entry["data"]["content"][0]["url"].endswith(f"/_cms/api/media/file/{media.storage_key}")
