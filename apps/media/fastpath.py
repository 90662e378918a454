"""Stored renditions answered in front of Django (issue 22: a cached rendition at least half the rate of a bare WSGI
hello world, where Django's own floor is about 0.65x and the full API stack about 0.1x).

``RenditionFastPath`` wraps the WSGI application. A ``GET`` or ``HEAD`` of ``/_cms/api/media/:id/render…`` whose
rendition is already on local disk is answered here: the URL is checked by the same function as the view's
(``renditions.request_params``: the preset exists, or the signature matches), the item is read in one query (its
bytes' hash, type and focal point name the stored file), and the file is sent with the view's headers. Anything else
(a first render, any error, S3 storage, an item that is gone) goes to Django unchanged, which answers it as the view
does. Renditions are public (``media.render`` in the permission table), so no credential is read here: nothing is
answered that the view would refuse to anyone.
"""

from __future__ import annotations

import logging
import re
from urllib.parse import parse_qsl

from django.conf import settings
from django.db import DatabaseError, connection

from apps.accounts.permissions import rule_for
from apps.core.errors import CmsError
from apps.media import renditions, storage
from apps.media.models import MediaItem

logger = logging.getLogger("cms.media")
ITEM_FIELDS = ("content_hash", "mime_type", "focal_x", "focal_y")


def _item_query() -> str:
    # One plain statement instead of a queryset: building and compiling the ORM's query was most of a request here.
    columns = ", ".join(
        connection.ops.quote_name(MediaItem._meta.get_field(name).column) for name in ITEM_FIELDS
    )
    table = connection.ops.quote_name(MediaItem._meta.db_table)
    key = connection.ops.quote_name(MediaItem._meta.pk.column)
    return f"SELECT {columns} FROM {table} WHERE {key} = %s"  # noqa: S608 (names from the model, value bound)


class RenditionFastPath:
    def __init__(self, application):
        self.application = application
        prefix = re.escape(settings.CMS_API_PREFIX)
        self.path = re.compile(rf"^{prefix}/media/([0-9A-Za-z]{{1,26}})/render(?:/([A-Za-z0-9_-]{{1,64}}))?$")
        self.query = None

    def _prepare(self) -> str:
        self.query = _item_query()
        return self.query

    def __call__(self, environ, start_response):
        method = environ.get("REQUEST_METHOD")
        if method in ("GET", "HEAD"):
            match = self.path.match(environ.get("PATH_INFO", ""))
            if match is not None:
                answer = self.stored(environ, *match.groups())
                if answer is not None:
                    status, headers, body = answer
                    start_response(status, headers)
                    return [] if method == "HEAD" or status.startswith("304") else [body]
        return self.application(environ, start_response)

    def stored(self, environ, media_id: str, preset: str | None):
        """(status, headers, body) of a stored rendition, or None for Django to answer."""
        if not rule_for("media.render").public or not storage.is_local():
            return None
        if "HTTP_ORIGIN" in environ:
            # A cross-origin fetch (not an <img>): Django's CORS middleware decides its headers.
            return None
        try:
            query = parse_qsl(environ.get("QUERY_STRING", ""), keep_blank_values=True, strict_parsing=False)
            params = renditions.request_params(media_id, preset, query)
            with connection.cursor() as cursor:
                cursor.execute(self.query or self._prepare(), [media_id])
                row = cursor.fetchone()
        except (CmsError, ValueError):
            return None
        except DatabaseError:
            # A connection the database dropped: Django's request cycle checks and replaces it.
            logger.warning("rendition fast path: database error", exc_info=True)
            return None
        if row is None:
            return None
        content_hash, mime_type, focal_x, focal_y = row
        if not renditions.renderable(mime_type):
            return None
        focal = None if focal_x is None or focal_y is None else (focal_x, focal_y)
        key = renditions.storage_key(content_hash, params, focal)
        # The key is made of a hash from the database and validated parameters: nothing in it can leave the root.
        path = storage.media_storage().path(key)
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError:
            return None
        headers = renditions.response_headers(key, params, len(data))
        if renditions.not_modified(environ.get("HTTP_IF_NONE_MATCH", ""), headers["ETag"]):
            del headers["Content-Length"]
            return "304 Not Modified", list(headers.items()), b""
        return "200 OK", list(headers.items()), data
