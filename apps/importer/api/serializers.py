"""Import request and answer shapes on the wire (SPEC §4.10; the answers SPEC leaves "not shown" are described in
docs/decisions.md), their presenters and OpenAPI documentation."""

from __future__ import annotations

import json

from rest_framework import serializers

from apps.core.timefmt import iso
from apps.importer.models import ImportAnalysis, ImportJob

# --- input -----------------------------------------------------------------------------------------------------------


class ProbeIn(serializers.Serializer):
    url = serializers.CharField(max_length=2000, help_text="The site's address, e.g. https://example.com.")


class AnalyzeIn(serializers.Serializer):
    file = serializers.FileField(help_text="The WordPress export (.xml, WXR 1.0 to 1.2).")


class AnalyzeRemoteIn(serializers.Serializer):
    source = serializers.CharField(max_length=63, help_text="A source with an API, e.g. blogplatform-hosted.")
    url = serializers.CharField(max_length=2000, help_text="The site's address.")
    accessToken = serializers.CharField(
        max_length=4000,
        required=False,
        help_text="OAuth access token of the platform (drafts, private content).",
    )


class ImportPostTypeIn(serializers.Serializer):
    name = serializers.CharField(
        max_length=100, help_text="The WordPress post type, e.g. post, page, product."
    )
    collection = serializers.CharField(
        max_length=63,
        required=False,
        help_text="Target collection slug; default posts, pages or the type's name.",
    )
    enabled = serializers.BooleanField(default=True)


class PrepareIn(serializers.Serializer):
    postTypes = serializers.ListField(child=ImportPostTypeIn(), allow_empty=False)
    analysisId = serializers.CharField(
        max_length=26,
        required=False,
        help_text="When given, every name must be a post type of that analysis.",
    )


class ImportMappingIn(serializers.Serializer):
    collection = serializers.CharField(max_length=63, required=False)
    enabled = serializers.BooleanField(default=True)


class ImportOptionsIn(serializers.Serializer):
    includeMedia = serializers.BooleanField(
        default=False, help_text="Download attachments (and rewrite URLs)."
    )
    includeTaxonomies = serializers.BooleanField(default=True)
    includeMenus = serializers.BooleanField(default=True)


class ExecuteIn(serializers.Serializer):
    analysisId = serializers.CharField(max_length=26)
    options = ImportOptionsIn(required=False)
    postTypeMappings = serializers.DictField(
        child=ImportMappingIn(), required=False, help_text="Post type → {collection, enabled}."
    )
    authorMappings = serializers.DictField(
        child=serializers.CharField(max_length=254),
        required=False,
        help_text="Author login → user id or email of a user of this service.",
    )


class ExecuteConfigIn(serializers.Serializer):
    """What the multipart ``config`` part holds (a JSON text)."""

    options = ImportOptionsIn(required=False)
    postTypeMappings = serializers.DictField(child=ImportMappingIn(), required=False)
    authorMappings = serializers.DictField(child=serializers.CharField(max_length=254), required=False)


class JsonTextField(serializers.CharField):
    def to_internal_value(self, data):
        text = super().to_internal_value(data)
        try:
            value = json.loads(text)
        except ValueError as error:
            raise serializers.ValidationError(f"Not valid JSON: {error}.") from None
        if not isinstance(value, dict):
            raise serializers.ValidationError("Expected a JSON object.")
        return value


class ExecuteUploadIn(serializers.Serializer):
    file = serializers.FileField(help_text="The WordPress export (.xml).")
    config = JsonTextField(
        required=False,
        help_text='JSON text: {"postTypeMappings": {"post": {"collection": "posts"}}, "authorMappings": {…}, '
        '"options": {…}}.',
    )


class ImportAttachmentIn(serializers.Serializer):
    # WordPress post ids are unsigned 64-bit at most; a larger number is no post id (and JSON cannot echo it back).
    id = serializers.IntegerField(
        min_value=0, max_value=2**63 - 1, help_text="The attachment's post id in the export."
    )
    url = serializers.URLField(max_length=2000)


