"""What ``manage.py import_wxr`` says: progress on a terminal and in a log, the header's counts, refused options
(``--map`` typos and slugs, ``--author`` without a user), media failures grouped by reason."""

from __future__ import annotations

import re
import socket
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from apps.importer.models import ImportAnalysis, ImportJob
from apps.schema.models import Collection
from tests.factories import make_user, png_bytes
from tests.importer.helpers import EXECUTE, analyze, post, wxr
from tests.importer.test_import_media import attachment


class Terminal(StringIO):
    def isatty(self) -> bool:
        return True


def export(tmp_path, posts: int = 25, items: str = "") -> str:
    path = tmp_path / "export.xml"
    path.write_bytes(wxr(items + "".join(post(n, slug=f"post-{n}") for n in range(1, posts + 1))))
    return str(path)


def run(*args: str) -> str:
    out = StringIO()
    call_command("import_wxr", *args, "--no-progress", stdout=out)
    return out.getvalue()


# --- progress -------------------------------------------------------------------------------------------------------


def test_progress_in_a_pipe_or_log_is_a_line_per_tenth_of_the_items(tmp_path, settings):
    # It was a bar redrawn with carriage returns, one endless line in a log file.
    settings.CMS_IMPORT_BATCH_SIZE = 5
    out, err = StringIO(), StringIO()

    call_command("import_wxr", export(tmp_path), stdout=out, stderr=err)

    job = ImportJob.objects.get()
    # The header counts what the progress counts: the export's items, of which these become entries.
    assert (
        out.getvalue().splitlines()[0] == f"Import job {job.pk}: 25 items in the export: 25 entries (post 25)"
    )
    assert "\r" not in err.getvalue()
    lines = err.getvalue().splitlines()
    assert [line.split(" ", 1)[0] for line in lines] == ["5/25", "10/25", "15/25", "20/25", "25/25"]
    for line in lines[:-1]:
        assert re.fullmatch(r"\d+/25 items \(\d+%\), \d+ items/s, about \d+ s left", line), line
    assert re.fullmatch(r"25/25 items \(100%\) in \d+ s, \d+ items/s", lines[-1])


def test_progress_on_a_terminal_is_a_bar_redrawn_in_place(tmp_path, settings):
    settings.CMS_IMPORT_BATCH_SIZE = 10
    err = Terminal()

    call_command("import_wxr", export(tmp_path), stdout=StringIO(), stderr=err)

    text = err.getvalue()
    assert text.startswith("\r") and text.endswith("(done)\n") and text.count("\n") == 1
    drawn = text.rstrip("\n").split("\r")[1:]
    for frame in drawn:
        assert re.fullmatch(r"\[[#.]{30}\] \d+/25 items  \d+ items/s  ETA \d+s  \((items|done)\)", frame), (
            frame
        )
    assert [frame.split("] ")[1].split(" ")[0] for frame in drawn] == ["10/25", "20/25", "25/25", "25/25"]
    # Not styled as an error (Django colours stderr on a terminal).
    assert "\x1b[" not in text


# --- --map and --create ---------------------------------------------------------------------------------------------


def test_a_map_to_a_collection_that_does_not_exist_is_refused(admin_api, tmp_path):
    path = export(tmp_path, posts=7)
    run(path)

    with pytest.raises(CommandError) as typo:
        run(path, "--map", "post=postz")
    with pytest.raises(CommandError) as unknown:
        run(path, "--map", "post=nosuchcoll")

    assert str(typo.value) == (
        "--map post=postz: there is no collection 'postz'; did you mean 'posts'? Add --create to create it."
    )
    assert str(unknown.value) == (
        "--map post=nosuchcoll: there is no collection 'nosuchcoll'; the collections are: posts. "
        "Add --create to create it."
    )
    # Refused before the file was read: nothing was made.
    assert list(Collection.objects.values_list("slug", flat=True)) == ["posts"]
    assert (ImportAnalysis.objects.count(), ImportJob.objects.count()) == (1, 1)


