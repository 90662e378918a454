"""Faults to inject: a disk that fills up while media is being written."""

from __future__ import annotations

import errno
import os

from django.core.files.base import ContentFile
from django.core.files.storage import FileSystemStorage


class FullDisk:
    """From the ``after``-th file on, FileSystemStorage writes the first half of each file, then fails with ``code``
    as a full disk does, leaving that half behind. ``partial`` lists the paths it left, to show the cleanup had
    something to clean; ``freed()`` ends the fault."""

    def __init__(self, monkeypatch, code: int = errno.ENOSPC, *, after: int = 0):
        self.monkeypatch = monkeypatch
        self.partial: list[str] = []
        saves = 0
        real_save = FileSystemStorage._save

        def _save(storage, name, content):
            nonlocal saves
            saves += 1
            if saves <= after:
                return real_save(storage, name, content)
            content.seek(0)
            data = content.read()
            written = storage.path(real_save(storage, name, ContentFile(data[: len(data) // 2])))
            assert os.path.getsize(written) == len(data) // 2
            self.partial.append(written)
            raise OSError(code, os.strerror(code), written)

        monkeypatch.setattr(FileSystemStorage, "_save", _save)

    def freed(self) -> None:
        self.monkeypatch.undo()
