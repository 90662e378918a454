"""The ``wxr`` import source: an uploaded WordPress export file (SPEC §4.10, no probe, full import)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from django.conf import settings

from apps.importer.analysis import analyze_records
from apps.importer.readahead import read_ahead
from apps.importer.sources.wxr import read_wxr
from apps.plugins.base import ImportSourceContribution


def analyze(path: str | os.PathLike) -> dict[str, Any]:
    # Counting needs no Portable Text: skipping the conversion makes analysis a plain parse.
    return analyze_records(read_wxr(path, convert=False))


def fetch(path: str | os.PathLike) -> Iterator[Any]:
    # Large files are parsed and converted in a second process while this one writes (apps/importer/readahead.py).
    if os.path.getsize(path) >= settings.CMS_IMPORT_READ_AHEAD_BYTES:
        return read_ahead(read_wxr, path)
    return read_wxr(path)


source = ImportSourceContribution(id="wxr", name="WordPress export file (WXR)", analyze=analyze, fetch=fetch)