def test_a_map_with_create_makes_the_collection_and_counts_entries_where_they_are(admin_api, tmp_path):
    path = export(tmp_path, posts=7)
    run(path)

    output = run(path, "--map", "post=articles", "--create")

    job = ImportJob.objects.order_by("created_at").last()
    # The posts imported before stay in posts (a re-import updates them in place): counted there, not as
    # "articles: unchanged 7" beside an empty collection.
    assert output == (
        f"Import job {job.pk}: 7 items in the export: 7 entries (post 7)\n"
        "State: completed\n"
        "  posts: unchanged 7\n"
        "  collections 1\n"
    )
    response = admin_api.get("/_cms/api/schema/collections/articles")
    assert (response.json()["data"]["label"], response.json()["data"]["labelSingular"]) == (
        "Articles",
        "Article",
    )


def test_a_map_to_an_invalid_slug_names_the_post_type_and_the_rule(admin_api, tmp_path):
    with pytest.raises(CommandError) as error:
        run(export(tmp_path, posts=1), "--map", "post=My-Posts", "--create")

    assert str(error.value) == (
        "--map post=My-Posts: Post type 'post' cannot go into 'My-Posts': not a valid collection slug. Use "
        "lowercase letters, digits and underscores, starting with a letter (^[a-z][a-z0-9_]*$)."
    )
    assert Collection.objects.count() == 0


def test_execute_refuses_an_invalid_collection_slug_before_the_job_starts(admin_api):
    # It became a job that failed in its first phase, with the problem keyed by a list index.
    analysis = analyze(admin_api, content=wxr(post(1)))

    response = admin_api.post(
        EXECUTE,
        {"analysisId": analysis["analysisId"], "postTypeMappings": {"post": {"collection": "My-Posts"}}},
        format="json",
    )

    problem = (
        "Post type 'post' cannot go into 'My-Posts': not a valid collection slug. Use lowercase letters, digits "
        "and underscores, starting with a letter (^[a-z][a-z0-9_]*$)."
    )
    assert response.status_code == 400
    assert response.json() == {
        "success": False,
        "error": {
            "code": "VALIDATION_ERROR",
            "message": f"postTypeMappings.post.collection: {problem}",
            "details": {"postTypeMappings.post.collection": problem},
        },
    }
    assert ImportJob.objects.count() == 0


# --- --author -------------------------------------------------------------------------------------------------------


def test_an_author_mapped_to_no_user_is_refused(admin_api, tmp_path):
    # It imported anyway, with a warning in the summary and a guest byline.
    with pytest.raises(CommandError) as error:
        run(export(tmp_path, posts=1), "--author", "admin=nobody@example.test")

    assert (
        str(error.value)
        == "--author admin=nobody@example.test: no user has the id or email 'nobody@example.test'."
    )
    assert (ImportAnalysis.objects.count(), ImportJob.objects.count()) == (0, 0)


def test_an_author_the_export_does_not_have_is_refused(admin_api, tmp_path):
    user = make_user(email="writer@example.test")

    with pytest.raises(CommandError) as error:
        run(export(tmp_path, posts=1), "--author", f"ghost={user.email}")

    assert str(error.value) == "--author ghost: The export has no author 'ghost'; it has: admin."
    assert ImportJob.objects.count() == 0


def test_execute_refuses_author_mappings_to_no_user(admin_api):
    analysis = analyze(admin_api, content=wxr(post(1)))

    response = admin_api.post(
        EXECUTE,
        {"analysisId": analysis["analysisId"], "authorMappings": {"admin": "nobody@example.test"}},
        format="json",
    )

    assert response.status_code == 400
    assert response.json()["error"] == {
        "code": "VALIDATION_ERROR",
        "message": "authorMappings.admin: No user has the id or email 'nobody@example.test'.",
        "details": {"authorMappings.admin": "No user has the id or email 'nobody@example.test'."},
    }


def test_an_author_mapped_to_a_user_owns_the_entries(admin_api, tmp_path):
    user = make_user(email="writer@example.test")

    run(export(tmp_path, posts=2), "--author", "admin=WRITER@example.test")

    items = admin_api.get("/_cms/api/content/posts").json()["data"]["items"]
    assert {item["authorId"] for item in items} == {user.pk}


