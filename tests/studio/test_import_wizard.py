"""The WordPress import wizard (/_cms/admin/import/…): upload or probe, the analysis table, the job run by the worker
(driven here one pass at a time, as tests/importer does), its summary and media, checked through REST; and an import
of the Theme Unit Test export through the wizard gives what ``manage.py import_wxr`` gives for the same file."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import transaction
from django.test import Client

from apps.accounts.models import Role
from apps.importer import jobs
from apps.importer.models import ImportJob
from tests.factories import make_collection, make_user, png_bytes
from tests.importer.conftest import THEME_UNIT_TEST, web  # noqa: F401  (the local HTTP server fixture)
from tests.importer.helpers import all_entries, all_pages, post, wxr

pytestmark = pytest.mark.django_db
IMPORT = "/_cms/admin/import/"


@pytest.fixture(autouse=True)
def import_dir(tmp_path, settings):
    settings.CMS_IMPORT_DIR = tmp_path / "imports"


@pytest.fixture
def admin(admin_user) -> Client:
    client = Client()
    client.force_login(admin_user)
    return client


def html(response) -> str:
    return response.content.decode()


def upload(client, data: bytes, name: str = "export.xml"):
    return client.post(f"{IMPORT}upload", {"file": SimpleUploadedFile(name, data)})


def analysis_url(response) -> str:
    assert response.status_code == 302, html(response)
    assert re.fullmatch(r"/_cms/admin/import/analysis/[0-9A-Z]{26}/", response["Location"])
    return response["Location"]


def form_of(page: str) -> dict[str, str]:
    """The analysis form as the browser would submit it unchanged: selected options, checked boxes, text values."""
    form = page[page.index('<form method="post" class="import-analysis"') :]
    values = {}
    for name, body in re.findall(r'<select id="[^"]+" name="([^"]+)"[^>]*>(.*?)</select>', form, re.S):
        chosen = re.search(r'<option value="([^"]*)" selected>', body)
        values[name] = chosen.group(1) if chosen else re.search(r'<option value="([^"]*)"', body).group(1)
    for name, value in re.findall(r'<input type="text" id="[^"]+" name="([^"]+)" value="([^"]*)"', form):
        values[name] = value
    for name in re.findall(r'<input type="checkbox" name="([^"]+)" checked>', form):
        values[name] = "on"
    return values


def start(client, url: str, **changes) -> str:
    """Submit the analysis form (with ``changes``); the job page's address."""
    values = {**form_of(html(client.get(url))), **changes, "action": "start"}
    response = client.post(url, {key: value for key, value in values.items() if value is not None})
    assert response.status_code == 302, html(response)
    assert re.fullmatch(r"/_cms/admin/import/jobs/[0-9A-Z]{26}/", response["Location"])
    return response["Location"]


def run_worker() -> None:
    """The worker's passes until no job waits (``manage.py worker`` calls the same task)."""
    for _ in range(100):
        if not jobs.run_queued():
            break
    jobs.release_held()


def wizard_import(client, data: bytes, **changes) -> str:
    job_page = start(client, analysis_url(upload(client, data)), **changes)
    run_worker()
    return job_page


# --- who may use it --------------------------------------------------------------------------------------------------


def test_admins_get_the_nav_item_and_editors_the_403_page(admin, posts_collection):
    assert '<a href="/_cms/admin/import/">Import</a>' in html(admin.get("/_cms/admin/"))
    editor = Client()
    editor.force_login(make_user(Role.EDITOR, email="editor@example.com"))
    assert IMPORT not in html(editor.get("/_cms/admin/"))
    job = ImportJob.objects.create(state="completed")
    for url in (IMPORT, f"{IMPORT}analysis/01ARZ3NDEKTSV4RRFFQ69G5FAV/", f"{IMPORT}jobs/{job.pk}/"):
        response = editor.get(url)
        assert response.status_code == 403, url
        assert "<h1>Not allowed</h1>" in html(response)
    assert editor.get(f"{IMPORT}jobs/{job.pk}/status").status_code == 403
    response = upload(editor, wxr(post(1)))
    assert response.status_code == 403
    assert not ImportJob.objects.exclude(pk=job.pk).exists()
    assert editor.post(f"{IMPORT}jobs/{job.pk}/media", {"action": "all"}).status_code == 403


