"""Uploads and their analyses (SPEC §4.10 rule 2): the export is kept server-side, analysed, and recorded, so that
prepare and execute name it by ``analysisId``; stored exports nothing needs any more are pruned."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import IO, Any

from django.conf import settings

from apps.accounts.permissions import Actor, authorize
from apps.core.errors import InsufficientStorage, PayloadTooLarge, ValidationError, storage_full
from apps.core.ids import new_id
from apps.core.memory import bulk_work
from apps.importer import registry
from apps.importer.errors import InvalidImportFile
from apps.importer.models import ImportAnalysis, ImportJob, JobState
from apps.importer.sources.wxr import WxrError

logger = logging.getLogger("cms.importer")

COPY_CHUNK = 1024 * 1024


def import_dir() -> Path:
    path = Path(settings.CMS_IMPORT_DIR)
    path.mkdir(parents=True, exist_ok=True)
    return path


def _store_upload(file: IO[bytes], name: str) -> int:
    """Copy the upload next to the other imports in chunks; its size in bytes. Nothing is left of a copy that fails
    (too large, disk full)."""
    size = 0
    if hasattr(file, "seek"):
        file.seek(0)
    path = import_dir() / name
    try:
        with open(path, "wb") as target:
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
        if storage_full(error):
            logger.error("import directory full", exc_info=error)
            raise InsufficientStorage(
                "The server's storage is full: the export could not be kept for the import. Try again once space "
                "has been freed."
            ) from error
        raise
    return size


def analysis_path(analysis: ImportAnalysis) -> Path:
    return import_dir() / analysis.file


def run_analysis(source_id: str, path: Path) -> dict[str, Any]:
    """The source's analysis of a stored file; an unreadable file is VALIDATION_ERROR naming the line."""
    source = registry.get_source(source_id)
    try:
        with bulk_work():
            return source.analyze(path)
    except WxrError as error:
        raise InvalidImportFile(error.message, line=error.line) from error


def analysis_create(*, actor: Actor, file: IO[bytes], filename: str, source: str = "wxr") -> ImportAnalysis:
    """Keep the upload server-side, analyse it, and record both (``analysisId`` for prepare and execute)."""
    authorize(actor, "import.run")
    analysis_id = new_id()
    stored = f"{analysis_id}.xml"
    size = _store_upload(file, stored)
    if size == 0:
        (import_dir() / stored).unlink(missing_ok=True)
        raise ValidationError(details={"file": "The file is empty."})
    try:
        result = run_analysis(source, import_dir() / stored)
    except BaseException:
        # Refused or not, an upload that did not become an analysis is never kept.
        (import_dir() / stored).unlink(missing_ok=True)
        raise
    return ImportAnalysis.objects.create(
        id=analysis_id,
        source=source,
        filename=(filename or "export.xml")[:255],
        file=stored,
        size=size,
        result=result,
        created_by=actor.user,
    )


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
    path = analysis_path(analysis)
    if path.exists():
        path.unlink()


def analyses_prune(*, older_than_days: int) -> dict[str, int]:
    """Delete stored exports (and their analyses) older than the given age that no unfinished job still needs, and
    files in the import directory that no analysis names. Finished jobs keep their summary."""
    from datetime import timedelta

    from apps.core.timefmt import now

    cutoff = now() - timedelta(days=older_than_days)
    unfinished = ImportJob.objects.exclude(state=JobState.COMPLETED).exclude(state=JobState.FAILED)
    busy = set(unfinished.exclude(analysis=None).values_list("analysis_id", flat=True))
    stale = ImportAnalysis.objects.filter(created_at__lt=cutoff).exclude(pk__in=busy)
    removed = 0
    for analysis in stale:
        if analysis.file:
            (import_dir() / analysis.file).unlink(missing_ok=True)
        removed += 1
    stale.delete()
    named = set(ImportAnalysis.objects.exclude(file="").values_list("file", flat=True))
    orphans = 0
    for path in import_dir().iterdir():
        if path.is_file() and path.name not in named and path.stat().st_mtime < cutoff.timestamp():
            path.unlink(missing_ok=True)
            orphans += 1
    return {"analyses": removed, "orphanFiles": orphans}
