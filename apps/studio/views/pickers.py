"""The JSON behind the studio's pickers (apps/studio/static/studio/pickers.js): media to choose from, an upload from
the media dialog, and entries to reference, searched as people type.

Answers use the REST API's envelope (``{"data": …}``, errors ``{"error": {code, message, details}}`` with the
service's status) and its presenters, so the dialogs show what the API would; reads go through the selectors, the
upload through ``media_upload`` with the REST upload's limits."""

from __future__ import annotations

import orjson
from django.conf import settings
from django.db.models import Q
from django.http import HttpResponse
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_GET, require_POST

from apps.content.selectors import can_read_drafts, entry_list, title_filter
from apps.core import shapes
from apps.core.errors import CmsError, ValidationError
from apps.media.inputs import MediaUploadIn
from apps.media.presenters import present_media, present_media_created
from apps.media.selectors import media_list
from apps.media.services import media_upload
from apps.media.uploads import limit_uploads, refuse_declared_oversize
from apps.schema.selectors import collection_for_read, title_field
from apps.studio.access import studio_page
from apps.studio.views.media import KINDS

MEDIA_PAGE = 24
ENTRIES_SHOWN = 20
MAX_QUERY = 200


def _json(payload, status: int = 200) -> HttpResponse:
    return HttpResponse(orjson.dumps(payload), status=status, content_type="application/json")


def _error(exc: CmsError) -> HttpResponse:
    response = _json({"error": exc.as_dict()}, status=exc.status)
    for name, value in exc.headers.items():
        response[name] = value
    return response


def _query(request) -> str:
    text = request.GET.get("q", "").strip()
    if len(text) > MAX_QUERY:
        raise ValidationError(details={"q": f"At most {MAX_QUERY} characters."})
    return text


@studio_page
@require_GET
def pick_media(request):
    """``?q=`` words of the filename, alt text or caption; ``type=`` image, video, audio or application."""
    try:
        kind = request.GET.get("type") or None
        if kind is not None and kind not in KINDS:
            raise ValidationError(details={"type": f"One of: {', '.join(KINDS)}."})
        page = media_list(
            actor=request.actor,
            mime_type=f"{kind}/" if kind else None,
            search=_query(request),
            cursor=request.GET.get("cursor") or None,
            limit=MEDIA_PAGE,
        )
    except CmsError as exc:
        return _error(exc)
    return _json({"data": page.to_data(present_media)})


@csrf_exempt
@studio_page
@require_POST
def pick_media_upload(request):
    """Multipart ``file`` (with optional ``alt``, ``caption``). A declared length over the limit is refused before
    anything reads the body, and the CSRF check runs once the limit is in place: it reads the form, and reading it
    must already stop at the limit."""
    try:
        refuse_declared_oversize(request, settings.CMS_MAX_UPLOAD_BYTES)
        limit_uploads(request, settings.CMS_MAX_UPLOAD_BYTES)
        return _checked_upload(request)
    except CmsError as exc:
        return _error(exc)


@csrf_protect
def _checked_upload(request):
    body = shapes.validate(
        MediaUploadIn,
        {
            key: value
            for key, value in [*request.POST.items(), *request.FILES.items()]
            if key != "csrfmiddlewaretoken"
        },
    ).values()
    upload = body["file"]
    item, deduplicated = media_upload(
        actor=request.actor,
        file=upload,
        filename=upload.name,
        alt=body.get("alt") or "",
        caption=body.get("caption") or "",
    )
    return _json({"data": present_media_created(item, deduplicated)}, status=200 if deduplicated else 201)


@studio_page
@require_GET
def pick_entries(request):
    """``?collection=`` (required) and ``q=`` (title or slug contains it), the latest edited first; or ``ids=`` (comma
    separated) for the entries named."""
    try:
        slug = request.GET.get("collection", "").strip()
        if not slug:
            raise ValidationError(details={"collection": "Required: the collection to pick from."})
        collection = collection_for_read(slug=slug)
        drafts = can_read_drafts(request.actor)
        ids = [part.strip().upper() for part in request.GET.get("ids", "").split(",") if part.strip()]
        if len(ids) > ENTRIES_SHOWN:
            raise ValidationError(details={"ids": f"At most {ENTRIES_SHOWN} ids."})
        # ``ids``: the entries a field already references, to show them by title (chosen before this page).
        where = Q(pk__in=ids) if ids else title_filter(collection, _query(request), drafts=drafts)
        seen = entry_list(
            collection=collection,
            actor=request.actor,
            where=where,
            order_by="updatedAt",
            limit=ENTRIES_SHOWN,
        )
    except CmsError as exc:
        return _error(exc)
    key = title_field(collection)
    items = []
    for row in seen.items:
        raw = row.data_raw if drafts else row.live_raw
        values = orjson.loads(raw) if raw else {}
        title = values.get(key) if key else None
        items.append(
            {
                "id": row.id,
                "title": title if isinstance(title, str) and title.strip() else row.slug,
                "slug": row.slug,
                "status": row.status,
                # Published, with edits not yet published: the badge says "changed". Rows of readers with drafts
                # access carry the published text only where it differs from the working copy.
                "changed": drafts and row.status == "published" and row.live_raw is not None,
            }
        )
    return _json({"data": {"items": items, "collection": collection.slug}})