def test_forms_need_the_csrf_token(admin_user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin_user)
    response = upload(client, wxr(post(1)))
    assert response.status_code == 403
    assert client.post(f"{IMPORT}probe", {"url": "https://example.com"}).status_code == 403
    page = html(client.get(IMPORT))
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    response = client.post(
        f"{IMPORT}upload", {"file": SimpleUploadedFile("a.xml", wxr(post(1))), "csrfmiddlewaretoken": token}
    )
    url = analysis_url(response)
    assert client.post(url, {"action": "start", "type-0-enabled": "on"}).status_code == 403
    assert not ImportJob.objects.exists()


# --- step 1 ----------------------------------------------------------------------------------------------------------


def test_the_start_page_shows_the_size_limit_and_refuses_a_bigger_file(admin, settings):
    settings.CMS_IMPORT_MAX_BYTES = 2048
    page = html(admin.get(IMPORT))
    assert "At most 2.0\xa0KB (2048 bytes)." in page
    assert '<p class="empty">No imports yet.</p>' in page
    response = upload(admin, wxr(post(1, content="<p>" + "x" * 4000 + "</p>")))
    assert response.status_code == 413
    assert '<p class="error" id="import-file-error">At most 2048 bytes.</p>' in html(response)
    assert 'aria-describedby="import-file-hint import-file-error" aria-invalid="true"' in html(response)


def test_an_unreadable_file_is_refused_with_its_reason(admin):
    response = upload(admin, b"<rss><channel><item><title>unclosed</channel></rss>")
    assert response.status_code == 400
    assert "The file cannot be imported:" in html(response)


def test_the_probe_shows_what_it_found_and_what_to_do(admin, web):  # noqa: F811
    response = admin.post(f"{IMPORT}probe", {"url": "http://169.254.169.254/"})
    assert response.status_code == 400
    assert "The server never fetches private, loopback or link-local addresses" in html(response)

    web.fallback = (404, "nothing here", {})
    response = admin.post(f"{IMPORT}probe", {"url": web.base})
    assert response.status_code == 200
    page = html(response)
    assert f"<h3>What the check found at {web.base}</h3>" in page
    assert "<p>No known platform answered at this address.</p>" in page
    assert (
        "<strong>Suggested next step (upload):</strong> No known platform answered at this address; upload an export "
        "file instead." in page
    )


# --- step 2 ----------------------------------------------------------------------------------------------------------


def row_of(page: str, post_type: str) -> str:
    match = re.search(rf'<tr data-post-type="{post_type}">(.*?)</tr>', page, re.S)
    assert match, post_type
    return match.group(1)


def test_the_analysis_table_shows_each_post_types_status(admin, posts_collection):
    make_collection("pages", label="Pages", fields=[("title", "string"), ("content", "json")])
    url = analysis_url(upload(admin, THEME_UNIT_TEST.read_bytes()))
    page = html(admin.get(url))

    assert "186 items, 37 attachments, 6 menus." in page
    posts = row_of(page, "post")
    assert '<td data-label="Items">58<span' in posts
    assert '<span class="badge changed">Add fields</span>' in posts
    assert "adds content, excerpt, featured_image" in posts
    assert '<option value="posts" selected>Posts (posts)</option>' in posts
    pages = row_of(page, "page")
    assert '<td data-label="Items">21<span' in pages
    assert '<span class="badge trashed">Incompatible</span>' in pages
    assert "<li>Field <code>content</code> is json; the import needs portableText.</li>" in pages
    # Authors may become users or stay guest bylines; the options default as REST's do.
    assert "A guest byline “" in page
    assert '<input type="checkbox" name="includeTaxonomies" checked>' in page
    assert '<input type="checkbox" name="includeMedia">' in page

    # Choosing another target and checking again shows its status: a new collection.
    values = {**form_of(page), "type-0-target": "__new__", "type-0-new": "site_pages", "action": "check"}
    page = html(admin.post(url, values))
    assert '<span class="badge scheduled">New collection</span>' in row_of(page, "page")
    assert 'name="type-0-new" value="site_pages"' in page

    # Starting with the incompatible target is refused next to its row, and nothing is created.
    response = admin.post(url, {**form_of(html(admin.get(url))), "action": "start"})
    assert response.status_code == 400
    assert (
        '<p class="error" id="type-0-error">field &#x27;content&#x27; is json, the import needs portableText. Rename '
        "or remove those fields, or map the post type to another collection.</p>" in html(response)
    )
    assert not ImportJob.objects.exists()


