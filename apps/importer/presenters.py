"""Import answers on the wire (SPEC §4.10; the answers SPEC leaves "not shown" are described in docs/decisions.md):
each shape once, with the function that builds it where the face builds it (the services return probe, prepare,
media and rewrite results already in these shapes)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from apps.core.shapes import Timestamp, TypedDict
from apps.core.timefmt import iso
from apps.importer.models import ImportAnalysis, ImportJob

# --- probe -----------------------------------------------------------------------------------------------------------


class ImportProbeMatchOut(TypedDict):
    source: str
    name: str
    confidence: Annotated[float, Field(description="0 (not this platform) to 1 (certain).")]
    details: Annotated[dict[str, Any], Field(description="What the probe found: site name, counts, notes.")]


class ImportSuggestedActionOut(TypedDict):
    action: Annotated[str, Field(description="oauth, export or upload.")]
    source: str | None
    message: str


class ImportProbeOut(TypedDict):
    url: str
    best: ImportProbeMatchOut | None
    matches: list[ImportProbeMatchOut]
    suggestedAction: ImportSuggestedActionOut


# --- analysis --------------------------------------------------------------------------------------------------------


class ImportConflictOut(TypedDict):
    field: str
    expected: str
    found: str


class ImportPostTypeOut(TypedDict):
    name: str
    count: int
    statuses: Annotated[dict[str, int], Field(description="Source status → count.")]
    taxonomies: list[str]
    featuredImages: bool
    collection: str
    enabled: bool
    status: Annotated[
        str, Field(description="SPEC §4.10 rule 3: ready, new_collection, add_fields or incompatible.")
    ]
    missingFields: list[str]
    conflicts: list[ImportConflictOut]


class ImportTaxonomyOut(TypedDict):
    name: str
    terms: int
    hierarchical: bool
    postTypes: list[str]


class ImportAuthorOut(TypedDict):
    login: str
    email: str
    displayName: str
    posts: int


class ImportReusableBlockOut(TypedDict):
    id: Any
    title: str


class ImportMenuOut(TypedDict):
    slug: str
    name: str
    items: int


class ImportCountOut(TypedDict):
    key: str
    count: int


class ImportLanguageOut(TypedDict):
    code: str
    count: int


class ImportSkippedOut(TypedDict):
    postType: str
    count: int
    reason: str


class ImportSiteOut(TypedDict):
    title: str
    link: str
    description: str
    language: str
    wxrVersion: str
    baseSiteUrl: str
    baseBlogUrl: str


class ImportAnalysisOut(TypedDict):
    analysisId: str
    filename: str
    size: int
    site: ImportSiteOut
    itemCount: int
    postTypes: list[ImportPostTypeOut]
    taxonomies: list[ImportTaxonomyOut]
    authors: list[ImportAuthorOut]
    attachments: int
    reusableBlocks: list[ImportReusableBlockOut]
    menus: list[ImportMenuOut]
    customFields: list[ImportCountOut]
    languages: list[ImportLanguageOut]
    skipped: list[ImportSkippedOut]
    notes: Annotated[
        list[dict[str, Any]],
        Field(
            description="Things of the file that were skipped ({kind, reason, line}) or repaired ({code, message, "
            "line}: bytes that are not UTF-8, replaced by U+FFFD)."
        ),
    ]


def present_analysis(analysis: ImportAnalysis, plan: list[ImportPostTypeOut]) -> ImportAnalysisOut:
    result = analysis.result
    site = result.get("site") or {}
    return {
        "analysisId": analysis.pk,
        "filename": analysis.filename,
        "size": analysis.size,
        "site": {key: site.get(key) or "" for key in ImportSiteOut.__annotations__},  # type: ignore[misc]
        "itemCount": result.get("itemCount", 0),
        "postTypes": plan,
        "taxonomies": result.get("taxonomies", []),
        "authors": result.get("authors", []),
        "attachments": result.get("attachments", 0),
        "reusableBlocks": result.get("reusableBlocks", []),
        "menus": result.get("menus", []),
        "customFields": result.get("customFields", []),
        "languages": result.get("languages", []),
        "skipped": result.get("skipped", []),
        "notes": result.get("notes", []),
    }


# --- prepare ---------------------------------------------------------------------------------------------------------


class ImportPreparedOut(TypedDict):
    postType: str
    collection: str
    collectionCreated: bool
    fieldsAdded: list[str]


class ImportPrepareOut(TypedDict):
    collections: list[ImportPreparedOut]


# --- jobs ------------------------------------------------------------------------------------------------------------


class ImportFailedItemOut(TypedDict):
    sourceId: Any
    postType: str
    title: str
    reason: str
    entryId: Annotated[str | None, Field(description="The draft holding the original in _importError.")]
    line: int | None


class ImportSummaryOut(TypedDict):
    site: str
    imported: Annotated[
        dict[str, dict[str, int]], Field(description="Collection → {created, updated, unchanged}.")
    ]
    kinds: Annotated[
        dict[str, int],
        Field(
            description="entries, attachments, media, terms, taxonomies, bylines, sections, menus, menuItems, "
            "collections, failed …"
        ),
    ]
    warnings: Annotated[
        list[dict[str, Any]],
        Field(description="{code, message, …}: renamed slugs, skipped things (first 500)."),
    ]
    warningCount: int
    failed: list[ImportFailedItemOut]
    skipped: list[ImportSkippedOut]
    media: Annotated[
        dict[str, Any],
        Field(
            description="{imported, failed, urlsRewritten} when media were imported; {current, total} while they "
            "download."
        ),
    ]


class ImportJobErrorOut(TypedDict):
    code: str
    message: str
    details: Any


class ImportProgressOut(TypedDict):
    current: Annotated[int, Field(description="Source items done.")]
    total: Annotated[int, Field(description="Source items in the file.")]
    phase: Annotated[str, Field(description="start, terms, items, links, media, done.")]


class ImportJobOut(TypedDict):
    id: str
    state: Annotated[str, Field(description="queued, running, paused, failed or completed.")]
    source: str
    analysisId: str | None
    progress: ImportProgressOut
    options: dict[str, Any]
    summary: ImportSummaryOut | None
    error: ImportJobErrorOut | None
    createdAt: Timestamp
    updatedAt: Timestamp
    startedAt: Timestamp | None
    finishedAt: Timestamp | None


def present_job(job: ImportJob) -> ImportJobOut:
    total = (job.analysis.result.get("itemCount", 0) if job.analysis else 0) or job.total
    summary = job.summary or None
    return {
        "id": job.pk,
        "state": job.state,
        "source": job.source,
        "analysisId": job.analysis_id,
        "progress": {"current": job.cursor, "total": total, "phase": job.phase},
        "options": {key: value for key, value in job.options.items() if key != "site"},
        "summary": summary if summary and "kinds" in summary else None,
        "error": job.error,
        "createdAt": iso(job.created_at),
        "updatedAt": iso(job.updated_at),
        "startedAt": iso(job.started_at),
        "finishedAt": iso(job.finished_at),
    }


# --- media and URL rewriting -----------------------------------------------------------------------------------------


class ImportFailedMediaOut(TypedDict):
    id: Any
    url: str
    error: str
    reason: Annotated[
        str,
        Field(
            description="unreachable, timeout, blocked (not a public address), httpStatus, tooLarge, refusedType, "
            "invalid (empty or unreadable) or other."
        ),
    ]


class ImportAttachmentOut(TypedDict):
    """An attachment as ImportAttachmentIn takes it, to be sent again."""

    id: Annotated[int, Field(ge=0, le=2**63 - 1, description="The attachment's post id in the export.")]
    url: Annotated[str, Field(max_length=2000, json_schema_extra={"format": "uri"})]


class ImportMediaResultOut(TypedDict):
    type: Annotated[str, Field(description="result")]
    imported: int
    failed: list[ImportFailedMediaOut]
    urlMap: Annotated[dict[str, str], Field(description="Old URL → URL of the stored file.")]
    remaining: Annotated[
        list[ImportAttachmentOut],
        Field(description="Attachments not reached within the request's time budget; send them again."),
    ]


def present_media_result(result: dict[str, Any]) -> ImportMediaResultOut:
    return {
        "type": "result",
        "imported": result["imported"],
        "failed": result["failed"],
        "urlMap": result["urlMap"],
        "remaining": result["remaining"],
    }


class ImportRewriteOut(TypedDict):
    entriesScanned: int
    entriesUpdated: int
    sectionsUpdated: int
    urlsReplaced: int
