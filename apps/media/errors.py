"""Media errors with their own status: a file over the size limit (413) and content of a refused type (415)."""

from apps.core.errors import PayloadTooLarge, UnsupportedMediaType


class MediaTooLarge(PayloadTooLarge):
    """The uploaded file exceeds ``CMS_MAX_UPLOAD_BYTES``."""


class MediaTypeRefused(UnsupportedMediaType):
    """The bytes are of a type outside ``CMS_MEDIA_ALLOWED_TYPES`` (or of no recognisable type)."""
