"""An upload handler that stops reading a multipart body once its files exceed ``CMS_MAX_UPLOAD_BYTES``.

Django's other handlers (memory, then a temporary file) still store the bytes; this one only counts them, first in the
chain, so an oversized or lying upload is refused with 413 after at most the limit has been read.
"""

from __future__ import annotations

from django.conf import settings
from django.core.files.uploadhandler import FileUploadHandler

from apps.media.errors import MediaTooLarge


class UploadLimitHandler(FileUploadHandler):
    def __init__(self, request=None):
        super().__init__(request)
        self.received = 0

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes:
        self.received += len(raw_data)
        limit = settings.CMS_MAX_UPLOAD_BYTES
        if self.received > limit:
            raise MediaTooLarge(
                f"The upload exceeds the limit of {limit} bytes.", details={"file": f"At most {limit} bytes."}
            )
        return raw_data

    def file_complete(self, file_size: int):
        # Not this handler's job to build the file: the next handler in the chain does.
        return None