def test_a_bad_slug_or_author_is_refused_next_to_its_row(admin, admin_api):
    url = analysis_url(upload(admin, wxr(post(1, creator="ann"))))
    response = admin.post(url, {**form_of(html(admin.get(url))), "type-0-new": "Bad Slug", "action": "start"})
    assert response.status_code == 400
    assert (
        '<p class="error" id="type-0-error">Post type &#x27;post&#x27; cannot go into &#x27;Bad Slug&#x27;'
        in html(response)
    )
    response = admin.post(url, {**form_of(html(admin.get(url))), "author-0": "nobody", "action": "start"})
    assert response.status_code == 400
    assert '<p class="error" id="author-0-error">No user has the id or email &#x27;nobody&#x27;.</p>' in html(
        response
    )
    assert not ImportJob.objects.exists()
    assert admin_api.get("/_cms/api/schema/collections/posts").status_code == 404


# --- step 3 ----------------------------------------------------------------------------------------------------------


def test_the_job_runs_in_the_worker_and_its_page_shows_progress_then_the_summary(
    admin, admin_api, admin_user
):
    ann = make_user(Role.AUTHOR, email="ann@example.com", name="Ann")
    items = "".join(
        [
            post(1, title="First", slug="hello", creator="ann"),
            post(2, title="Second", slug="hello", creator="bob"),
            post(3, title="Private one", slug="private-one", status="private", creator="bob"),
        ]
    )
    url = analysis_url(upload(admin, wxr(items)))
    assert f'<option value="{ann.pk}">Ann (ann@example.com)</option>' in html(admin.get(url))
    job_page = start(admin, url, **{"author-0": ann.pk})

    # Queued: nothing is imported until the worker runs it; the page and its status say so.
    page = html(admin.get(job_page))
    assert (
        '<progress id="job-progress" max="3" value="0" aria-describedby="job-progress-text">0%</progress>'
        in page
    )
    assert "0 of 3 items · queued, phase start" in page
    assert '<p class="visually-hidden" aria-live="polite" data-job-announce></p>' in page
    status = admin.get(f"{job_page}status")
    assert status.status_code == 200
    data = status.json()["data"]
    job_id = data["id"]
    assert (data["state"], data["pace"]["done"], data["pace"]["total"]) == ("queued", 0, 3)
    assert data["progress"] == admin_api.get(f"/_cms/api/import/jobs/{job_id}").json()["data"]["progress"]

    run_worker()

    data = admin.get(f"{job_page}status").json()["data"]
    assert (data["state"], data["pace"]["done"], data["pace"]["percent"], data["pace"]["finished"]) == (
        "completed",
        3,
        100,
        True,
    )
    page = html(admin.get(job_page))
    assert '<span class="badge published" data-job-state>completed</span>' in page
    assert (
        '<tr><th scope="row"><a href="/_cms/admin/content/posts/">posts</a></th><td data-label="Created">3</td>'
        '<td data-label="Updated">0</td><td data-label="Unchanged">0</td></tr>' in page
    )
    entries = {entry["slug"]: entry for entry in all_entries(admin_api, "posts")}
    renamed = next(slug for slug in entries if slug.startswith("hello-"))
    second, private = entries[renamed], entries["private-one"]
    assert (
        f"The slug &#x27;hello&#x27; of item 2 was taken in &#x27;posts&#x27;; renamed to &#x27;{renamed}&#x27;. "
        f'<a href="/_cms/admin/content/posts/{second["id"]}/">Open the entry' in page
    )
    assert f'<a href="/_cms/admin/content/posts/{private["id"]}/">Open the entry' in page
    assert private["status"] == "draft"
    assert entries["hello"]["authorId"] == ann.pk
    # The list of recent imports links to it.
    assert f'<a href="{job_page}">Import {job_id}</a>' in html(admin.get(IMPORT))