class MediaIn(serializers.Serializer):
    attachments = serializers.ListField(child=ImportAttachmentIn(), allow_empty=False, max_length=10000)
    stream = serializers.BooleanField(
        default=False, help_text="Answer NDJSON progress lines, then the result."
    )


class RewriteIn(serializers.Serializer):
    urlMap = serializers.DictField(
        child=serializers.CharField(max_length=2000), allow_empty=False, help_text="Old URL → new URL."
    )


# --- output ----------------------------------------------------------------------------------------------------------


class ImportProbeMatchOut(serializers.Serializer):
    source = serializers.CharField()
    name = serializers.CharField()
    confidence = serializers.FloatField(help_text="0 (not this platform) to 1 (certain).")
    details = serializers.DictField(help_text="What the probe found: site name, counts, notes.")


class ImportSuggestedActionOut(serializers.Serializer):
    action = serializers.CharField(help_text="oauth, export or upload.")
    source = serializers.CharField(allow_null=True)
    message = serializers.CharField()


class ProbeOut(serializers.Serializer):
    url = serializers.CharField()
    best = ImportProbeMatchOut(allow_null=True)
    matches = ImportProbeMatchOut(many=True)
    suggestedAction = ImportSuggestedActionOut()


class ImportConflictOut(serializers.Serializer):
    field = serializers.CharField()
    expected = serializers.CharField()
    found = serializers.CharField()


class ImportPostTypeOut(serializers.Serializer):
    name = serializers.CharField()
    count = serializers.IntegerField()
    statuses = serializers.DictField(child=serializers.IntegerField(), help_text="Source status → count.")
    taxonomies = serializers.ListField(child=serializers.CharField())
    featuredImages = serializers.BooleanField()
    collection = serializers.CharField()
    enabled = serializers.BooleanField()
    status = serializers.CharField(
        help_text="SPEC §4.10 rule 3: ready, new_collection, add_fields or incompatible."
    )
    missingFields = serializers.ListField(child=serializers.CharField())
    conflicts = ImportConflictOut(many=True)


class ImportTaxonomyOut(serializers.Serializer):
    name = serializers.CharField()
    terms = serializers.IntegerField()
    hierarchical = serializers.BooleanField()
    postTypes = serializers.ListField(child=serializers.CharField())


class ImportAuthorOut(serializers.Serializer):
    login = serializers.CharField()
    email = serializers.CharField(allow_blank=True)
    displayName = serializers.CharField()
    posts = serializers.IntegerField()


class ImportReusableBlockOut(serializers.Serializer):
    id = serializers.JSONField()
    title = serializers.CharField(allow_blank=True)


