"""A job shows that it is alive in its parts that commit nothing for long: reading the export up to its cursor, media
downloads and the URL rewrite after them, and the terms phase. Otherwise its status stood still and, past
``CMS_IMPORT_LEASE_SECONDS``, another worker could take it for a dead worker's job and run it at the same time."""

from __future__ import annotations

from collections import Counter
from io import StringIO

import pytest
from django.core.management import call_command

from apps.core import events
from apps.importer.models import ImportJob
from apps.importer.pipeline import state as pipeline_state
from apps.importer.pipeline.terms import TERMS_PER_COMMIT
from apps.importer.sources import wxr as wxr_reader
from tests.factories import png_bytes
from tests.importer.helpers import EXECUTE, all_pages, analyze, job_url, post, run_import, wxr
from tests.importer.test_import_media import attachment


@pytest.fixture
def renew_always(monkeypatch):
    # Every chance to renew is taken, so the test needs no clock.
    monkeypatch.setattr(pipeline_state, "LEASE_RENEWAL_SECONDS", 0, raising=False)


def test_reading_up_to_the_cursor_renews_the_lease(
    transactional_db, admin_api, settings, monkeypatch, renew_always
):
    settings.CMS_IMPORT_SYNC_MAX_BYTES = 10
    settings.CMS_IMPORT_READ_AHEAD_BYTES = 10**12
    settings.CMS_IMPORT_BATCH_SIZE = 5
    settings.CMS_IMPORT_WORKER_SLICE_SECONDS = 0
    analysis = analyze(admin_api, content=wxr("".join(post(n, slug=f"post-{n}") for n in range(1, 8))))
    response = admin_api.post(EXECUTE, {"analysisId": analysis["analysisId"]}, format="json")
    job_id = response.json()["data"]["id"]
    # A worker imports five items and stops; the next one reads the export from its start.
    call_command("worker", "--once", stdout=StringIO())
    assert admin_api.get(job_url(job_id)).json()["data"]["progress"]["current"] == 5
    seen = []
    convert = wxr_reader.convert_post

    def converting(raw):
        seen.append(ImportJob.objects.values_list("updated_at", flat=True).get(pk=job_id))
        return convert(raw)

    monkeypatch.setattr(wxr_reader, "convert_post", converting)

    call_command("worker", "--once", stdout=StringIO())

    # Items 1 to 5 are read to be skipped; the lease moves on while they are.
    skipped = seen[:6]
    assert skipped == sorted(skipped) and len(set(skipped)) == len(skipped)
    job = admin_api.get(job_url(job_id)).json()["data"]
    assert (job["state"], job["progress"]["current"]) == ("completed", 7)


def test_media_downloads_show_in_the_job(admin_api, web, tmp_path, renew_always):
    web.routes.update(
        {f"/{name}.png": (200, png_bytes(color), {"Content-Type": "image/png"}) for name, color in
         (("red", (200, 0, 0)), ("green", (0, 200, 0)), ("blue", (0, 0, 200)))}
    )  # fmt: skip
    items = "".join(attachment(10 + number, f"{web.base}/{name}.png") for number, name in
                    enumerate(("red", "green", "blue")))  # fmt: skip
    path = tmp_path / "export.xml"
    path.write_bytes(wxr(items + post(1)))
    seen = []

    def uploaded(sender, media, **kwargs):
        seen.append(ImportJob.objects.get().summary.get("media"))

    events.media_changed.connect(uploaded)
    try:
        call_command("import_wxr", str(path), "--media", "--no-progress", stdout=StringIO())
    finally:
        events.media_changed.disconnect(uploaded)

    # As each file is stored, the job already says how many came before it.
    assert seen == [{}, {"current": 1, "total": 3}, {"current": 2, "total": 3}]
    assert ImportJob.objects.get().summary["media"]["imported"] == 3


def test_the_url_rewrite_ending_the_media_phase_renews_the_lease(admin_api, web, renew_always):
    """Rewriting the old URLs in thousands of imported entries took longer than a lease, with no renewal: a second
    worker took the job over as a dead worker's and ran it at once (make stress, kill_import_phases)."""
    web.routes["/red.png"] = (200, png_bytes((200, 0, 0)), {"Content-Type": "image/png"})
    url = f"{web.base}/red.png"
    image = f'<!-- wp:image --><figure class="wp-block-image"><img src="{url}" alt=""/></figure><!-- /wp:image -->'
    items = attachment(10, url) + "".join(post(n, slug=f"post-{n}", content=image) for n in range(1, 5))
    seen = []

    def rewritten(sender, entry, action, **kwargs):
        if action != "create":
            seen.append(ImportJob.objects.values_list("updated_at", flat=True).get())

    events.entry_changed.connect(rewritten)
    try:
        job = run_import(admin_api, content=wxr(items), options={"includeMedia": True})
    finally:
        events.entry_changed.disconnect(rewritten)

    assert (job["state"], job["summary"]["media"]["urlsRewritten"]) == ("completed", 4)
    # Each entry rewritten after the first finds the lease renewed since the one before it.
    assert len(seen) == 4 and len(set(seen)) == 4


def test_the_terms_phase_commits_with_the_job_a_chunk_of_terms_at_a_time(admin_api):
    """A site's thousands of terms were made in one transaction, which outlasted the lease (make stress,
    kill_import_phases: 7 s with 1,500 categories against a 6 s lease); now each chunk is committed together with the
    job, its counters and its lease."""
    count = 2 * TERMS_PER_COMMIT + 1
    header = "".join(
        f"<wp:category><wp:term_id>{n}</wp:term_id><wp:category_nicename>cat-{n}</wp:category_nicename>"
        f"<wp:category_parent>{f'cat-{n + 1}' if n % 2 else ''}</wp:category_parent>"
        f"<wp:cat_name>Cat {n}</wp:cat_name></wp:category>"
        for n in range(count)
    )
    seen = []

    def made(sender, term, action, **kwargs):
        if action == "create":
            seen.append(ImportJob.objects.values_list("updated_at", "counters__kinds__terms").get())

    events.term_changed.connect(made)
    try:
        job = run_import(admin_api, content=wxr(post(1), header=header))
    finally:
        events.term_changed.disconnect(made)

    assert (job["state"], job["summary"]["kinds"]["terms"]) == ("completed", count)
    assert sorted(Counter(stamp for stamp, _ in seen).values()) == [1, TERMS_PER_COMMIT, TERMS_PER_COMMIT]
    assert sorted({done or 0 for _, done in seen}) == [0, TERMS_PER_COMMIT, 2 * TERMS_PER_COMMIT]
    # A parent listed after its child is made before it, also when a chunk ends between them.
    terms = all_pages(admin_api, "/_cms/api/taxonomies/category/terms")
    slugs = {term["id"]: term["slug"] for term in terms}
    parents = {term["slug"]: slugs.get(term["parentId"]) for term in terms}
    assert parents == {f"cat-{n}": f"cat-{n + 1}" if n % 2 else None for n in range(count)}
