"""``/_cms/api/media…`` (SPEC §4.3): media records, uploads, and downloads of stored files.

``POST /media`` takes either JSON (a file already in storage, by ``storageKey``) or ``multipart/form-data`` (an upload
with ``file``). Uploads are limited to ``CMS_MAX_UPLOAD_BYTES``: a declared length over the limit is refused before
the body is read, and the parser stops at the limit when the length is not declared or is wrong.

``GET /media/file/:key`` answers the raw bytes (not the envelope) with the detected type, length, ETag and a year of
caching: keys are unique per upload, so a key's content never changes. It serves keys that a media record names, on
local storage only (S3-compatible storage serves its own URLs).

Files come from the API's own origin, so a file a browser rendered as a document could run script with that origin's
cookies and storage. Every file is therefore sandboxed (``Content-Security-Policy``: no scripts, no loads, an origin
of its own) and not sniffed (``nosniff``), and only the types in ``CMS_MEDIA_INLINE_TYPES`` (raster images, audio,
video) are ``inline``; anything else (PDF by default, and SVG, HTML or XML should they ever be stored) downloads as an
attachment. Embedding is unaffected: an ``<img>``, ``<audio>`` or ``<video>`` on another page ignores both headers.
"""

from __future__ import annotations

import fnmatch
import re

from django.conf import settings
from django.http import HttpResponse, StreamingHttpResponse
from django.utils.http import content_disposition_header
from drf_spectacular.types import OpenApiTypes
from rest_framework.parsers import MultiPartParser

from apps.accounts.permissions import actor_from_request
from apps.core.api.parsers import JSONParser
from apps.core.api.views import CmsAPIView, CmsViewSet, endpoint, ok
from apps.core.errors import NotFound
from apps.core.presenters import SUCCESS, SuccessFlagOut
from apps.core.shapes import paged
from apps.media import selectors, services, storage
from apps.media.inputs import MediaCreateIn, MediaListIn, MediaUpdateIn, MediaUploadIn
from apps.media.presenters import MediaCreatedOut, MediaOut, present_media, present_media_created
from apps.media.uploads import UploadLimitMixin

CHUNK = 64 * 1024


class MediaViewSet(UploadLimitMixin, CmsViewSet):
    parser_classes = [JSONParser, MultiPartParser]

    @endpoint(
        "media.read",
        query=MediaListIn,
        response=paged(MediaOut),
        error_code="MEDIA_LIST_ERROR",
        summary="List media",
    )
    def list(self, request):
        """Newest first; ``mimeType`` filters by prefix, ``search`` by filename, alt text or caption."""
        page = selectors.media_list(
            actor=actor_from_request(request),
            mime_type=self.query.get("mimeType"),
            search=self.query.get("search"),
            cursor=self.query.get("cursor"),
            limit=self.query["limit"],
        )
        return ok(page.to_data(present_media))

    @endpoint(
        "media.create",
        body={"application/json": MediaCreateIn, "multipart/form-data": MediaUploadIn},
        response=MediaCreatedOut,
        status=201,
        also=(200,),
        errors=(413, 415, 503, 507),
        error_code="MEDIA_CREATE_ERROR",
        summary="Upload a file, or record one already in storage",
    )
    def create(self, request):
        """Multipart with ``file`` uploads bytes; JSON with ``storageKey`` records a file already in storage. The type
        is detected from the content and must be allowed (415 otherwise); a file over the size limit is 413. Bytes
        identical to an existing item answer that item with ``deduplicated: true`` and status 200. A full disk, or a
        file that would pass the media quota, is 507 and stores nothing; so is a media storage that does not answer, 503
        with Retry-After."""
        actor = actor_from_request(request)
        body = self.body
        if "file" in body:
            upload = body["file"]
            item, deduplicated = services.media_upload(
                actor=actor,
                file=upload,
                filename=upload.name,
                alt=body.get("alt", ""),
                caption=body.get("caption", ""),
            )
        else:
            item, deduplicated = services.media_create(
                actor=actor,
                storage_key=body["storageKey"],
                filename=body.get("filename"),
                mime_type=body.get("mimeType"),
                size=body.get("size"),
                width=body.get("width"),
                height=body.get("height"),
                alt=body.get("alt", ""),
                caption=body.get("caption", ""),
            )
        return ok(present_media_created(item, deduplicated), status=200 if deduplicated else 201)

    @endpoint("media.read", response=MediaOut, summary="Get a media item")
    def retrieve(self, request, pk: str):
        return ok(present_media(selectors.media_read(actor=actor_from_request(request), media_id=pk)))

    @endpoint("media.update", body=MediaUpdateIn, response=MediaOut, summary="Update alt text and caption")
    def partial_update(self, request, pk: str):
        """Authors change their own media; editors and admins anyone's."""
        item = services.media_update(
            actor=actor_from_request(request), item=selectors.media_get(media_id=pk), changes=dict(self.body)
        )
        return ok(present_media(item))

    @endpoint("media.delete", response=SuccessFlagOut, summary="Delete a media item and its file")
    def destroy(self, request, pk: str):
        """The stored file is deleted too, unless another media record names the same file."""
        services.media_delete(actor=actor_from_request(request), item=selectors.media_get(media_id=pk))
        return ok(SUCCESS)


_RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")


def _byte_range(header: str | None, size: int) -> tuple[int, int] | None:
    """The one satisfiable range of a ``Range: bytes=a-b`` header as (first, last), or None to send the whole file
    (RFC 9110 §14.2 lets a server ignore ranges it does not serve, such as several ranges at once)."""
    match = _RANGE.match((header or "").strip())
    if not match or size == 0:
        return None
    first, last = match.groups()
    if not first and not last:
        return None
    if not first:
        suffix = int(last)
        return (max(0, size - suffix), size - 1) if suffix else None
    start = int(first)
    end = min(int(last), size - 1) if last else size - 1
    return (start, end) if start <= end else None


def _stream(handle, first: int, length: int):
    try:
        handle.seek(first)
        remaining = length
        while remaining > 0:
            chunk = handle.read(min(CHUNK, remaining))
            if not chunk:
                break
            remaining -= len(chunk)
            yield chunk
    finally:
        handle.close()


# A file opened on its own may show itself and nothing more: no scripts, forms, plugins or loads of anything else.
SANDBOX = "default-src 'none'; sandbox"
# Audio and video opened on their own play in a media document that fetches the file again, as media: that needs
# `media-src 'self'`, which a sandboxed document only matches when it keeps its origin (`allow-same-origin`; scripts,
# forms, popups and plugins stay off, and with nosniff the bytes are never read as HTML).
PLAYABLE_SANDBOX = "default-src 'none'; media-src 'self'; sandbox allow-same-origin"


def _file_headers(item) -> dict[str, str]:
    mime = item.mime_type or ""
    inline = any(fnmatch.fnmatchcase(mime, pattern) for pattern in settings.CMS_MEDIA_INLINE_TYPES)
    playable = inline and mime.startswith(("audio/", "video/"))
    return {
        "Content-Security-Policy": PLAYABLE_SANDBOX if playable else SANDBOX,
        "X-Content-Type-Options": "nosniff",
        "Content-Disposition": content_disposition_header(not inline, item.filename),
    }


class MediaFileView(CmsAPIView):
    @endpoint(
        "public",
        response={"*/*": OpenApiTypes.BINARY},
        envelope=False,
        also=(206,),
        bodiless={304: "Not modified: the copy you have (If-None-Match) is current."},
        ratelimit=None,
        summary="Download a stored file",
    )
    def get(self, request, key: str):
        """The file's bytes with its detected Content-Type, Content-Length, an ETag (the content hash) and
        ``Cache-Control: public, max-age=31536000, immutable``. A single ``Range: bytes=…`` is answered with 206.
        Only keys of media records are served, and only from local storage. Every file is sandboxed
        (``Content-Security-Policy: default-src 'none'; sandbox``, audio and video may also load themselves as media)
        with ``X-Content-Type-Options: nosniff``; types outside ``CMS_MEDIA_INLINE_TYPES`` (raster images, audio and
        video by default) are sent as ``Content-Disposition: attachment``."""
        if storage.key_problem(key) is not None or not storage.is_local():
            raise NotFound("No such file.")
        item = selectors.media_by_key(key=key)
        path = storage.local_path(key) if item is not None else None
        if item is None or path is None:
            raise NotFound("No such file.")
        etag = f'"{item.content_hash}"'
        headers = {
            "ETag": etag,
            "Cache-Control": "public, max-age=31536000, immutable",
            "Accept-Ranges": "bytes",
            **_file_headers(item),
        }
        wanted = request.headers.get("If-None-Match", "")
        if wanted and (
            wanted.strip() == "*" or etag in [tag.strip().removeprefix("W/") for tag in wanted.split(",")]
        ):
            return HttpResponse(status=304, headers=headers)
        try:
            handle = storage.media_storage().open(key, "rb")
        except FileNotFoundError:
            raise NotFound("No such file.") from None
        size = handle.size
        span = _byte_range(request.headers.get("Range"), size)
        first, last = span if span else (0, size - 1)
        length = last - first + 1 if size else 0
        headers["Content-Length"] = str(length)
        status = 200
        if span:
            status = 206
            headers["Content-Range"] = f"bytes {first}-{last}/{size}"
        if request.method == "HEAD":
            handle.close()
            return HttpResponse(status=status, headers=headers, content_type=item.mime_type)
        return StreamingHttpResponse(
            _stream(handle, first, length), status=status, headers=headers, content_type=item.mime_type
        )
