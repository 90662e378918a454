"""``/_cms/api/import/…`` (SPEC §4.10): probe, analyze, prepare, execute, media, rewrite-urls, and import jobs.

Everything here needs the ``admin`` scope and role (``import.run``): an import writes collections, fields,
taxonomies, menus, sections, bylines and media, and fetches addresses the caller gives.
"""

from __future__ import annotations

import time

import orjson
from django.conf import settings
from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from rest_framework.parsers import MultiPartParser

from apps.accounts.permissions import actor_from_request
from apps.core import shapes
from apps.core.api.parsers import JSONParser
from apps.core.api.views import CmsViewSet, endpoint, ok
from apps.core.errors import CmsError, ValidationError
from apps.importer import jobs, selectors, services
from apps.importer.inputs import (
    ImportAnalyzeIn,
    ImportAnalyzeRemoteIn,
    ImportConfigIn,
    ImportExecuteIn,
    ImportExecuteUploadIn,
    ImportMediaIn,
    ImportPrepareIn,
    ImportProbeIn,
    ImportRewriteIn,
)
from apps.importer.presenters import (
    ImportAnalysisOut,
    ImportJobOut,
    ImportMediaResultOut,
    ImportPrepareOut,
    ImportProbeOut,
    ImportRewriteOut,
    present_analysis,
    present_job,
    present_media_result,
)
from apps.media.uploads import UploadLimitMixin


def _mappings(raw: dict | None) -> dict:
    return {name: dict(mapping) for name, mapping in (raw or {}).items()}


class ImportViewSet(UploadLimitMixin, CmsViewSet):
    parser_classes = [JSONParser, MultiPartParser]
    # An export over the limit is refused while it is read, before Django has spooled all of it to a temporary file.
    upload_limit_setting = "CMS_IMPORT_MAX_BYTES"

    @endpoint(
        "import.run", body=ImportProbeIn, response=ImportProbeOut, summary="Detect the platform behind a URL"
    )
    def probe(self, request):
        """Every registered source's probe runs at once; the most confident match decides the suggested action:
        ``oauth`` (hosted platform), ``export`` (self-hosted: export instructions) or ``upload`` (unknown). An address
        the server does not fetch (loopback, private, link-local …) is 400 VALIDATION_ERROR on ``url`` saying so."""
        return ok(services.import_probe(actor=actor_from_request(request), url=self.body["url"]))

    @endpoint(
        "import.run",
        body={"multipart/form-data": ImportAnalyzeIn, "application/json": ImportAnalyzeRemoteIn},
        response=ImportAnalysisOut,
        status=201,
        errors=(404, 507),
        summary="Upload an export (or name a site and token) and analyse it",
    )
    def analyze(self, request):
        """The file is kept server-side; ``analysisId`` names it in prepare and execute. Each post type gets a
        status (rule 3): ready, new_collection, add_fields or incompatible (with the conflicting fields). JSON
        ``{source, url, accessToken}`` analyses a site through a source's API instead (WordPress.com with OAuth)."""
        actor = actor_from_request(request)
        if "file" in self.body:
            upload = self.body["file"]
            analysis = services.analysis_create(actor=actor, file=upload, filename=upload.name)
        else:
            source_input = {"url": self.body["url"]}
            if self.body.get("accessToken"):
                source_input["accessToken"] = self.body["accessToken"]
            analysis = services.analysis_create_remote(
                actor=actor, source=self.body["source"], source_input=source_input
            )
        return ok(present_analysis(analysis, services.post_type_plan(analysis.result)), status=201)

    @endpoint(
        "import.run",
        body=ImportPrepareIn,
        response=ImportPrepareOut,
        errors=(404,),
        summary="Create the collections and fields an import needs",
    )
    def prepare(self, request):
        """Creates missing collections (posts and pages support search) and adds missing fields, all in one
        transaction: a post type whose collection has a conflicting field stops it and nothing is created."""
        post_types = [dict(item) for item in self.body["postTypes"]]
        if "analysisId" in self.body:
            analysis = selectors.analysis_get(analysis_id=self.body["analysisId"])
            known = {item["name"] for item in analysis.result.get("postTypes", [])}
            unknown = {
                f"postTypes.{index}.name": f"The export has no post type '{item['name']}'; it has: "
                f"{', '.join(sorted(known)) or 'none'}."
                for index, item in enumerate(post_types)
                if item["name"] not in known
            }
            if unknown:
                raise ValidationError(details=unknown)
        return ok(services.import_prepare(actor=actor_from_request(request), post_types=post_types))

    @endpoint(
        "import.run",
        body={"application/json": ImportExecuteIn, "multipart/form-data": ImportExecuteUploadIn},
        response=ImportJobOut,
        also=(202,),
        errors=(404, 409, 507),
        summary="Import the content: in this request for small files, as a background job for large ones",
    )
    def execute(self, request):
        """JSON names a stored analysis; multipart sends the file with a ``config`` JSON text. Small files import
        within the request (200, the finished job with its summary); larger ones are queued for the worker (202):
        follow them with GET …/import/jobs/:id."""
        actor = actor_from_request(request)
        body = self.body
        if "file" in body:
            config = shapes.validate(ImportConfigIn, body.get("config") or {}, what="config key").values()
            analysis = services.analysis_create(actor=actor, file=body["file"], filename=body["file"].name)
        else:
            config = body
            analysis = selectors.analysis_get(analysis_id=body["analysisId"])
        job = services.job_create(
            actor=actor,
            analysis=analysis,
            options=dict(config.get("options") or {}),
            post_type_mappings=_mappings(config.get("postTypeMappings")),
            author_mappings=dict(config.get("authorMappings") or {}),
        )
        job, ran = jobs.start(job)
        return ok(present_job(job), status=200 if ran else 202)

    @endpoint(
        "import.run",
        body=ImportMediaIn,
        response={"application/json": ImportMediaResultOut, "application/x-ndjson": OpenApiTypes.STR},
        errors=(507,),
        summary="Download attachments into the media library",
    )
    def media(self, request):
        """Each attachment is downloaded through the safe HTTP client and stored once per content (xxHash64);
        failures are listed for manual handling. With ``stream: true`` the answer is NDJSON: ``{type: "progress",
        current, total, filename, status}`` lines, then ``{type: "result", imported, failed, urlMap, remaining}`` (or
        ``{type: "error", code, message, details}`` when the media quota stops it). No download starts after
        ``CMS_IMPORT_MEDIA_REQUEST_SECONDS`` (30); the attachments not reached are listed in ``remaining``."""
        actor = actor_from_request(request)
        attachments = [dict(item) for item in self.body["attachments"]]
        # Downloads stop starting once the request has used its time budget, well before the server's worker
        # timeout would kill it; what was not reached comes back as `remaining`, to be sent again.
        deadline = time.monotonic() + settings.CMS_IMPORT_MEDIA_REQUEST_SECONDS
        if not self.body["stream"]:
            result = services.media_import(actor=actor, attachments=attachments, deadline=deadline)
            return ok(present_media_result(result))
        return StreamingHttpResponse(
            _media_stream(actor, attachments, deadline), content_type="application/x-ndjson"
        )

    @endpoint(
        "import.run",
        body=ImportRewriteIn,
        response=ImportRewriteOut,
        summary="Replace old media URLs in imported content",
    )
    def rewrite_urls(self, request):
        """Rewrites image URLs, link hrefs and text in every string of imported entries and sections, including
        resized variants (``photo-300x200.jpg``) and URLs with query strings."""
        return ok(services.rewrite_urls(actor=actor_from_request(request), url_map=dict(self.body["urlMap"])))


