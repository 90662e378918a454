"""Writes of the import pipeline (SPEC §4.10): store and analyse an upload, prepare collections, create and resume
jobs, import media, rewrite URLs.

Every write to content, schema, taxonomies, menus, sections, bylines and media goes through those apps' services
(the pipeline never touches their tables); this package only writes its own rows (analyses, jobs, records). The long
part, running a job, is in ``pipeline``; ``jobs`` decides whether it runs now or in the worker.

One module per step: ``analyses`` (uploads and their analyses, pruning), ``prepare`` (post types → collections,
jobs), ``records`` (the importer's rows, imported entries changed later), ``media``, ``rewrite`` (URLs) and
``probe``. Callers use the names below; a test that replaces a function does so in the module that calls it.
"""

from apps.importer.services.analyses import (
    analyses_prune,
    analysis_create,
    analysis_create_remote,
    analysis_delete_file,
    analysis_from_path,
    run_analysis,
)
from apps.importer.services.media import attachment_filename, link_featured_images, media_import
from apps.importer.services.prepare import (
    COMPATIBLE_TYPES,
    IMPORT_FIELDS,
    RESUMABLE,
    default_collection,
    import_prepare,
    job_create,
    job_is_stale,
    job_resume,
    post_type_plan,
    site_key,
)
from apps.importer.services.probe import import_probe
from apps.importer.services.records import record_get, record_put, write_imported_entry
from apps.importer.services.rewrite import UrlRewriter, rewrite_urls

__all__ = [
    "COMPATIBLE_TYPES",
    "IMPORT_FIELDS",
    "RESUMABLE",
    "UrlRewriter",
    "analyses_prune",
    "analysis_create",
    "analysis_create_remote",
    "analysis_delete_file",
    "analysis_from_path",
    "attachment_filename",
    "default_collection",
    "import_prepare",
    "import_probe",
    "job_create",
    "job_is_stale",
    "job_resume",
    "link_featured_images",
    "media_import",
    "post_type_plan",
    "record_get",
    "record_put",
    "rewrite_urls",
    "run_analysis",
    "site_key",
    "write_imported_entry",
]
