"""The raw-SQL floor: what Django over this database can do for the reads `make bench` measures on imported posts.

The smallest Django project (no middleware, no apps, no authentication) with three views that run one hand-written
query each against the CMS's own tables and answer JSON shaped like the CMS's: one entry by id, the newest 50 entries
of the ``posts`` collection, and the top 20 full-text matches of a word. Stored entry JSON is passed through as text,
never decoded. Served by the same gunicorn configuration as the CMS, on the same database (``DATABASE_URL``), it is
the second reference of each imported-posts scenario: "this read runs at x% of the floor".
"""

import os
import secrets

import dj_database_url
import django
import orjson
from django.conf import settings
from django.db import connection
from django.http import HttpResponse
from django.urls import path

settings.configure(
    DEBUG=False,
    SECRET_KEY=secrets.token_hex(32),
    ALLOWED_HOSTS=["*"],
    ROOT_URLCONF=__name__,
    MIDDLEWARE=[],
    INSTALLED_APPS=[],
    DATABASES={"default": {**dj_database_url.parse(os.environ["DATABASE_URL"]), "CONN_MAX_AGE": None}},
    USE_TZ=True,
)
django.setup()

COLUMNS = "id, slug, locale, status, version, created_at, updated_at, published_at"


def _data_column() -> str:
    return "data::text" if connection.vendor == "postgresql" else "data"


def _entry(row) -> dict:
    entry_id, slug, locale, status, version, created, updated, published, data = row
    return {
        "id": entry_id,
        "slug": slug,
        "locale": locale,
        "status": status,
        "_rev": f"{entry_id}:{version}",
        "createdAt": created,
        "updatedAt": updated,
        "publishedAt": published,
        "data": orjson.Fragment(data),
    }


def _json(body) -> HttpResponse:
    return HttpResponse(orjson.dumps(body), content_type="application/json")


def one(request, entry_id: str):
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {COLUMNS}, {_data_column()} FROM content_entry WHERE id = %s AND deleted_at IS NULL",
            [entry_id],
        )
        row = cursor.fetchone()
    if row is None:
        return HttpResponse(status=404)
    return _json({"data": _entry(row)})


def newest(request):
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {COLUMNS}, {_data_column()} FROM content_entry WHERE collection_id = "
            "(SELECT id FROM schema_collection WHERE slug = 'posts') AND deleted_at IS NULL "
            "ORDER BY created_at DESC, id DESC LIMIT 50"
        )
        rows = cursor.fetchall()
    return _json({"data": [_entry(row) for row in rows], "nextCursor": rows[-1][0] if rows else None})


def search(request):
    words = request.GET.get("q", "")
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT d.entry_id, d.collection_id, d.slug, d.title, ts_rank_cd(d.tsv, q) AS score "
                "FROM search_searchdocument d, plainto_tsquery(("
                "SELECT config FROM search_searchdocument LIMIT 1), %s) q "
                "WHERE d.tsv @@ q ORDER BY score DESC LIMIT 20",
                [words],
            )
        else:
            cursor.execute(
                "SELECT d.entry_id, d.collection_id, d.slug, d.title, bm25(search_fts, 5.0, 1.0) AS score "
                "FROM search_fts JOIN search_searchdocument d ON d.id = search_fts.rowid "
                "WHERE search_fts MATCH %s ORDER BY rank LIMIT 20",
                [words],
            )
        rows = cursor.fetchall()
    keys = ("id", "collection", "slug", "title", "score")
    return _json({"data": [dict(zip(keys, row, strict=True)) for row in rows]})


urlpatterns = [path("one/<str:entry_id>", one), path("list", newest), path("search", search)]

from django.core.wsgi import get_wsgi_application  # noqa: E402 (needs the settings above)

application = get_wsgi_application()
