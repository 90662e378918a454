"""Uploads and their analyses (SPEC §4.10 rule 2): the export is kept server-side, analysed, and recorded, so that
prepare and execute name it by ``analysisId``; stored exports nothing needs any more are pruned."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import IO, Any

from django.conf import settings

from apps.accounts.permissions import Actor, authorize
from apps.core.errors import InsufficientStorage, PayloadTooLarge, ValidationError, storage_full
from apps.core.ids import new_id
from apps.core.memory import bulk_work
from apps.importer import registry, storage
from apps.importer.errors import InvalidImportFile
from apps.importer.models import ImportAnalysis, ImportJob, JobState
from apps.importer.sources.wxr import WxrError

logger = logging.getLogger("cms.importer")

COPY_CHUNK = 1024 * 1024


def _spool_upload(file: IO[bytes]) -> tuple[Path, int]:
    """Copy the upload in chunks to a local temporary file, to analyse it before it is kept: its path and size in
    bytes. Nothing is left of a copy that fails (too large, disk full)."""
    size = 0
    if hasattr(file, "seek"):
        file.seek(0)
    handle, path = storage.spool()
    try:
        with os.fdopen(handle, "wb") as target:
            while chunk := file.read(COPY_CHUNK):
                size += len(chunk)
                if size > settings.CMS_IMPORT_MAX_BYTES:
                    raise PayloadTooLarge(
                        f"The export is larger than the limit of {settings.CMS_IMPORT_MAX_BYTES} bytes.",
                        details={"file": f"At most {settings.CMS_IMPORT_MAX_BYTES} bytes."},
                    )
                target.write(chunk)
    except BaseException as error:
        path.unlink(missing_ok=True)
        _refuse_when_full(error)
        raise
    return path, size


def _refuse_when_full(error: BaseException) -> None:
    if storage_full(error):
        logger.error("import storage full", exc_info=error)
        raise InsufficientStorage(
            "The server's storage is full: the export could not be kept for the import. Try again once space "
            "has been freed."
        ) from error


def _keep(path: Path, name: str) -> str:
    try:
        return storage.keep(path, name)
    except BaseException as error:
        _refuse_when_full(error)
        raise


def run_analysis(source_id: str, path: Path) -> dict[str, Any]:
    """The source's analysis of a stored file; an unreadable file is VALIDATION_ERROR naming the line."""
    source = registry.get_source(source_id)
    try:
        with bulk_work():
            return source.analyze(path)
    except WxrError as error:
        raise InvalidImportFile(error.message, line=error.line) from error


def analysis_create(*, actor: Actor, file: IO[bytes], filename: str, source: str = "wxr") -> ImportAnalysis:
    """Analyse the upload and keep it in the import storage (``analysisId`` for prepare and execute): an upload that
    is refused never reaches the storage, and a kept one is never left without its analysis."""
    authorize(actor, "import.run")
    analysis_id = new_id()
    path, size = _spool_upload(file)
    try:
        if size == 0:
            raise ValidationError(details={"file": "The file is empty."})
        result = run_analysis(source, path)
        stored = _keep(path, f"{analysis_id}.xml")
    finally:
        path.unlink(missing_ok=True)
    try:
        return ImportAnalysis.objects.create(
            id=analysis_id,
            source=source,
            filename=(filename or "export.xml")[:255],
            file=stored,
            size=size,
            result=result,
            created_by=actor.user,
        )
    except BaseException:
        storage.delete(stored)
        raise


def analysis_create_remote(*, actor: Actor, source: str, source_input: dict[str, Any]) -> ImportAnalysis:
    """Analyse a site read through a source's API (``{url, accessToken}``); nothing is uploaded."""
    authorize(actor, "import.run")
    importer = registry.get_source(source)
    if importer.id == "wxr":
        raise ValidationError(
            details={"source": "The wxr source reads an uploaded file: send it as multipart."}
        )
    result = importer.analyze(source_input)
    return ImportAnalysis.objects.create(
        source=importer.id,
        filename=(source_input.get("url") or "")[:255],
        source_input=source_input,
        result=result,
        created_by=actor.user,
    )


def analysis_from_path(*, actor: Actor, path: str | Path, source: str = "wxr") -> ImportAnalysis:
    """The command-line face: analyse a file given by path (copied, so the job can resume without it)."""
    with open(path, "rb") as handle:
        return analysis_create(actor=actor, file=handle, filename=Path(path).name, source=source)


def analysis_delete_file(analysis: ImportAnalysis) -> None:
    storage.delete(analysis.file)


def analyses_prune(*, older_than_days: int) -> dict[str, int]:
    """Delete stored exports (and their analyses) older than the given age that no unfinished job still needs, and
    files in the import storage that no analysis names. Finished jobs keep their summary."""
    from datetime import timedelta

    from apps.core.timefmt import now

    cutoff = now() - timedelta(days=older_than_days)
    unfinished = ImportJob.objects.exclude(state=JobState.COMPLETED).exclude(state=JobState.FAILED)
    busy = set(unfinished.exclude(analysis=None).values_list("analysis_id", flat=True))
    stale = ImportAnalysis.objects.filter(created_at__lt=cutoff).exclude(pk__in=busy)
    removed = 0
    for analysis in stale:
        storage.delete(analysis.file)
        removed += 1
    stale.delete()
    named = set(ImportAnalysis.objects.exclude(file="").values_list("file", flat=True))
    orphans = 0
    backend = storage.import_storage()
    for name in storage.names():
        if name not in named and backend.get_modified_time(name) < cutoff:
            storage.delete(name)
            orphans += 1
    return {"analyses": removed, "orphanFiles": orphans}
