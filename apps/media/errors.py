"""Media errors with their own status: a file over the size limit (413), content of a refused type (415), the
media quota reached (507), and the media storage unreachable (503)."""

from apps.core.errors import InsufficientStorage, PayloadTooLarge, ServiceUnavailable, UnsupportedMediaType

# Seconds a client waits before retrying when the storage did not answer, as for a database outage.
STORAGE_RETRY_AFTER = 5


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


class StorageUnavailable(ServiceUnavailable):
    """The object storage refused the connection, did not answer within its timeouts, or failed on its side (5xx).
    Nothing was stored or recorded. The wait is in ``details`` too: an MCP tool result has no headers."""

    default_message = "The media storage is not reachable: nothing was stored or changed. Retry shortly."

    def __init__(self, message: str | None = None):
        super().__init__(
            message, retry_after=STORAGE_RETRY_AFTER, details={"retryAfter": STORAGE_RETRY_AFTER}
        )
