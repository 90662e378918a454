"""Writes of the import pipeline (SPEC §4.10): store and analyse an upload, prepare collections, create and resume
jobs, import media, rewrite URLs.

Every write to content, schema, taxonomies, menus, sections, bylines and media goes through those apps' services
(the pipeline never touches their tables); this module only writes its own rows (analyses, jobs, records). The long
part, running a job, is in ``pipeline``; ``jobs`` decides whether it runs now or in the worker.
"""

from __future__ import annotations

import logging
import re
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction

from apps.accounts.permissions import Actor, authorize
from apps.content import services as content_services
from apps.content.models import Entry, Status
from apps.core import safehttp
from apps.core.errors import (
    CmsError,
    Conflict,
    InsufficientStorage,
    PayloadTooLarge,
    ValidationError,
    storage_full,
)
from apps.core.ids import new_id
from apps.core.memory import bulk_work
from apps.core.slugs import slugify
from apps.importer import registry
from apps.importer.errors import HttpStatusError, InvalidImportFile, failure_reason
from apps.importer.mappings import author_mapping_problems, mapping_slug_problem
from apps.importer.models import ImportAnalysis, ImportJob, ImportRecord, JobState
from apps.importer.sources.wxr import WxrError
from apps.media import services as media_services
from apps.media.models import MediaItem
from apps.media.storage import media_url
from apps.schema import services as schema_services
from apps.schema.models import Collection
from apps.site import services as site_services
from apps.site.models import Section, SectionSource

logger = logging.getLogger("cms.importer")

# The fields an imported post type needs, and the stored types each accepts (SPEC §4.10 rule 3).
IMPORT_FIELDS: list[dict[str, Any]] = [
    {"slug": "title", "label": "Title", "type": "string", "searchable": True},
    {"slug": "content", "label": "Content", "type": "portableText", "searchable": True},
    {"slug": "excerpt", "label": "Excerpt", "type": "text", "searchable": True},
    {"slug": "featured_image", "label": "Featured image", "type": "image"},
]
COMPATIBLE_TYPES = {
    "title": {"string", "text"},
    "content": {"portableText"},
    "excerpt": {"text", "string"},
    "featured_image": {"image"},
}
SEARCHED_TYPES = ("post", "page")
COPY_CHUNK = 1024 * 1024


# --- uploads and analyses -------------------------------------------------------------------------------------------


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


# --- post types → collections (rule 3) ------------------------------------------------------------------------------


def default_collection(post_type: str) -> str:
    if post_type in ("post", "page"):
        return f"{post_type}s"
    slug = re.sub(r"[^a-z0-9_]", "_", post_type.lower()).strip("_")
    if not slug or not slug[0].isalpha():
        slug = f"wp_{slug}"
    return slug[:63]


def _compatibility(collection_slug: str) -> tuple[str, list[str], list[dict[str, str]]]:
    collection = Collection.objects.filter(slug=collection_slug).first()
    if collection is None:
        return "new_collection", [field["slug"] for field in IMPORT_FIELDS], []
    present = dict(collection.fields.values_list("slug", "type"))
    missing = [field["slug"] for field in IMPORT_FIELDS if field["slug"] not in present]
    conflicts = [
        {
            "field": slug,
            "expected": " or ".join(sorted(COMPATIBLE_TYPES[slug])),
            "found": present[slug],
        }
        for slug in COMPATIBLE_TYPES
        if slug in present and present[slug] not in COMPATIBLE_TYPES[slug]
    ]
    if conflicts:
        return "incompatible", missing, conflicts
    return ("add_fields" if missing else "ready"), missing, []


