"""System checks of the import storage (issue 24): a deployment on several machines needs its uploaded exports where
every node and worker can read them. Run by ``manage.py check``, ``migrate`` and ``worker``, so a misconfigured node
refuses to start instead of failing imports later with a file another machine kept."""

from __future__ import annotations

from django.conf import settings
from django.core.checks import Error, Tags, register

from apps.importer import storage


@register(Tags.files, deploy=False)
def import_storage_shared(app_configs=None, **kwargs) -> list[Error]:
    if not settings.CMS_MULTI_NODE or settings.CMS_IMPORT_DIR_SHARED:
        return []
    if not storage.node_local():
        return []
    return [
        Error(
            "CMS_MULTI_NODE is set but uploaded imports are kept on this machine's disk: an import uploaded to one "
            "node cannot be executed on another.",
            hint="Set CMS_IMPORT_STORAGE=s3 (with CMS_IMPORT_S3_BUCKET or the media bucket), or mount one shared "
            "directory on every node as CMS_IMPORT_DIR and set CMS_IMPORT_DIR_SHARED=true.",
            id="importer.E001",
        )
    ]


@register(Tags.files, deploy=False)
def import_prefix_apart_from_media(app_configs=None, **kwargs) -> list[Error]:
    """Exports in the media bucket need a prefix of their own: in the media's own place, a media key could name one,
    and pruning would take media files for stray exports."""
    if settings.CMS_IMPORT_STORAGE != "s3" or settings.CMS_MEDIA_STORAGE != "s3":
        return []
    media = settings.STORAGES["default"].get("OPTIONS", {})
    if media.get("bucket_name") != settings.CMS_IMPORT_S3_BUCKET:
        return []
    if (media.get("location") or "").strip("/") != settings.CMS_IMPORT_S3_PREFIX:
        return []
    return [
        Error(
            "The import storage uses the media bucket with the media's own prefix.",
            hint="Give CMS_IMPORT_S3_PREFIX a prefix of its own (the default is _cms-imports), or a bucket of its "
            "own with CMS_IMPORT_S3_BUCKET.",
            id="importer.E002",
        )
    ]
