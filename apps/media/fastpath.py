"""Stored renditions answered in front of Django (issue 22: a cached rendition at least half the rate of a bare WSGI
hello world, where Django's own floor is about 0.65x and the full API stack about 0.1x).

``RenditionFastPath`` wraps the WSGI application. A ``GET`` or ``HEAD`` of ``/_cms/api/media/:id/render…`` whose
rendition is already on local disk is answered here: the URL is checked by the same function as the view's
(``renditions.request_params``: the preset exists, or the signature matches), the item is read in one query and
remembered for a minute (its bytes' hash, type and focal point name the stored file; ``item`` says why a minute is
safe), and the file is sent with the view's headers. Anything else
(a first render, any error, S3 storage, an item that is gone) goes to Django unchanged, which answers it as the view
does. Renditions are public (``media.render`` in the permission table), so no credential is read here: nothing is
answered that the view would refuse to anyone.
"""

from __future__ import annotations

import logging
import os
import re
import time
from urllib.parse import parse_qsl

from django.conf import settings
from django.core.signals import setting_changed
from django.db import DatabaseError, connection

from apps.accounts.permissions import rule_for
from apps.core import metrics
from apps.core.errors import CmsError
from apps.media import renditions, storage
from apps.media.models import MediaItem

logger = logging.getLogger("cms.media")
ITEM_FIELDS = ("content_hash", "mime_type", "focal_x", "focal_y")
# How long a worker trusts an item row it read (item()), and how many it keeps (all are dropped when full).
ITEM_SECONDS = 60
ITEMS_KEPT = 10_000


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

        # media id -> (when read, (content hash, type, focal point)): see item().
        self.items: dict[str, tuple[float, tuple]] = {}
        # (media id, preset, query string) -> (params, v): see asked().
        self.urls: dict[tuple, tuple] = {}
        # Presets changed (tests change settings) make remembered URLs wrong.
        setting_changed.connect(self._forget_urls, weak=False)

    def _forget_urls(self, **kwargs) -> None:
        self.urls.clear()

    def asked(self, media_id: str, preset: str | None, query_string: str):
        """(params, v) of a valid rendition URL, remembered: the answer is a function of the URL alone, and checking it
        (parsing, validating, the signature) was a third of a request here. Refusals are not remembered."""
        key = (media_id, preset, query_string)
        found = self.urls.get(key)
        if found is None:
            query = parse_qsl(query_string, keep_blank_values=True, strict_parsing=False)
            found = (renditions.request_params(media_id, preset, query), dict(query).get(renditions.VERSION))
            if len(self.urls) >= ITEMS_KEPT:
                self.urls.clear()
            self.urls[key] = found
        return found

    def item(self, media_id: str, params, wanted_version: str | None):
        """What names an item's stored renditions, read from the database at most once a minute per worker.

        A content hash never changes for an item. The focal point does: a crop URL the API gave carries ``v``, the
        focal point's version, and a remembered row whose focal point has another version is read again, so a new
        crop is never answered with the old one under its new URL. A crop asked for without ``v``, or an item
        deleted while another keeps the same bytes, may see the old row for up to ITEM_SECONDS."""
        now = time.monotonic()
        remembered = self.items.get(media_id)
        if remembered is not None and now - remembered[0] < ITEM_SECONDS:
            row = remembered[1]
            if wanted_version is None or renditions.version(params, row[2]).get(renditions.VERSION) in (
                None,
                wanted_version,
            ):
                return row
        with connection.cursor() as cursor:
            cursor.execute(self.query or self._prepare(), [media_id])
            found = cursor.fetchone()
        if found is None:
            self.items.pop(media_id, None)
            return None
        content_hash, mime_type, focal_x, focal_y = found
        row = (content_hash, mime_type, None if focal_x is None or focal_y is None else (focal_x, focal_y))
        if len(self.items) >= ITEMS_KEPT:
            self.items.clear()
        self.items[media_id] = (now, row)
        return row

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
                    preset = "/preset" if match.group(2) else ""
                    environ[metrics.ROUTE_KEY] = metrics.route_of(
                        f"{settings.CMS_API_PREFIX}/media/item/render{preset}"
                    )
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
            params, wanted_version = self.asked(media_id, preset, environ.get("QUERY_STRING", ""))
            row = self.item(media_id, params, wanted_version)
        except (CmsError, ValueError):
            return None
        except DatabaseError:
            # A connection the database dropped: Django's request cycle checks and replaces it.
            logger.warning("rendition fast path: database error", exc_info=True)
            return None
        if row is None:
            return None
        content_hash, mime_type, focal = row
        if not renditions.renderable(mime_type):
            return None
        key = renditions.storage_key(content_hash, params, focal)
        # The key is made of a hash from the database and validated parameters: nothing in it can leave the root.
        path = os.path.join(storage.media_storage().location, key)
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
