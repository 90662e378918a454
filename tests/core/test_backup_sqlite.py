"""``manage.py backup_sqlite`` (issue 24, docs/operations.md "Backups and restore"): an online copy of the live
SQLite database that, served in place of the original, answers every read exactly as the original did when the copy
was taken; refused on PostgreSQL, whose backup is pg_dump."""

from __future__ import annotations

from contextlib import contextmanager
from io import StringIO

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.db import connection

from apps.plugins import registry
from tests.factories import make_collection, png_bytes

API = "/_cms/api"


@pytest.fixture
def site(admin_api):
    """Given a small site: entries in each state with revisions, a taxonomy and a term, a menu, media, settings."""
    make_collection("posts", fields=[("title", "string")])
    post = lambda title: admin_api.post(f"{API}/content/posts", {"data": {"title": title}}, format="json")  # noqa: E731
    published = post("Published").json()["data"]["item"]
    admin_api.patch(
        f"{API}/content/posts/{published['id']}", {"data": {"title": "Published, edited"}}, format="json"
    )
    admin_api.post(f"{API}/content/posts/{published['id']}/publish", {}, format="json")
    post("Draft")
    trashed = post("Trashed").json()["data"]["item"]["id"]
    admin_api.delete(f"{API}/content/posts/{trashed}")
    admin_api.post(
        f"{API}/taxonomies", {"name": "tag", "label": "Tags", "collections": ["posts"]}, format="json"
    )
    admin_api.post(f"{API}/taxonomies/tag/terms", {"slug": "news", "label": "News"}, format="json")
    admin_api.post(f"{API}/menus", {"name": "primary", "label": "Main"}, format="json")
    admin_api.post(
        f"{API}/menus/primary/items", {"type": "custom", "label": "Home", "url": "/"}, format="json"
    )
    media = admin_api.post(
        f"{API}/media", {"file": SimpleUploadedFile("dot.png", png_bytes())}, format="multipart"
    )
    admin_api.put(f"{API}/settings", {"siteTitle": "Field Notes"}, format="json")
    return {"entry": published["id"], "media": media.json()["data"]["id"]}


def answers(api, site) -> dict[str, tuple[int, bytes]]:
    revisions = api.get(f"{API}/content/posts/{site['entry']}/revisions").json()["data"]["items"]
    paths = [
        "/content/posts",
        "/content/posts?status=draft",
        "/content/posts/trash",
        f"/content/posts/{site['entry']}",
        f"/content/posts/{site['entry']}/revisions",
        *(f"/revisions/{revision['id']}" for revision in revisions),
        "/taxonomies",
        "/taxonomies/tag/terms",
        "/menus",
        "/menus/primary",
        "/media",
        f"/media/{site['media']}",
        "/settings",
        "/schema",
        "/audit-log",
        "/search?q=published",
    ]
    return {
        path: (response.status_code, response.content) for path in paths for response in [api.get(API + path)]
    }


@contextmanager
def served_from(path):
    """Django's connection opened on ``path`` instead of the test database, as a fresh server would open it."""
    original = connection.settings_dict["NAME"]
    connection.close()
    connection.settings_dict["NAME"] = str(path)
    cache.clear()
    registry.invalidate()
    try:
        yield
    finally:
        connection.close()
        connection.settings_dict["NAME"] = original
        cache.clear()


@pytest.mark.requires_sqlite
@pytest.mark.django_db(transaction=True)
def test_the_backup_answers_every_read_as_the_original_did(admin_api, site, tmp_path):
    before = answers(admin_api, site)
    assert {path: status for path, (status, _) in before.items() if status != 200} == {}
    dest = tmp_path / "backup.sqlite3"
    out = StringIO()

    call_command("backup_sqlite", str(dest), stdout=out)

    assert out.getvalue().startswith("Backed up ") and out.getvalue().endswith(f"to {dest}: integrity ok.\n")
    assert sorted(item.name for item in tmp_path.iterdir()) == ["backup.sqlite3", "media"]
    # Changes after the backup are not in it.
    admin_api.put(f"{API}/settings", {"siteTitle": "Changed later"}, format="json")
    admin_api.delete(f"{API}/menus/primary")
    assert answers(admin_api, site) != before
    with served_from(dest):
        assert answers(admin_api, site) == before


@pytest.mark.requires_sqlite
def test_the_backup_never_overwrites_a_file(tmp_path):
    dest = tmp_path / "backup.sqlite3"
    dest.write_bytes(b"keep me")
    with pytest.raises(CommandError, match="exists already: name a new file"):
        call_command("backup_sqlite", str(dest))
    assert dest.read_bytes() == b"keep me"


@pytest.mark.requires_postgres
def test_postgresql_is_backed_up_with_pg_dump(tmp_path):
    with pytest.raises(CommandError, match="this one is PostgreSQL: use pg_dump --format=custom"):
        call_command("backup_sqlite", str(tmp_path / "backup.sqlite3"))
    assert list(tmp_path.iterdir()) == [tmp_path / "media"]
