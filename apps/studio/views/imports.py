"""The WordPress import wizard (/_cms/admin/import/…, for whoever the permission table lets run imports): upload an
export or probe a site, the analysis as a table to map post types and authors, then the import as a background job
whose page shows its progress (polled from ``job_status``) and, once done, its summary and the media import.

The same services as ``/_cms/api/import/…``: ``analysis_create``, ``import_probe``, ``post_type_plan``,
``import_prepare`` and ``job_create`` (the worker runs the job, ``apps/importer/jobs.py``), ``media_import`` and
``rewrite_urls``; reads through ``apps.importer.selectors`` and the job's answer through ``present_job``."""

from __future__ import annotations

import time

import orjson
from django.conf import settings
from django.contrib import messages
from django.db import transaction
from django.http import HttpResponse, HttpResponseNotAllowed
from django.shortcuts import redirect
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_GET, require_POST

from apps.accounts import selectors as account_selectors
from apps.accounts.permissions import authorize, can
from apps.core import shapes
from apps.core.errors import CmsError, ValidationError
from apps.core.timefmt import now
from apps.importer import jobs, selectors, services
from apps.importer.inputs import ImportProbeIn
from apps.importer.presenters import present_job
from apps.media.uploads import limit_uploads, refuse_declared_oversize
from apps.schema import selectors as schema_selectors
from apps.studio import import_forms as forms
from apps.studio.access import studio_page
from apps.studio.rendering import render_studio

SECTION = "import"
AUTHOR_CHOICES = 200


def _may_import(request) -> None:
    authorize(request.actor, "import.run")


# --- step 1: upload or probe -----------------------------------------------------------------------------------------


def _start_page(request, *, errors=None, probe=None, url="", message="", status=200):
    jobs = selectors.job_list(actor=request.actor)
    context = {
        "jobs": [
            {
                "job": job,
                "filename": job.analysis.filename if job.analysis else "",
                "badge": forms.JOB_BADGES.get(job.state, "draft"),
                "progress": present_job(job)["progress"],
            }
            for job in jobs
        ],
        "max_bytes": settings.CMS_IMPORT_MAX_BYTES,
        "errors": errors or {},
        "probe": probe,
        "url": url,
        "message": message,
    }
    return render_studio(request, "studio/import/start.html", context, section=SECTION, status=status)


@studio_page
@require_GET
def import_home(request):
    _may_import(request)
    return _start_page(request)


@csrf_exempt
@studio_page
@require_POST
def import_upload(request):
    """The export, read no further than ``CMS_IMPORT_MAX_BYTES``: a declared length over it is refused before the
    body is read, and the CSRF check (which reads the form) runs once the limit is in place."""
    _may_import(request)
    try:
        refuse_declared_oversize(request, settings.CMS_IMPORT_MAX_BYTES)
        limit_uploads(request, settings.CMS_IMPORT_MAX_BYTES)
        return _checked_upload(request)
    except CmsError as exc:
        details = exc.details if isinstance(exc.details, dict) else {}
        errors = {"file": details.get("file") or exc.message}
        return _start_page(request, errors=errors, message=exc.message, status=exc.status)


@csrf_protect
def _checked_upload(request):
    upload = request.FILES.get("file")
    if upload is None:
        raise ValidationError(details={"file": "Choose the export file (.xml) to upload."})
    analysis = services.analysis_create(actor=request.actor, file=upload, filename=upload.name)
    messages.success(request, f"Analysed {analysis.filename}. Choose what to import.")
    return redirect("studio:import-analysis", analysis.pk)


@studio_page
@require_POST
def import_probe(request):
    """Nothing is stored by a probe: its findings are shown on the start page right away."""
    _may_import(request)
    url = request.POST.get("url", "").strip()
    try:
        body = shapes.validate(ImportProbeIn, {"url": url}).values()
        probe = services.import_probe(actor=request.actor, url=body["url"])
    except CmsError as exc:
        details = exc.details if isinstance(exc.details, dict) else {}
        return _start_page(
            request, errors={"url": details.get("url") or exc.message}, url=url, status=exc.status
        )
    return _start_page(request, probe=probe, url=url)


# --- step 2: the analysis --------------------------------------------------------------------------------------------


def _analysis_page(request, analysis, form, *, errors=None, message="", status=200):
    errors = errors or {}
    existing = schema_selectors.collection_list(actor=request.actor)
    plan = services.post_type_plan(analysis.result, form["mappings"])
    users = []
    if can(request.actor, "users.manage"):
        users = account_selectors.user_list(actor=request.actor, limit=AUTHOR_CHOICES).items
    result = analysis.result
    context = {
        "analysis": analysis,
        "site": result.get("site") or {},
        "rows": forms.type_rows(plan, form, existing, errors),
        "collections": existing,
        "authors": forms.author_rows(result, form, errors),
        "users": users,
        "options": forms.option_rows(form),
        "taxonomies": result.get("taxonomies", []),
        "menus": result.get("menus", []),
        "attachments": result.get("attachments", 0),
        "skipped": result.get("skipped", []),
        "errors": errors,
        "message": message,
        "new": forms.NEW,
    }
    return render_studio(request, "studio/import/analysis.html", context, section=SECTION, status=status)