# --- media ----------------------------------------------------------------------------------------------------------


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_media_failures_are_grouped_by_reason_with_examples(admin_api, web, tmp_path, settings):
    # Only their count was printed.
    settings.CMS_MAX_UPLOAD_BYTES = 4000
    web.routes.update(
        {
            "/ok.png": (200, png_bytes(), {"Content-Type": "image/png"}),
            "/page.png": (200, b"<!doctype html><p>Not an image</p>", {"Content-Type": "text/html"}),
            "/huge.png": (200, b"x" * 5000, {"Content-Type": "image/png"}),
        }
    )
    base, closed = web.base, f"http://127.0.0.1:{_closed_port()}"
    urls = {
        20: f"{base}/ok.png",
        21: f"{base}/gone-1.png",
        22: f"{base}/gone-2.png",
        23: f"{base}/gone-3.png",
        24: f"{base}/gone-4.png",
        25: f"{base}/page.png",
        26: f"{base}/huge.png",
        27: "http://10.0.0.1/private.png",
        28: f"{closed}/down.png",
    }
    items = "".join(attachment(number, url) for number, url in urls.items())

    output = run(export(tmp_path, posts=1, items=items), "--media")

    job = ImportJob.objects.get()
    media = output[output.index("Media:") :]
    unreachable = re.search(r"    " + re.escape(urls[28]) + r": (.*)\n", media).group(1)
    assert media == (
        "Media: 1 imported, 8 failed\n"
        "  HTTP error status: 4\n"
        f"    {urls[21]}: {urls[21]} answered HTTP 404.\n"
        f"    {urls[22]}: {urls[22]} answered HTTP 404.\n"
        f"    {urls[23]}: {urls[23]} answered HTTP 404.\n"
        "    and 1 more\n"
        "  address refused (not a public host): 1\n"
        f"    {urls[27]}: 10.0.0.1 is not fetched: it resolves to a private-network address (10.0.0.1).\n"
        "  refused type: 1\n"
        f"    {urls[25]}: The file's content is not a recognised file type; allowed types: "
        f"{', '.join(settings.CMS_MEDIA_ALLOWED_TYPES)}.\n"
        "  too large: 1\n"
        f"    {urls[26]}: The response from {urls[26]} is 5000 bytes; the limit is 4000.\n"
        "  host unreachable: 1\n"
        f"    {urls[28]}: {unreachable}\n"
        f"  The job lists them with their errors: {settings.CMS_BASE_URL}/_cms/api/import/jobs/{job.pk}\n"
    )
    assert unreachable.startswith("Could not connect to 127.0.0.1")
    reasons = {item["url"]: item["reason"] for item in admin_api.get(f"/_cms/api/import/jobs/{job.pk}").json()[
        "data"]["summary"]["media"]["failed"]}  # fmt: skip
    assert reasons == {
        urls[21]: "httpStatus",
        urls[22]: "httpStatus",
        urls[23]: "httpStatus",
        urls[24]: "httpStatus",
        urls[25]: "refusedType",
        urls[26]: "tooLarge",
        urls[27]: "blocked",
        urls[28]: "unreachable",
    }


def test_a_stopped_job_says_why_once(admin_api, web, tmp_path, settings):
    # Its error was printed in the report and again as the command's error.
    settings.CMS_MEDIA_QUOTA_BYTES = 10
    web.routes["/red.png"] = (200, png_bytes(), {"Content-Type": "image/png"})
    path = export(tmp_path, posts=1, items=attachment(9, f"{web.base}/red.png"))
    out = StringIO()

    with pytest.raises(CommandError) as error:
        call_command("import_wxr", path, "--media", "--no-progress", stdout=out)

    job = ImportJob.objects.get()
    assert job.state == "failed"
    # The message already states the usage its details hold.
    assert job.error["details"] == {"usedBytes": 0, "quotaBytes": 10, "neededBytes": len(png_bytes())}
    assert str(error.value) == (
        f"The import failed: STORAGE_QUOTA_EXCEEDED: {job.error['message']} Resume it with --resume {job.pk} once "
        "that is dealt with."
    )
    assert job.error["message"] not in out.getvalue()
