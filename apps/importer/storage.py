"""Where uploaded exports are kept between analyze and execute: the ``imports`` storage of ``settings.STORAGES``.

Every write, read and delete of an export goes through that storage, never through a path of this machine, so any
node and any worker can run any import when the storage is shared (S3, or a shared mount): issue 24. A stored
export's name (``ImportAnalysis.file``) is its name in the storage; on local disk that is the path relative to
``CMS_IMPORT_DIR`` it always was, so exports kept before stay readable.

The parser reads a file by path (the read-ahead process opens it again), so a read gets a local path: the storage's
own file when it is a FileSystemStorage, else a temporary copy streamed from the storage and deleted once the read
ends.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.files import File
from django.core.files.storage import FileSystemStorage, Storage, storages

from apps.importer.errors import ImportFileMissing
from apps.media import storage as media_storage

ALIAS = "imports"
UNAVAILABLE = "The import storage is not reachable: nothing was stored or changed. Retry shortly."
COPY_CHUNK = 1024 * 1024


class ImportDirStorage(FileSystemStorage):
    """Local disk under ``settings.CMS_IMPORT_DIR``, read at each use (as FileSystemStorage follows MEDIA_ROOT), so a
    changed setting is followed without rebuilding the storage."""

    @property
    def base_location(self) -> str:
        return self._value_or_setting(self._location, str(settings.CMS_IMPORT_DIR))

    @property
    def location(self) -> str:
        return os.path.abspath(self.base_location)


@dataclass(frozen=True)
class StoredExport:
    """What a job reads when its source is an uploaded file: the export's name in the import storage."""

    name: str


def import_storage() -> Storage:
    return storages[ALIAS]


def reachable() -> AbstractContextManager[None]:
    """Storage calls inside: an object store that is unreachable, hung past its timeouts or failing (5xx) is 503 with
    Retry-After, as for media, not a 500 or a missing file."""
    return media_storage.reachable("import", UNAVAILABLE)


def node_local(storage: Storage | None = None) -> bool:
    """Whether the storage keeps files on this machine's disk (any FileSystemStorage, whatever its location)."""
    return isinstance(storage or import_storage(), FileSystemStorage)


def spool() -> tuple[int, Path]:
    """A fresh local temporary file (descriptor, path) beside Django's upload spool."""
    handle, name = tempfile.mkstemp(prefix="cms-import-", suffix=".xml", dir=settings.FILE_UPLOAD_TEMP_DIR)
    return handle, Path(name)


class _Spooled(File):
    """A spooled file FileSystemStorage may move into place instead of copying it (Django's upload protocol)."""

    def temporary_file_path(self) -> str:
        return self.name


def keep(path: Path, name: str) -> str:
    """Put the local file ``path`` into the import storage as ``name``; the name it got. A store that fails leaves
    nothing behind in the storage (a partly written file is deleted)."""
    storage = import_storage()
    try:
        with reachable(), open(path, "rb") as handle:
            return storage.save(name, _Spooled(handle, name=str(path)))
    except BaseException:
        with suppress(Exception):
            storage.delete(name)
        raise


def exists(name: str) -> bool:
    with reachable():
        return bool(name) and import_storage().exists(name)


def delete(name: str) -> None:
    if name:
        with reachable():
            import_storage().delete(name)


@contextmanager
def local_copy(name: str) -> Iterator[Path]:
    """A local path holding the stored export while the block runs; ``ImportFileMissing`` when the storage no longer
    has it (pruned, or kept on another machine's disk)."""
    storage = import_storage()
    if node_local(storage):
        # Only files on disk are read in place: some other storages answer path() with a path they do not use.
        path = storage.path(name)
        if not os.path.isfile(path):
            raise ImportFileMissing
        yield Path(path)
        return
    try:
        with reachable():
            source = storage.open(name, "rb")
    except FileNotFoundError as error:
        raise ImportFileMissing from error
    handle, copy = spool()
    try:
        with reachable(), source, os.fdopen(handle, "wb") as target:
            shutil.copyfileobj(source, target, COPY_CHUNK)
        yield copy
    finally:
        copy.unlink(missing_ok=True)


def stored_records(fetch: Callable[[Any], Iterable[Any]], name: str) -> Iterator[Any]:
    """The records ``fetch`` reads from the stored export; a temporary copy lives as long as this iterator (a
    worker keeps it open across slices) and goes when it is exhausted or closed."""
    with local_copy(name) as path:
        yield from fetch(path)


def names() -> Iterator[str]:
    """The files at the top of the import storage (exports are kept there, one per analysis)."""
    try:
        with reachable():
            _, files = import_storage().listdir("")
    except FileNotFoundError:
        return iter(())
    return iter(files)
