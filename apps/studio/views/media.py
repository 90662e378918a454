"""The media library: every upload as a grid or a list (type filter, search by filename, alt text or caption, pages by
cursor), uploads of several files at once, and one page per item (preview, alt text and caption, its public URL,
where it is used, delete with those uses named first).

With scripts, apps/studio/static/studio/media-library.js sends each dropped or chosen file to the pickers' upload
endpoint (``pick/media/upload``) with a progress bar per file; without them the same form posts every file here.
Both say what went wrong in the same words (``upload_problem``)."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.shortcuts import redirect
from django.template.defaultfilters import filesizeformat
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_http_methods, require_POST

from apps.accounts.permissions import can
from apps.content.overviews import media_usages
from apps.core import shapes
from apps.core.errors import CmsError, ValidationError
from apps.media.errors import MediaTooLarge
from apps.media.inputs import MediaUpdateIn
from apps.media.presenters import present_media
from apps.media.renditions import renderable
from apps.media.selectors import media_get, media_list, media_read
from apps.media.services import media_delete, media_update, media_upload
from apps.media.uploads import limit_uploads, refuse_declared_oversize
from apps.studio.access import studio_page
from apps.studio.rendering import render_studio

PAGE_SIZE = 40
KINDS = {"image": "Images", "video": "Video", "audio": "Audio", "application": "Documents"}
VIEWS = ("grid", "list")
# How many files one form post (without scripts) may carry; each has the upload limit of its own.
FORM_FILES = 20
USAGES_SHOWN = 100
PLAIN_KINDS = {"image": "images", "video": "video", "audio": "audio", "text": "text"}


def allowed_words() -> str:
    """The allowed types as people say them: "images, video, audio and PDF"."""
    words = []
    for pattern in settings.CMS_MEDIA_ALLOWED_TYPES:
        family, _, subtype = pattern.partition("/")
        word = PLAIN_KINDS.get(family, family) if subtype == "*" else subtype.upper()
        if word not in words:
            words.append(word)
    return ", ".join(words[:-1]) + f" and {words[-1]}" if len(words) > 1 else "".join(words)


def upload_problem(name: str, exc: CmsError) -> str:
    """What went wrong with one file, in plain words (the service's codes and statuses, read for people)."""
    if exc.status == 413:
        limit = filesizeformat(settings.CMS_MAX_UPLOAD_BYTES)
        return f"{name} was not uploaded: it is too large. Files may be at most {limit}."
    if exc.status == 415:
        return f"{name} was not uploaded: this type of file is not allowed. Allowed: {allowed_words()}."
    if exc.status == 507:
        return f"{name} was not uploaded: the media storage is full. Ask an administrator to free space."
    if exc.status == 403:
        return f"{name} was not uploaded: your role may not upload files."
    detail = (exc.details or {}).get("file") if isinstance(exc.details, dict) else None
    return f"{name} was not uploaded: {detail or exc.message}"


def _author_name(item) -> str:
    author = item.author
    if author is None:
        return "Unknown"
    return author.name or author.email


def _row(item) -> dict:
    return {
        **present_media(item),
        "kind": item.mime_type.partition("/")[0],
        "author_name": _author_name(item),
        "created_at": item.created_at,
        "detail_url": reverse("studio:media-item", args=[item.pk]),
    }


def _library_url(kind: str = "", query: str = "", view: str = "grid", cursor: str | None = None) -> str:
    params = {
        key: value
        for key, value in (("type", kind), ("q", query), ("view", view), ("cursor", cursor))
        if value and not (key == "view" and value == "grid")
    }
    return reverse("studio:media") + (f"?{urlencode(params)}" if params else "")


@studio_page
def media_library(request):
    kind = request.GET.get("type") or ""
    if kind not in KINDS:
        kind = ""
    view = request.GET.get("view") if request.GET.get("view") in VIEWS else "grid"
    query = request.GET.get("q", "").strip()[:200]
    error, status = None, 200
    try:
        page = media_list(
            actor=request.actor,
            mime_type=f"{kind}/" if kind else None,
            search=query,
            cursor=request.GET.get("cursor"),
            limit=PAGE_SIZE,
            with_author=True,
        )
        items, next_cursor = [_row(item) for item in page.items], page.next_cursor
    except CmsError as exc:
        items, next_cursor, error, status = [], None, exc.message, exc.status
    return render_studio(
        request,
        "studio/media.html",
        {
            "items": items,
            "kind": kind,
            "kinds": KINDS,
            "query": query,
            "view": view,
            "error": error,
            "paged": bool(request.GET.get("cursor")),
            "next_url": _library_url(kind, query, view, next_cursor) if next_cursor else None,
            "first_url": _library_url(kind, query, view),
            "grid_url": _library_url(kind, query, "grid"),
            "list_url": _library_url(kind, query, "list"),
            "can_upload": can(request.actor, "media.create"),
            "limit_bytes": settings.CMS_MAX_UPLOAD_BYTES,
            "limit_text": filesizeformat(settings.CMS_MAX_UPLOAD_BYTES),
            "allowed_text": allowed_words(),
            "form_files": FORM_FILES,
        },
        section="media",
        status=status,
    )


@csrf_exempt
@studio_page
@require_POST
def media_upload_form(request):
    """The library's upload form without scripts: every ``file`` of the post, each within the upload limit, each
    reported on its own."""
    try:
        refuse_declared_oversize(request, settings.CMS_MAX_UPLOAD_BYTES * FORM_FILES)
        handler = limit_uploads(request, settings.CMS_MAX_UPLOAD_BYTES, per_file=True)
        return _checked_upload_form(request, handler.oversize if handler else [])
    except CmsError as exc:
        messages.error(request, f"Nothing was uploaded: {exc.message}")
        return redirect(_library_url())


@csrf_protect
def _checked_upload_form(request, oversize: list[str]):
    files = request.FILES.getlist("file")
    for name in oversize:
        messages.error(request, upload_problem(name, MediaTooLarge("")))
    if not files and not oversize:
        messages.error(request, "Choose one or more files to upload.")
    if len(files) > FORM_FILES:
        messages.error(request, f"At most {FORM_FILES} files at once; none were uploaded.")
        files = []
    for upload in files:
        try:
            item, deduplicated = media_upload(actor=request.actor, file=upload, filename=upload.name)
        except CmsError as exc:
            messages.error(request, upload_problem(upload.name, exc))
            continue
        if deduplicated:
            messages.info(request, f"{upload.name} is already in the library as {item.filename}.")
        else:
            messages.success(request, f"Uploaded {item.filename}.")
    return redirect(_library_url(view=request.POST.get("view") or "grid"))


def _saved_values(item) -> dict:
    focal = item.focal_point
    return {
        "alt": item.alt,
        "caption": item.caption,
        "focal_x": f"{focal[0]:g}" if focal else "",
        "focal_y": f"{focal[1]:g}" if focal else "",
    }


def _focal_change(values: dict) -> dict:
    """The form's two numbers as the service's ``focalPoint``: both empty clears it, one alone is an error."""
    x, y = values["focal_x"].strip(), values["focal_y"].strip()
    if not x and not y:
        return {"focalPoint": None}
    if not x or not y:
        raise ValidationError(
            details={"focalPoint": "Give both numbers, or leave both empty to centre crops."}
        )
    return {"focalPoint": {"x": x, "y": y}}


def _detail_context(request, item, *, values=None, errors=None) -> dict:
    usages = media_usages(actor=request.actor, media_id=item.pk, limit=USAGES_SHOWN)
    return {
        "item": _row(item),
        "focal": renderable(item.mime_type),
        "values": values or _saved_values(item),
        "errors": errors or {},
        "usages": usages.items,
        "usages_truncated": usages.truncated,
        "can_edit": can(request.actor, "media.update", owner_id=item.author_id),
        "can_delete": can(request.actor, "media.delete", owner_id=item.author_id),
    }


@studio_page
@require_http_methods(["GET", "POST"])
def media_item(request, media_id: str):
    """GET shows the item; POST saves its alt text, caption and (images) focal point through ``media_update``."""
    item = media_read(actor=request.actor, media_id=media_id, with_author=True)
    if request.method == "GET":
        return render_studio(
            request, "studio/media_item.html", _detail_context(request, item), section="media"
        )
    values = {name: request.POST.get(name, "") for name in ("alt", "caption", "focal_x", "focal_y")}
    try:
        sent = {"alt": values["alt"], "caption": values["caption"]}
        if renderable(item.mime_type):
            sent.update(_focal_change(values))
        changes = shapes.validate(MediaUpdateIn, sent).values()
        media_update(actor=request.actor, item=item, changes=changes)
    except CmsError as exc:
        if exc.status == 403:
            raise
        errors = {str(key): str(text) for key, text in (exc.details or {}).items()} if exc.details else {}
        # focalPoint.x and focalPoint.y are one control group on the page: one message for both.
        if "focalPoint" not in errors and any(key.startswith("focalPoint.") for key in errors):
            errors["focalPoint"] = "Each number must be from 0 to 1."
        context = _detail_context(request, item, values=values, errors=errors or {"form": exc.message})
        return render_studio(request, "studio/media_item.html", context, section="media", status=exc.status)
    messages.success(request, f"Saved {item.filename}.")
    return redirect("studio:media-item", media_id=item.pk)


@studio_page
@require_http_methods(["GET", "POST"])
def media_item_delete(request, media_id: str):
    """GET asks, naming the entries that use the item; POST deletes it through ``media_delete``."""
    item = media_read(actor=request.actor, media_id=media_id, with_author=True)
    if request.method == "POST":
        name = item.filename
        media_delete(actor=request.actor, item=media_get(media_id=item.pk))
        messages.success(request, f"Deleted {name}.")
        return redirect("studio:media")
    return render_studio(request, "studio/media_delete.html", _detail_context(request, item), section="media")
