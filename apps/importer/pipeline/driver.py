"""Running a job: its phases in order from the one it stopped in, and its state when it ends, pauses or fails."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django.db import DatabaseError, InterfaceError, OperationalError, close_old_connections, transaction

from apps.content.models import Byline, Entry, EntryByline, Revision
from apps.core import events
from apps.core.db.stats import analyze
from apps.core.errors import CmsError
from apps.core.memory import bulk_work
from apps.core.timefmt import now
from apps.importer import services
from apps.importer.models import ImportJob, ImportRecord, JobState
from apps.importer.pipeline import media
from apps.importer.pipeline.entries import Entries
from apps.importer.pipeline.items import Items
from apps.importer.pipeline.links import Links
from apps.importer.pipeline.menus import Menus
from apps.importer.pipeline.sections import Sections
from apps.importer.pipeline.state import OpenReader, RunState
from apps.importer.pipeline.terms import Terms
from apps.media.models import MediaItem
from apps.search.models import SearchDocument
from apps.taxonomy.models import EntryTerm
from apps.taxonomy.models import Term as TaxonomyTerm

logger = logging.getLogger("cms.importer")

PHASES = ("start", "terms", "items", "links", "media", "done")
# The tables a finished job refreshes the planner statistics of, by the summary counter that says it wrote to them
# (counters add up over every slice of the job). An entry brings its revisions, search document, terms and credits.
ANALYZED = (
    ("entries", (Entry, Revision, SearchDocument, EntryTerm, EntryByline)),
    ("terms", (TaxonomyTerm,)),
    ("bylines", (Byline,)),
    ("media", (MediaItem,)),
)
DB_LOST = (OperationalError, InterfaceError)


def run_job(
    job: ImportJob,
    progress: Callable[[int, str], None] | None = None,
    deadline: float | None = None,
    reader: OpenReader | None = None,
) -> ImportJob:
    with bulk_work():
        state = RunState.of(job, progress=progress, deadline=deadline, reader=reader)
        return _run(state)


def _run(state: RunState) -> ImportJob:
    job = state.job
    state.save(state=JobState.RUNNING, started_at=job.started_at or now(), error=None)
    terms = Terms(state)
    sections = Sections(state)
    menus = Menus(state)
    entries = Entries(state, terms, sections)
    try:
        finished = _phases(state, terms, sections, entries, menus)
        if finished:
            # The job's end and its event (webhooks) are one write: an event for a job recorded as running is wrong.
            with transaction.atomic():
                state.save(phase="done", state=JobState.COMPLETED, finished_at=now())
                events.import_finished.send(sender=ImportJob, job=state.job, outcome="completed", actor=None)
            analysis = state.job.analysis
            if analysis is not None and analysis.source_input.get("accessToken"):
                # The token was needed to resume; a completed import keeps no credentials.
                analysis.source_input = {k: v for k, v in analysis.source_input.items() if k != "accessToken"}
                analysis.save(update_fields=["source_input", "updated_at"])
    except DB_LOST as error:
        _stop(state, JobState.PAUSED, "DATABASE_UNAVAILABLE", f"The database connection was lost: {error}")
    except CmsError as error:
        _stop(state, JobState.FAILED, error.code, error.message, error.details)
    except OSError as error:
        # Its text names the file with the server's path: the log keeps it, the job's error (shown to clients) not.
        logger.exception("import job failed", extra={"job": job.pk})
        reason = error.strerror or type(error).__name__
        _stop(
            state,
            JobState.FAILED,
            "IMPORT_ERROR",
            f"The import stopped: a file could not be read ({reason}).",
        )
    except Exception as error:
        logger.exception("import job failed", extra={"job": job.pk})
        _stop(state, JobState.FAILED, "IMPORT_ERROR", f"The import stopped: {error}")
    else:
        if finished:
            _analyze(state)
        if not finished:
            # The worker's time slice is over: the job goes back to the queue at its cursor, so other work runs
            # too. A worker that keeps the job's reader keeps the job (its lease) for its next slice.
            kept = state.reader is not None and state.reader.records is not None
            state.save(state=JobState.RUNNING if kept else JobState.QUEUED)
    return state.job


def _phases(state: RunState, terms: Terms, sections: Sections, entries: Entries, menus: Menus) -> bool:
    """The phases from the one the job stopped in; False when the items phase ended with the worker's slice."""
    job = state.job
    start = PHASES.index(job.phase) if job.phase in PHASES else 0
    if start > PHASES.index("terms"):
        state.load_collections()
    for phase in PHASES[max(start, 1) : -1]:
        if phase == "terms":
            state.save(phase="terms")
            _prepare(state)
            terms.run()
            state.save(phase="items")
        elif phase == "items":
            if not Items(state, terms, sections, entries, menus).run():
                return False
            state.save(phase="links")
        elif phase == "links":
            Links(state, sections, menus).run()
            state.save(phase="media")
        elif phase == "media" and state.options.get("includeMedia"):
            media.run(state)
    return True


def _analyze(state: RunState) -> None:
    """Fresh planner statistics for the tables the job filled, once it is recorded as completed (outside its
    transactions). Reads of imported entries were planned on the statistics of the empty tables until autovacuum
    came by: GET one ran 25% slower (issue 21). A failure here loses nothing the import wrote, so it is logged only."""
    models = [model for counter, group in ANALYZED if state.counters.get(counter) for model in group]
    if not models:
        return
    models.append(ImportRecord)
    try:
        # A savepoint when a caller holds a transaction, so a failure here does not break it.
        with transaction.atomic():
            seconds = analyze(models)
    except DatabaseError:
        logger.exception("could not analyze the imported tables", extra={"job": state.job.pk})
        return
    logger.info("import job analyzed its tables", extra={"job": state.job.pk, "seconds": round(seconds, 3)})


def _prepare(state: RunState) -> None:
    """The collections and fields of the enabled post types (``services.import_prepare``)."""
    wanted = [
        {"name": name, "collection": mapping["collection"], "enabled": mapping.get("enabled", True)}
        for name, mapping in state.mappings.items()
    ]
    created = services.import_prepare(actor=state.system, post_types=wanted)
    made = [item for item in created["collections"] if item["collectionCreated"]]
    if made:
        state.counters["collections"] += len(made)
    state.load_collections()


def _stop(state: RunState, job_state: str, code: str, message: str, details: Any = None) -> None:
    error = {"code": code, "message": message, "details": details or {}}
    job = state.job
    job.state = job_state
    job.error = error
    if code == "DATABASE_UNAVAILABLE" and not transaction.get_connection().in_atomic_block:
        # The connection itself failed: record why on a fresh one.
        close_old_connections()
        from django.db import connection

        connection.close()
    try:
        with transaction.atomic():
            ImportJob.objects.filter(pk=job.pk).update(state=job_state, error=error, updated_at=now())
            if job_state == JobState.FAILED:
                events.import_finished.send(sender=ImportJob, job=job, outcome="failed", actor=None)
    except DatabaseError:
        logger.exception("could not record the import job's state", extra={"job": job.pk})