class ImportMenuOut(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    items = serializers.IntegerField()


class ImportCountOut(serializers.Serializer):
    key = serializers.CharField()
    count = serializers.IntegerField()


class ImportLanguageOut(serializers.Serializer):
    code = serializers.CharField()
    count = serializers.IntegerField()


class ImportSkippedOut(serializers.Serializer):
    postType = serializers.CharField()
    count = serializers.IntegerField()
    reason = serializers.CharField()


class ImportSiteOut(serializers.Serializer):
    title = serializers.CharField(allow_blank=True)
    link = serializers.CharField(allow_blank=True)
    description = serializers.CharField(allow_blank=True)
    language = serializers.CharField(allow_blank=True)
    wxrVersion = serializers.CharField(allow_blank=True)
    baseSiteUrl = serializers.CharField(allow_blank=True)
    baseBlogUrl = serializers.CharField(allow_blank=True)


class AnalysisOut(serializers.Serializer):
    analysisId = serializers.CharField()
    filename = serializers.CharField()
    size = serializers.IntegerField()
    site = ImportSiteOut()
    itemCount = serializers.IntegerField()
    postTypes = ImportPostTypeOut(many=True)
    taxonomies = ImportTaxonomyOut(many=True)
    authors = ImportAuthorOut(many=True)
    attachments = serializers.IntegerField()
    reusableBlocks = ImportReusableBlockOut(many=True)
    menus = ImportMenuOut(many=True)
    customFields = ImportCountOut(many=True)
    languages = ImportLanguageOut(many=True)
    skipped = ImportSkippedOut(many=True)
    notes = serializers.ListField(
        child=serializers.DictField(),
        help_text="Things of the file that were skipped ({kind, reason, line}) or repaired ({code, message, line}: "
        "bytes that are not UTF-8, replaced by U+FFFD).",
    )


class ImportPreparedOut(serializers.Serializer):
    postType = serializers.CharField()
    collection = serializers.CharField()
    collectionCreated = serializers.BooleanField()
    fieldsAdded = serializers.ListField(child=serializers.CharField())


class PrepareOut(serializers.Serializer):
    collections = ImportPreparedOut(many=True)


class ImportFailedItemOut(serializers.Serializer):
    sourceId = serializers.JSONField()
    postType = serializers.CharField()
    title = serializers.CharField(allow_blank=True)
    reason = serializers.CharField()
    entryId = serializers.CharField(
        allow_null=True, help_text="The draft holding the original in _importError."
    )
    line = serializers.IntegerField(allow_null=True)


class ImportFailedMediaOut(serializers.Serializer):
    id = serializers.JSONField()
    url = serializers.CharField()
    error = serializers.CharField()
    reason = serializers.CharField(
        help_text="unreachable, timeout, blocked (not a public address), httpStatus, tooLarge, refusedType, "
        "invalid (empty or unreadable) or other."
    )


class ImportSummaryOut(serializers.Serializer):
    site = serializers.CharField(allow_blank=True)
    imported = serializers.DictField(
        child=serializers.DictField(child=serializers.IntegerField()),
        help_text="Collection → {created, updated, unchanged}.",
    )
    kinds = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="entries, attachments, media, terms, taxonomies, bylines, sections, menus, menuItems, collections, "
        "failed …",
    )
    warnings = serializers.ListField(
        child=serializers.DictField(),
        help_text="{code, message, …}: renamed slugs, skipped things (first 500).",
    )
    warningCount = serializers.IntegerField()
    failed = ImportFailedItemOut(many=True)
    skipped = ImportSkippedOut(many=True)
    media = serializers.DictField(
        help_text="{imported, failed, urlsRewritten} when media were imported; {current, total} while they download."
    )


class ImportJobErrorOut(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()
    details = serializers.JSONField()


class ImportProgressOut(serializers.Serializer):
    current = serializers.IntegerField(help_text="Source items done.")
    total = serializers.IntegerField(help_text="Source items in the file.")
    phase = serializers.CharField(help_text="start, terms, items, links, media, done.")


class JobOut(serializers.Serializer):
    id = serializers.CharField()
    state = serializers.CharField(help_text="queued, running, paused, failed or completed.")
    source = serializers.CharField()
    analysisId = serializers.CharField(allow_null=True)
    progress = ImportProgressOut()
    options = serializers.DictField()
    summary = ImportSummaryOut(allow_null=True)
    error = ImportJobErrorOut(allow_null=True)
    createdAt = serializers.CharField()
    updatedAt = serializers.CharField()
    startedAt = serializers.CharField(allow_null=True)
    finishedAt = serializers.CharField(allow_null=True)


class MediaResultOut(serializers.Serializer):
    type = serializers.CharField(help_text="result")
    imported = serializers.IntegerField()
    failed = ImportFailedMediaOut(many=True)
    urlMap = serializers.DictField(
        child=serializers.CharField(), help_text="Old URL → URL of the stored file."
    )
    remaining = ImportAttachmentIn(
        many=True,
        help_text="Attachments not reached within the request's time budget; send them again.",
    )


class RewriteOut(serializers.Serializer):
    entriesScanned = serializers.IntegerField()
    entriesUpdated = serializers.IntegerField()
    sectionsUpdated = serializers.IntegerField()
    urlsReplaced = serializers.IntegerField()


# --- presenters ------------------------------------------------------------------------------------------------------


def present_analysis(analysis: ImportAnalysis, plan: list[dict]) -> dict:
    result = analysis.result
    site = result.get("site") or {}
    return {
        "analysisId": analysis.pk,
        "filename": analysis.filename,
        "size": analysis.size,
        "site": {key: site.get(key) or "" for key in ImportSiteOut().fields},
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


def present_job(job: ImportJob) -> dict:
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
