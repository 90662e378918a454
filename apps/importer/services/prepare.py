"""Before a run: each analysed post type's collection (SPEC §4.10 rule 3), the collections and fields made for the
enabled ones (rule 4), and the job created, or queued again to resume."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from django.db import transaction

from apps.accounts.permissions import Actor, authorize
from apps.core.errors import Conflict, ValidationError
from apps.importer import storage
from apps.importer.errors import ImportFileMissing
from apps.importer.mappings import author_mapping_problems, mapping_slug_problem
from apps.importer.models import JOB_LEASE, ImportAnalysis, ImportJob, JobState
from apps.schema import services as schema_services
from apps.schema.models import Collection

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
    if analysis.file and not storage.exists(analysis.file):
        raise ImportFileMissing
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
    return JOB_LEASE.expired(job)