@studio_page
def import_analysis(request, analysis_id: str):
    """GET shows the table; POST ``action=check`` shows the statuses for the targets chosen, ``action=start``
    prepares the collections and queues the job, then goes to the job's page."""
    _may_import(request)
    analysis = selectors.analysis_get(analysis_id=analysis_id)
    if request.method == "GET":
        return _analysis_page(request, analysis, forms.default_form(analysis.result))
    if request.method != "POST":
        return HttpResponseNotAllowed(["GET", "POST"])
    form = forms.read_form(request.POST, analysis.result)
    if request.POST.get("action") != "start":
        return _analysis_page(request, analysis, form)
    post_types = [
        {"name": name, "collection": mapping["collection"] or None, "enabled": mapping["enabled"]}
        for name, mapping in form["mappings"].items()
    ]
    try:
        # Both or neither: a job refused (an author mapping naming nobody) leaves no collections behind.
        with transaction.atomic():
            services.import_prepare(actor=request.actor, post_types=post_types)
            job = services.job_create(
                actor=request.actor,
                analysis=analysis,
                options=form["options"],
                post_type_mappings={
                    name: {"collection": mapping["collection"] or None, "enabled": mapping["enabled"]}
                    for name, mapping in form["mappings"].items()
                },
                author_mappings=form["authors"],
            )
            jobs.queue(job)
    except CmsError as exc:
        errors = forms.form_errors(exc.details, analysis.result, form)
        return _analysis_page(request, analysis, form, errors=errors, message=exc.message, status=exc.status)
    messages.success(request, "The import has started. You can leave this page and come back to it.")
    return redirect("studio:import-job", job.pk)


# --- step 3: the job -------------------------------------------------------------------------------------------------


def _job_answer(job) -> dict:
    answer = present_job(job)
    elapsed = (now() - job.started_at).total_seconds() if job.started_at else None
    if job.finished_at and job.started_at:
        elapsed = (job.finished_at - job.started_at).total_seconds()
    pace = forms.pace(answer, elapsed)
    media = (answer["summary"] or {}).get("media") or {}
    return {
        **answer,
        "pace": pace,
        "text": forms.pace_text(answer["state"], answer["progress"]["phase"], pace),
        "media": media,
    }


@studio_page
@require_GET
def import_job(request, job_id: str):
    _may_import(request)
    job = selectors.job_read(actor=request.actor, job_id=job_id)
    answer = _job_answer(job)
    site = job.options.get("site", "")
    context = {
        "job": job,
        "answer": answer,
        "badge": forms.JOB_BADGES.get(job.state, "draft"),
        "filename": job.analysis.filename if job.analysis else "",
        "attachments": 0,
        "media_failures": [],
    }
    if answer["summary"] and job.state == "completed":
        summary = answer["summary"]
        wanted = [item.get("sourceId") for item in [*summary.get("warnings", []), *summary.get("failed", [])]]
        entries = selectors.imported_entries(site=site, source_ids=wanted)
        context["summary"] = forms.summary_tables(summary, entries)
        context["attachments"] = len(selectors.site_attachments(site=site))
        context["media_failures"] = forms.media_rows(selectors.media_failures(site=site))
        context["media_imported"] = len(selectors.site_media_urls(site=site))
    return render_studio(request, "studio/import/job.html", context, section=SECTION)


@studio_page
@require_GET
def import_job_status(request, job_id: str):
    """The job's REST answer (``present_job``) with its pace, for the page's script to poll."""
    try:
        _may_import(request)
        job = selectors.job_read(actor=request.actor, job_id=job_id)
    except CmsError as exc:
        return HttpResponse(
            orjson.dumps({"error": exc.as_dict()}), status=exc.status, content_type="application/json"
        )
    return HttpResponse(orjson.dumps({"data": _job_answer(job)}), content_type="application/json")


@studio_page
@require_POST
def import_job_media(request, job_id: str):
    """``action=retry`` downloads the attachments that failed again, ``action=all`` every attachment of the site not
    stored yet (a job run without media), ``action=rewrite`` only replaces old URLs. Downloads stop starting after
    ``CMS_IMPORT_MEDIA_REQUEST_SECONDS``, as in REST; pressing again goes on (stored ones are not fetched twice)."""
    _may_import(request)
    job = selectors.job_read(actor=request.actor, job_id=job_id)
    site = job.options.get("site", "")
    action = request.POST.get("action")
    if action == "rewrite":
        rewritten = services.rewrite_urls(actor=request.actor, url_map=selectors.site_media_urls(site=site))
        messages.success(
            request, f"Rewrote {rewritten['urlsReplaced']} URLs in {rewritten['entriesUpdated']} entries."
        )
        return redirect("studio:import-job", job.pk)
    if action == "retry":
        attachments = [
            {"id": item["id"], "url": item["url"]}
            for item in selectors.media_failures(site=site)
            if item["url"]
        ]
    elif action == "all":
        attachments = selectors.site_attachments(site=site)
    else:
        raise ValidationError(details={"action": "One of: retry, all, rewrite."})
    if not attachments:
        messages.success(request, "There were no attachments to download.")
        return redirect("studio:import-job", job.pk)
    deadline = time.monotonic() + settings.CMS_IMPORT_MEDIA_REQUEST_SECONDS
    result = services.media_import(actor=request.actor, attachments=attachments, site=site, deadline=deadline)
    rewritten = (
        services.rewrite_urls(actor=request.actor, url_map=result["urlMap"]) if result["urlMap"] else None
    )
    text = f"Stored {result['imported']} of {len(attachments)} attachments; {len(result['failed'])} failed."
    if result["remaining"]:
        text += f" {len(result['remaining'])} were not reached in time: press the button again to go on."
    if rewritten:
        text += f" Rewrote {rewritten['urlsReplaced']} URLs in {rewritten['entriesUpdated']} entries."
    messages.success(request, text)
    return redirect("studio:import-job", job.pk)
