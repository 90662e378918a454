"""Upload size limits of multipart endpoints: refused with 413 before the body is read when the declared length is
far over the limit, and while it is read once its files pass the limit (when no length or a wrong one is declared).

``UploadLimitHandler`` goes first in Django's upload handler chain and only counts bytes; the others (memory, then a
temporary file) still store them. ``UploadLimitMixin`` installs it on a viewset (``limit_uploads`` and ``refuse_declared_oversize`` on any view), with the limit named by
``upload_limit_setting``: media uploads use ``CMS_MAX_UPLOAD_BYTES``, import uploads ``CMS_IMPORT_MAX_BYTES``.
"""

from __future__ import annotations

from django.conf import settings
from django.core.files.uploadhandler import FileUploadHandler, SkipFile

from apps.media.errors import MediaTooLarge

# Room for the multipart envelope (boundaries, part headers, other fields) on top of the file itself.
MULTIPART_OVERHEAD = 64 * 1024


class UploadLimitHandler(FileUploadHandler):
    """``per_file``: the limit applies to each file of the body (a form sending several), not to all of them; a file
    over it is skipped (the rest of its bytes are read and dropped) and its name kept in ``oversize``, so that the
    others still arrive and the page can say which one was too large."""

    def __init__(self, request=None, limit: int | None = None, per_file: bool = False):
        super().__init__(request)
        self.limit = limit
        self.per_file = per_file
        self.received = 0
        self.oversize: list[str] = []

    def new_file(self, *args, **kwargs):
        if self.per_file:
            self.received = 0
        return super().new_file(*args, **kwargs)

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes:
        self.received += len(raw_data)
        limit = self.limit if self.limit is not None else settings.CMS_MAX_UPLOAD_BYTES
        if self.received > limit and self.per_file:
            self.oversize.append(self.file_name)
            raise SkipFile()
        if self.received > limit:
            raise MediaTooLarge(
                f"The upload exceeds the limit of {limit} bytes.", details={"file": f"At most {limit} bytes."}
            )
        return raw_data

    def file_complete(self, file_size: int):
        # Not this handler's job to build the file: the next handler in the chain does.
        return None


def limit_uploads(request, limit: int, *, per_file: bool = False) -> UploadLimitHandler | None:
    """Stop reading ``request``'s multipart body once its files pass ``limit`` bytes (``per_file``: skip each file
    that does). Call it before anything reads the body (a CSRF check reads the form)."""
    if not request.content_type.startswith("multipart/"):
        return None
    handler = UploadLimitHandler(request, limit=limit, per_file=per_file)
    request.upload_handlers.insert(0, handler)
    return handler


def refuse_declared_oversize(request, limit: int) -> None:
    """413 before the body is read when the declared length is over ``limit`` plus the multipart envelope."""
    declared = request.META.get("CONTENT_LENGTH") or ""
    if (
        request.content_type.startswith("multipart/")
        and declared.isdigit()
        and int(declared) > limit + MULTIPART_OVERHEAD
    ):
        raise MediaTooLarge(
            f"The upload is {declared} bytes; files may have at most {limit} bytes.",
            details={"file": f"At most {limit} bytes."},
        )


class UploadLimitMixin:
    """For a CmsViewSet taking multipart uploads: the limit of ``upload_limit_setting`` applies to their files."""

    upload_limit_setting = "CMS_MAX_UPLOAD_BYTES"

    def upload_limit(self) -> int:
        return getattr(settings, self.upload_limit_setting)

    def initialize_request(self, request, *args, **kwargs):
        # First thing, before anything (a session's CSRF check) may read the body: stop reading it at the limit,
        # whatever length the client declared.
        limit_uploads(request, self.upload_limit())
        return super().initialize_request(request, *args, **kwargs)

    def validate_body(self, spec, request):
        refuse_declared_oversize(request, self.upload_limit())
        return super().validate_body(spec, request)
