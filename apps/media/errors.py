"""Media errors with their own status: a file over the size limit (413), content of a refused type (415), and the
media quota reached (507)."""

from apps.core.errors import InsufficientStorage, PayloadTooLarge, UnsupportedMediaType


class MediaTooLarge(PayloadTooLarge):
    """The uploaded file exceeds ``CMS_MAX_UPLOAD_BYTES``."""


class MediaTypeRefused(UnsupportedMediaType):
    """The bytes are of a type outside ``CMS_MEDIA_ALLOWED_TYPES`` (or of no recognisable type)."""


class StorageQuotaExceeded(InsufficientStorage):
    """SPEC §7 "storage quota exceeded: import stops and shows usage": storing the file would take the media past
    ``CMS_MEDIA_QUOTA_BYTES``; ``details`` has the usage. A kind of insufficient storage (same status, and whatever
    stops on a full disk stops on it too), with its own code because the usage it shows is the CMS's, not the disk's.
    """

    code = "STORAGE_QUOTA_EXCEEDED"
    default_message = "The media storage quota is exhausted."