def test_media_failures_are_listed_with_reasons_and_retried(admin, admin_api, web):  # noqa: F811
    red = png_bytes((200, 30, 30), (30, 20))
    web.routes["/up/red.png"] = (200, red, {"Content-Type": "image/png"})
    web.routes["/up/doc.exe"] = (200, b"MZ\x90\x00binary", {"Content-Type": "application/octet-stream"})
    attachments = "".join(
        f"<item><title>File {n}</title><wp:post_id>{n}</wp:post_id><wp:post_type>attachment</wp:post_type>"
        f"<wp:status>inherit</wp:status><wp:attachment_url>{web.base}/up/{name}</wp:attachment_url></item>"
        for n, name in ((10, "red.png"), (11, "blue.png"))
    )
    content = f'<p><img src="{web.base}/up/blue.png" alt="Blue"></p>'
    job_page = wizard_import(
        admin, wxr(attachments + post(1, slug="pic", content=content)), includeMedia="on"
    )

    page = html(admin.get(job_page))
    assert "1 of 2 attachments stored in the media library; 1 failed." in page
    assert (
        f'<tr><th scope="row">11</th><td class="text-value" data-label="Address">{web.base}/up/blue.png</td>'
        f'<td data-label="Reason">HTTP error status</td>' in page
    )
    assert (
        '<button type="submit" name="action" value="retry" class="primary">Retry the 1 failed</button>'
        in page
    )

    web.routes["/up/blue.png"] = (200, png_bytes((30, 30, 200), (30, 20)), {"Content-Type": "image/png"})
    response = admin.post(f"{job_page}media", {"action": "retry"})
    assert response.status_code == 302
    page = html(admin.get(job_page))
    assert "Stored 1 of 1 attachments; 0 failed. Rewrote 1 URLs in 1 entries." in page
    assert "2 of 2 attachments stored in the media library; 0 failed." in page
    assert "Attachments that could not be imported" not in page
    assert len(all_pages(admin_api, "/_cms/api/media")) == 2
    body = str(all_entries(admin_api, "posts")[0])
    assert f"{web.base}/up/blue.png" not in body


# --- "Done when": the wizard gives what the command gives ------------------------------------------------------------


def snapshot(api) -> dict:
    """What an import made, read through REST: entries (slug, status) per collection, terms per taxonomy, menus with
    their items."""
    collections = sorted(
        item["slug"] for item in api.get("/_cms/api/schema/collections").json()["data"]["items"]
    )
    taxonomies = sorted(item["name"] for item in api.get("/_cms/api/taxonomies").json()["data"]["items"])
    menus = sorted(item["name"] for item in api.get("/_cms/api/menus").json()["data"]["items"])
    return {
        "entries": {
            slug: sorted((entry["slug"], entry["status"]) for entry in all_entries(api, slug))
            for slug in collections
        },
        "terms": {
            name: sorted(
                (term["slug"], term["label"]) for term in all_pages(api, f"/_cms/api/taxonomies/{name}/terms")
            )
            for name in taxonomies
        },
        "menus": {
            name: sorted(
                (item["label"], item["type"])
                for item in api.get(f"/_cms/api/menus/{name}").json()["data"]["items"]
            )
            for name in menus
        },
    }


def test_the_wizard_imports_the_theme_unit_test_as_import_wxr_does(admin, admin_api):
    # Both imports of the same site in one database would make the second an update of the first: the command's
    # import is rolled back once read, then the wizard imports into the same empty database.
    rollback = transaction.savepoint()
    call_command("import_wxr", str(THEME_UNIT_TEST), "--no-progress", stdout=StringIO())
    by_command = snapshot(admin_api)
    transaction.savepoint_rollback(rollback)
    assert admin_api.get("/_cms/api/schema/collections").json()["data"]["items"] == []

    job_page = wizard_import(admin, THEME_UNIT_TEST.read_bytes())
    by_wizard = snapshot(admin_api)

    assert by_wizard == by_command
    assert {name: len(entries) for name, entries in by_wizard["entries"].items()} == {
        "pages": 21,
        "posts": 58,
    }
    assert len(by_wizard["terms"]["category"]) == 68
    assert len(by_wizard["menus"]) == 6
    page = html(admin.get(job_page))
    assert (
        '<tr><th scope="row"><a href="/_cms/admin/content/posts/">posts</a></th><td data-label="Created">58</td>'
        in page
    )
    assert '<h3 id="warnings-heading">Warnings (1)</h3>' in page
    assert "PASSWORD_PROTECTED" in page