def _media_stream(actor, attachments, deadline):
    """NDJSON lines, produced as the body is consumed: each attachment is downloaded when its line is due."""
    imported, failed, url_map, remaining = 0, [], {}, []
    for position, attachment in enumerate(attachments, start=1):
        if position > 1 and time.monotonic() > deadline:
            remaining = [{"id": item["id"], "url": item["url"]} for item in attachments[position - 1 :]]
            break
        try:
            result = services.media_import(actor=actor, attachments=[attachment])
        except CmsError as error:
            yield orjson.dumps({"type": "error", **error.as_dict()}) + b"\n"
            return
        imported += result["imported"]
        failed.extend(result["failed"])
        url_map.update(result["urlMap"])
        line = {
            "type": "progress",
            "current": position,
            "total": len(attachments),
            "filename": services.attachment_filename(attachment["url"], attachment["id"]),
            "status": "failed" if result["failed"] else "imported",
        }
        yield orjson.dumps(line) + b"\n"
    result = {
        "type": "result",
        "imported": imported,
        "failed": failed,
        "urlMap": url_map,
        "remaining": remaining,
    }
    yield orjson.dumps(result) + b"\n"


class ImportJobViewSet(CmsViewSet):
    @endpoint("import.run", response=ImportJobOut, summary="An import job: state, progress and summary")
    def retrieve(self, request, pk: str):
        return ok(present_job(selectors.job_read(actor=actor_from_request(request), job_id=pk)))

    @endpoint(
        "import.run",
        response=ImportJobOut,
        also=(202,),
        errors=(409, 507),
        summary="Resume a paused or failed import job from where it stopped",
    )
    def resume(self, request, pk: str):
        """The job continues from its cursor: items already imported are not imported again. Small files resume in
        the request (200); larger ones are queued for the worker (202). A running or completed job is 409."""
        job = services.job_resume(actor=actor_from_request(request), job=selectors.job_get(job_id=pk))
        job, ran = jobs.start(job)
        return ok(present_job(job), status=200 if ran else 202)