def post_type_plan(
    result: dict[str, Any], mappings: dict[str, dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """Each analysed post type with its collection and status: ready, new_collection, add_fields or incompatible."""
    mappings = mappings or {}
    plan = []
    for post_type in result.get("postTypes", []):
        mapping = mappings.get(post_type["name"]) or {}
        collection = mapping.get("collection") or default_collection(post_type["name"])
        status, missing, conflicts = _compatibility(collection)
        plan.append(
            {
                **post_type,
                "collection": collection,
                "enabled": mapping.get("enabled", True),
                "status": status,
                "missingFields": missing,
                "conflicts": conflicts,
            }
        )
    return plan


def _label(post_type: str, collection: str) -> tuple[str, str]:
    """Plural and singular labels of a new collection: the post type's, unless it is mapped to a collection of
    another name (``post`` into ``articles``: "Articles", not a second "Posts")."""
    if collection != default_collection(post_type):
        words = re.sub(r"_+", " ", collection).strip().capitalize()
        return words, (words[:-1] if words.endswith("s") and not words.endswith("ss") else words)
    if post_type in ("post", "page"):
        return f"{post_type.title()}s", post_type.title()
    words = re.sub(r"[-_]+", " ", post_type).strip().title() or post_type
    return words, words


@transaction.atomic
def import_prepare(*, actor: Actor, post_types: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Create the collections and missing fields for the enabled post types, all or nothing (rule 4).

    ``post_types``: ``[{name, collection, enabled}]``. A post type whose collection has a field of a conflicting
    type stops the whole preparation with VALIDATION_ERROR naming the fields."""
    authorize(actor, "import.run")
    system = Actor.system()
    wanted = [item for item in post_types if item.get("enabled", True)]
    problems: dict[str, str] = {}
    for index, item in enumerate(wanted):
        slug = item.get("collection") or default_collection(item["name"])
        if problem := mapping_slug_problem(item["name"], slug):
            problems[f"postTypes.{index}.collection"] = problem
            continue
        status, _missing, conflicts = _compatibility(slug)
        if status == "incompatible":
            problems[f"postTypes.{index}.collection"] = (
                "; ".join(
                    f"field '{c['field']}' is {c['found']}, the import needs {c['expected']}"
                    for c in conflicts
                )
                + ". Rename or remove those fields, or map the post type to another collection."
            )
    if problems:
        raise ValidationError(
            "Some post types cannot be imported into their collections; nothing was created.",
            details=problems,
        )
    created = []
    seen: set[str] = set()
    for item in wanted:
        slug = item.get("collection") or default_collection(item["name"])
        if slug in seen:
            continue
        seen.add(slug)
        collection = Collection.objects.filter(slug=slug).first()
        new = collection is None
        if new:
            label, singular = _label(item["name"], slug)
            supports = ["drafts", "revisions", "scheduling"]
            if item["name"] in SEARCHED_TYPES:
                supports.append("search")
            collection = schema_services.collection_create(
                actor=system, slug=slug, label=label, label_singular=singular, supports=supports
            )
        present = set(collection.fields.values_list("slug", flat=True))
        added = []
        for field in IMPORT_FIELDS:
            if field["slug"] not in present:
                definition = dict(field)
                if not collection.supports_feature("search"):
                    definition.pop("searchable", None)
                schema_services.field_create(actor=system, collection=collection, definition=definition)
                added.append(field["slug"])
        created.append(
            {"postType": item["name"], "collection": slug, "collectionCreated": new, "fieldsAdded": added}
        )
    return {"collections": created}


# --- jobs -----------------------------------------------------------------------------------------------------------


def site_key(result: dict[str, Any], analysis: ImportAnalysis) -> str:
    """What identifies the source site across imports: its blog URL (re-importing a new export of the same site
    updates rather than duplicates); an export without one is its own site."""
    site = result.get("site") or {}
    return (site.get("baseBlogUrl") or site.get("link") or f"analysis:{analysis.pk}").rstrip("/")[:500]


@transaction.atomic
def job_create(
    *,
    actor: Actor,
    analysis: ImportAnalysis,
    options: dict[str, Any] | None = None,
    post_type_mappings: dict[str, dict[str, Any]] | None = None,
    author_mappings: dict[str, str] | None = None,
) -> ImportJob:
    authorize(actor, "import.run")
    options = {"includeMedia": False, "includeTaxonomies": True, "includeMenus": True, **(options or {})}
    mappings = {}
    for post_type in analysis.result.get("postTypes", []):
        given = (post_type_mappings or {}).get(post_type["name"]) or {}
        mappings[post_type["name"]] = {
            "collection": given.get("collection") or default_collection(post_type["name"]),
            "enabled": given.get("enabled", True),
        }
    problems: dict[str, str] = {}
    known = ", ".join(sorted(mappings)) or "none"
    for name in sorted(set(post_type_mappings or {}) - set(mappings)):
        problems[f"postTypeMappings.{name}"] = f"The export has no post type '{name}'; it has: {known}."
    for name, mapping in mappings.items():
        if mapping["enabled"] and (problem := mapping_slug_problem(name, mapping["collection"])):
            problems[f"postTypeMappings.{name}.collection"] = problem
    problems.update(author_mapping_problems(analysis, author_mappings or {}))
    if problems:
        raise ValidationError(details=problems)
    return ImportJob.objects.create(
        source=analysis.source,
        analysis=analysis,
        state=JobState.QUEUED,
        phase="start",
        total=sum(item["count"] for item in analysis.result.get("postTypes", [])),
        options={
            **options,
            "postTypeMappings": mappings,
            "authorMappings": dict(author_mappings or {}),
            "site": site_key(analysis.result, analysis),
        },
        created_by=actor.user,
    )


RESUMABLE = (JobState.PAUSED, JobState.FAILED)


@transaction.atomic
def job_resume(*, actor: Actor, job: ImportJob) -> ImportJob:
    """Queue a paused or failed job again, or one whose worker died (still ``running`` but its lease expired); it
    continues from its cursor."""
    authorize(actor, "import.run")
    job = ImportJob.objects.select_for_update().get(pk=job.pk)
    if job.state == JobState.COMPLETED:
        raise Conflict("The job has completed; start a new import to import the file again.")
    if job.state == JobState.QUEUED:
        return job
    if job.state == JobState.RUNNING and not job_is_stale(job):
        raise Conflict("The job is running; it can be resumed once it pauses or fails.")
    job.state = JobState.QUEUED
    job.error = None
    job.save(update_fields=["state", "error", "updated_at"])
    return job


def job_is_stale(job: ImportJob) -> bool:
    """A running job whose worker has not written for longer than the lease: that worker is gone."""
    from apps.core.timefmt import now

    return (now() - job.updated_at).total_seconds() >= settings.CMS_IMPORT_LEASE_SECONDS


# --- records --------------------------------------------------------------------------------------------------------


def record_get(site: str, kind: str, source_id: Any) -> ImportRecord | None:
    return ImportRecord.objects.filter(site=site, kind=kind, source_id=str(source_id)).first()


def record_put(site: str, kind: str, source_id: Any, **values: Any) -> ImportRecord:
    record, _ = ImportRecord.objects.update_or_create(
        site=site, kind=kind, source_id=str(source_id), defaults=values
    )
    return record


# --- media ----------------------------------------------------------------------------------------------------------


def attachment_filename(url: str, attachment_id: Any) -> str:
    name = Path(urlsplit(url).path).name
    return name or f"attachment-{attachment_id}"


def _download(url: str) -> tempfile.SpooledTemporaryFile:
    # Closed by the caller, which reads it after this returns.
    spool = tempfile.SpooledTemporaryFile(max_size=4 * 1024 * 1024)  # noqa: SIM115
    try:
        with safehttp.open_stream(
            url, max_bytes=settings.CMS_MAX_UPLOAD_BYTES, read_timeout=settings.CMS_IMPORT_FETCH_TIMEOUT
        ) as response:
            if not response.ok:
                raise HttpStatusError(f"{url} answered HTTP {response.status}.")
            for chunk in response.iter_bytes():
                spool.write(chunk)
    except BaseException:
        spool.close()
        raise
    spool.seek(0)
    return spool


def _site_of_attachment(attachment_id: Any) -> str:
    record = ImportRecord.objects.filter(kind="attachment", source_id=str(attachment_id)).order_by(
        "-updated_at"
    )
    found = record.values_list("site", flat=True).first()
    return found or ""


def media_import(
    *,
    actor: Actor,
    attachments: list[dict[str, Any]],
    site: str | None = None,
    progress: Callable[[dict[str, Any]], None] | None = None,
    deadline: float | None = None,
) -> dict[str, Any]:
    """Download each attachment through the safe HTTP client and store it through the media service (identical
    bytes are stored once, rule 7). A failed download is listed for manual handling and the others go on; a full
    media quota or a full disk stops the import (StorageQuotaExceeded, InsufficientStorage: the next file would not
    fit either). Featured images waiting for these attachments are linked.

    With a ``deadline`` (a ``time.monotonic()`` value) no new download starts after it; the attachments not reached
    are answered as ``remaining`` for the caller to send again (at least one is always done, so each call advances).

    Each file is stored in its own media transaction together with its import record: if recording it fails, the
    stored file is deleted with the rolled-back row, never left behind unreferenced."""
    authorize(actor, "import.run")
    system = Actor.system()
    imported: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []
    url_map: dict[str, str] = {}
    total = len(attachments)
    remaining: list[dict[str, Any]] = []
    for position, attachment in enumerate(attachments, start=1):
        if deadline is not None and position > 1 and time.monotonic() > deadline:
            remaining = attachments[position - 1 :]
            break
        source_id, url = attachment["id"], attachment["url"]
        where = site if site is not None else _site_of_attachment(source_id)
        filename = attachment_filename(url, source_id)
        status = "imported"
        record = record_get(where, "media", source_id)
        item = MediaItem.objects.filter(pk=record.target_id).first() if record else None
        if item is not None:
            status = "existing"
        else:
            try:
                spool = _download(url)
            except safehttp.SafeHttpError as error:
                failure = {"url": url, "error": str(error), "reason": failure_reason(error)}
                failed.append({"id": source_id, **failure})
                record_put(where, "media_failed", source_id, payload=failure)
                status = "failed"
            else:
                with spool:
                    try:
                        with media_services.media_transaction():
                            item, deduplicated = media_services.media_upload(
                                actor=system, file=spool, filename=filename
                            )
                            record_put(where, "media", source_id, target_id=item.pk, payload={"url": url})
                            ImportRecord.objects.filter(
                                site=where, kind="media_failed", source_id=str(source_id)
                            ).delete()
                    except InsufficientStorage:
                        # SPEC §7: a full quota stops the import, and so does a full disk: no later file would fit.
                        raise
                    except CmsError as error:
                        failure = {"url": url, "error": error.message, "reason": failure_reason(error)}
                        failed.append({"id": source_id, **failure})
                        record_put(where, "media_failed", source_id, payload=failure)
                        status = "failed"
                        item = None
                    else:
                        status = "deduplicated" if deduplicated else "imported"
        if item is not None:
            url_map[url] = media_url(item.storage_key)
            imported.append({"id": source_id, "mediaId": item.pk, "url": url_map[url]})
            with transaction.atomic():
                link_featured_images(site=where, attachment_id=source_id, media=item)
        if progress is not None:
            progress(
                {
                    "type": "progress",
                    "current": position,
                    "total": total,
                    "filename": filename,
                    "status": status,
                }
            )
    return {
        "imported": len(imported),
        "failed": failed,
        "urlMap": url_map,
        "items": imported,
        "remaining": [{"id": item["id"], "url": item["url"]} for item in remaining],
    }


def write_imported_entry(entry: Entry, data: dict[str, Any]) -> None:
    """Change fields of an imported entry; a published one stays published with the change (unless an editor has
    unpublished draft changes waiting, which the import leaves alone)."""
    system = Actor.system()
    republish = entry.status == Status.PUBLISHED and entry.data == entry.live_data
    content_services.entry_update(
        actor=system, entry=entry, data=data, status=Status.PUBLISHED if republish else None
    )


def link_featured_images(*, site: str, attachment_id: Any, media: MediaItem) -> int:
    """Point the featured image of every imported entry waiting for this attachment at its media item."""
    linked = 0
    waiting = ImportRecord.objects.filter(
        site=site,
        kind="entry",
        payload__featuredImage=int(attachment_id) if str(attachment_id).isdigit() else attachment_id,
    )
    for record in waiting:
        entry = Entry.objects.filter(pk=record.target_id, deleted_at__isnull=True).first()
        if entry is None or not _has_field(entry, "featured_image"):
            continue
        current = entry.data.get("featured_image") or {}
        if current.get("id") == media.pk:
            continue
        alt = current.get("alt")
        value = {"id": media.pk, **({"alt": alt} if alt else {})}
        write_imported_entry(entry, {"featured_image": value})
        linked += 1
    return linked


def _has_field(entry: Entry, slug: str) -> bool:
    return entry.collection.fields.filter(slug=slug).exists()


# --- URL rewriting --------------------------------------------------------------------------------------------------

_URL = re.compile(r"""https?://[^\s"'<>()\[\]{}]+""", re.IGNORECASE)
_SIZE = re.compile(r"-\d+x\d+(?=\.[A-Za-z0-9]+$)")
_SCALED = re.compile(r"-(?:scaled|rotated)(?=\.[A-Za-z0-9]+$)")


def _url_key(url: str) -> str:
    """The form old URLs are matched in: no query or fragment, no ``-300x200`` size suffix, http and https alike."""
    parts = urlsplit(url)
    path = _SCALED.sub("", _SIZE.sub("", parts.path))
    return f"{parts.netloc.lower()}{path}"


class UrlRewriter:
    def __init__(self, url_map: dict[str, str]):
        self.map = {_url_key(old): new for old, new in url_map.items() if old and new}
        self.replaced = 0

    def text(self, value: str) -> str:
        if "://" not in value:
            return value

        def swap(match: re.Match) -> str:
            found = match.group(0)
            new = self.map.get(_url_key(found))
            if new is None:
                return found
            self.replaced += 1
            return new

        return _URL.sub(swap, value)

    def walk(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.walk(item) for item in value]
        if isinstance(value, dict):
            return {key: self.walk(item) for key, item in value.items()}
        return value


def rewrite_urls(*, actor: Actor, url_map: dict[str, str]) -> dict[str, int]:
    """Replace old media URLs (also their resized ``-300x200`` variants and with query strings) in every string of
    imported entries and sections: Portable Text image URLs, link hrefs, text and string fields. Each entry is
    updated through the content service in its own transaction."""
    authorize(actor, "import.run")
    rewriter = UrlRewriter(url_map)
    counts = {"entriesScanned": 0, "entriesUpdated": 0, "sectionsUpdated": 0, "urlsReplaced": 0}
    if not rewriter.map:
        return counts
    entry_ids = (
        ImportRecord.objects.filter(kind="entry").exclude(target_id="").values_list("target_id", flat=True)
    )
    for chunk in _chunks(entry_ids.iterator(), 200):
        for entry in Entry.objects.filter(pk__in=chunk, deleted_at__isnull=True).select_related("collection"):
            counts["entriesScanned"] += 1
            changed = {key: rewriter.walk(value) for key, value in entry.data.items()}
            changed = {key: value for key, value in changed.items() if value != entry.data.get(key)}
            if changed:
                with transaction.atomic():
                    write_imported_entry(entry, changed)
                counts["entriesUpdated"] += 1
    system = Actor.system()
    for section in Section.objects.filter(source=SectionSource.IMPORT):
        content = rewriter.walk(section.content)
        if content != section.content:
            site_services.section_update(actor=system, section=section, changes={"content": content})
            counts["sectionsUpdated"] += 1
    counts["urlsReplaced"] = rewriter.replaced
    return counts


def _chunks(iterator, size: int):
    chunk = []
    for value in iterator:
        chunk.append(value)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def slug_for_menu(name: str) -> str:
    slug = slugify(name)[:60] or "menu"
    return slug if slug[0].isalpha() else f"menu-{slug}"


def analysis_delete_file(analysis: ImportAnalysis) -> None:
    path = analysis_path(analysis)
    if path.exists():
        path.unlink()


# --- probing (rule 1) -----------------------------------------------------------------------------------------------

SUGGESTIONS = {
    "oauth": "Connect the site with OAuth, then import everything through its API.",
    "export": "Export the site in WordPress (Tools → Export → All content) and upload the file.",
    "upload": "No known platform answered at this address; upload an export file instead.",
}


PRIVATE_ADDRESS_HELP = (
    " The server never fetches private, loopback or link-local addresses (they could reach its own network), so a"
    " site there cannot be probed: export it (WordPress: Tools → Export → All content) and upload the file instead."
)


def _check_probe_address(url: str) -> None:
    """Refuse an address the safe client would refuse, saying why: the probes would all be stopped before reaching
    it, and "no known platform answered" would hide the reason from someone probing a site on their own network.
    A host that does not resolve is left to the probes (no match, upload suggested)."""
    try:
        safehttp.check_url(url)
    except safehttp.BlockedDestination as error:
        help_text = PRIVATE_ADDRESS_HELP if isinstance(error, safehttp.BlockedAddress) else ""
        raise ValidationError(details={"url": f"{error}{help_text}"}) from error
    except safehttp.SafeHttpError:
        return


def import_probe(*, actor: Actor, url: str) -> dict[str, Any]:
    """Ask every source with a probe about ``url`` at once; the most confident match decides the suggested action
    (SPEC §4.10 rule 1). A probe that fails or runs out of time counts as no match; an address the safe client
    refuses (private, loopback, link-local …) is a VALIDATION_ERROR on ``url`` before any probe runs."""
    from concurrent.futures import ThreadPoolExecutor, wait

    authorize(actor, "import.run")
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValidationError(details={"url": "Give an http or https address, e.g. https://example.com."})
    _check_probe_address(url.strip())
    sources = [source for source in registry.all_sources() if source.probe is not None]
    matches: list[dict[str, Any]] = []
    if sources:
        pool = ThreadPoolExecutor(max_workers=len(sources), thread_name_prefix="import-probe")
        futures = {pool.submit(source.probe, url.strip()): source for source in sources}
        done, _late = wait(futures, timeout=settings.CMS_IMPORT_PROBE_TIMEOUT)
        # Late probes are left to finish on their own (their HTTP client has its own time limit).
        pool.shutdown(wait=False, cancel_futures=True)
        for future in done:
            source = futures[future]
            try:
                found = future.result()
            except Exception as error:
                logger.info("probe failed", extra={"source": source.id, "error": str(error)})
                continue
            if found and found.get("confidence", 0) > 0:
                matches.append(
                    {
                        "source": source.id,
                        "name": source.name,
                        "confidence": float(found["confidence"]),
                        "details": found.get("details", {}),
                        "action": found.get("action", "upload"),
                    }
                )
    matches.sort(key=lambda match: (-match["confidence"], match["source"]))
    best = matches[0] if matches else None
    action = best["action"] if best else "upload"
    return {
        "url": url.strip(),
        "best": {key: value for key, value in best.items() if key != "action"} if best else None,
        "matches": [{key: value for key, value in match.items() if key != "action"} for match in matches],
        "suggestedAction": {
            "action": action,
            "source": best["source"] if best else None,
            "message": (best["details"].get("message") if best else None) or SUGGESTIONS[action],
        },
    }


# --- housekeeping ---------------------------------------------------------------------------------------------------


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
