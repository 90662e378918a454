"""Where media bytes live, and what a storage key may be.

Files go through Django's storage API: the ``default`` storage is local disk under ``MEDIA_ROOT`` unless S3-compatible
storage is configured (settings, ``CMS_MEDIA_STORAGE=s3``). A key is a relative path inside that storage. Keys we
generate are ``YYYY/MM/<ulid>-<name>.<ext>``; keys sent by clients (files already in storage) are checked here before
any storage call sees them: no absolute paths, no ``..`` or empty segments, no backslashes or control characters, and
on local disk the resolved path (symbolic links followed) must stay inside the media root.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import PurePosixPath
from urllib.parse import quote

from django.conf import settings
from django.core.exceptions import SuspiciousFileOperation
from django.core.files.storage import FileSystemStorage, Storage, default_storage

from apps.core.errors import storage_unreachable
from apps.core.ids import new_id
from apps.core.slugs import slugify
from apps.core.timefmt import now
from apps.media.errors import StorageUnavailable

logger = logging.getLogger("cms.media")
MAX_KEY_LENGTH = 512
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_EXTENSION = re.compile(r"^\.[a-z0-9]{1,8}$")


def media_storage() -> Storage:
    return default_storage


@contextmanager
def reachable(what: str = "media", message: str | None = None) -> Iterator[None]:
    """Storage calls inside: a storage that is unreachable, hung past its timeouts or failing (5xx) becomes
    ``StorageUnavailable`` (503 with Retry-After). Some of botocore's timeouts are OSErrors: wrapping the call
    inside a caller's ``except OSError`` (a missing file) keeps an outage from passing for a missing file. ``what``
    and ``message`` name another storage (the importer's)."""
    try:
        yield
    except Exception as error:
        if not storage_unreachable(error):
            raise
        logger.warning("%s storage unavailable: %s: %s", what, type(error).__name__, error)
        raise StorageUnavailable(message) from error


def is_local(storage: Storage | None = None) -> bool:
    """Local disk: files are served by ``GET /media/file/:key`` (SPEC §4.3: "available for local storage only")."""
    return isinstance(storage or media_storage(), FileSystemStorage)


def key_problem(key: object) -> str | None:
    """Why ``key`` is not an acceptable storage key, or None."""
    if not isinstance(key, str) or not key:
        return "Expected a storage key such as 2026/01/photo.jpg."
    if len(key) > MAX_KEY_LENGTH:
        return f"At most {MAX_KEY_LENGTH} characters."
    if _CONTROL.search(key) or "\\" in key:
        return "Control characters and backslashes are not allowed in a storage key."
    if key.startswith(("/", "~")) or re.match(r"^[A-Za-z]:", key):
        return "A storage key is relative to the media root: no leading '/', '~' or drive letter."
    segments = key.split("/")
    if any(segment in ("", ".", "..") for segment in segments):
        return "A storage key has no empty, '.' or '..' segments."
    if any(key.startswith(prefix) for prefix in settings.CMS_MEDIA_RESERVED_KEY_PREFIXES):
        # Import exports share the bucket (settings.py): recording one as media would publish private data.
        return "The key is reserved for the CMS's own files."
    if is_local() and local_path(key) is None:
        return "The key points outside the media root."
    return None


def local_path(key: str) -> str | None:
    """The file's absolute path on local storage if it is inside the media root (links resolved), else None."""
    storage = media_storage()
    if not isinstance(storage, FileSystemStorage):
        return None
    try:
        path = storage.path(key)
    except (SuspiciousFileOperation, ValueError):
        return None
    root = os.path.realpath(storage.location)
    real = os.path.realpath(path)
    if real != root and not real.startswith(root + os.sep):
        return None
    return path


def new_key(filename: str, extension: str | None, *, item_id: str | None = None) -> str:
    """A fresh, unique key that keeps a readable form of the original name: ``2026/01/01hx…-holiday-photo.jpg``."""
    stem = slugify(PurePosixPath(filename).stem, max_length=60) or "file"
    suffix = (extension or PurePosixPath(filename).suffix).lower()
    if suffix and not suffix.startswith("."):
        suffix = "." + suffix
    if not _EXTENSION.match(suffix):
        suffix = ""
    return f"{now():%Y/%m}/{(item_id or new_id()).lower()}-{stem}{suffix}"


def media_url(key: str) -> str:
    """The public address of a stored file: our download route on local disk, the storage's own URL otherwise."""
    storage = media_storage()
    if is_local(storage):
        return f"{settings.CMS_BASE_URL}{settings.CMS_API_PREFIX}/media/file/{quote(key, safe='/')}"
    return storage.url(key)


# --- Readiness (apps/core/readiness.py) ------------------------------------------------------------------------------

READINESS_TIMEOUT = 0.5
_probes: dict[tuple[str, str], Storage] = {}


def _probe_storage(alias: str) -> Storage:
    """The storage of ``alias``; for S3, a twin with half-second timeouts and no retry, so that a hung store costs
    readiness about a second, not the minute the storage's own settings allow an upload. Built once per process
    and configuration (a boto3 client costs tens of milliseconds)."""
    from django.core.files.storage import storages

    config = settings.STORAGES[alias]
    options = config.get("OPTIONS", {})
    if config.get("BACKEND") != "storages.backends.s3.S3Storage":
        return storages[alias]
    key = (alias, repr(sorted((name, value) for name, value in options.items() if name != "client_config")))
    probe = _probes.get(key)
    if probe is None:
        from botocore.config import Config
        from storages.backends.s3 import S3Storage

        short = Config(
            connect_timeout=READINESS_TIMEOUT,
            read_timeout=READINESS_TIMEOUT,
            retries={"total_max_attempts": 1, "mode": "standard"},
        )
        probe = _probes[key] = S3Storage(**{**options, "client_config": short})
    return probe


def storage_readiness(alias: str, what: str):
    """A readiness check of the storage ``alias``: it answers a lookup of a key nobody writes. Not applicable on
    local disk, which is this machine's own (issue 24 asks for object storage "when configured")."""
    from apps.core.readiness import failed, passed

    def check():
        from django.core.files.storage import storages

        if isinstance(storages[alias], FileSystemStorage):
            return None
        try:
            _probe_storage(alias).exists(".cms-readiness")
        except Exception as error:
            logger.warning("readiness: %s storage: %s: %s", what, type(error).__name__, error)
            if storage_unreachable(error):
                return failed("Not reachable.")
            status = getattr(error, "response", {}).get("ResponseMetadata", {}).get("HTTPStatusCode")
            if status:
                return failed(f"Refused the request (HTTP {status}); check the credentials and the bucket.")
            return failed("The lookup failed; the server log has the error.")
        return passed()

    return check
