"""The delivery pages of the studio: the editor's Preview (a fresh preview token, then the collection's front-end
preview route) and the redirects page (list with search and cursor pages, add, edit, delete), all through
apps.delivery's selectors and services with the REST inputs."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponseNotAllowed, HttpResponseRedirect, JsonResponse
from django.shortcuts import redirect

from apps.accounts.permissions import authorize, can
from apps.core import shapes
from apps.core.errors import CmsError, NotFound
from apps.delivery import selectors, services
from apps.delivery.inputs import RedirectIn, RedirectListQuery, RedirectUpdateIn
from apps.delivery.models import REDIRECT_STATUSES
from apps.delivery.presenters import present_preview
from apps.schema.selectors import collection_for_read
from apps.studio.access import studio_page
from apps.studio.rendering import render_studio
from apps.studio.searched_pages import searched_page
from apps.studio.site_forms import form_errors

SECTION = "redirects"
FIELDS = ("source", "location", "status")
PAGE_SIZE = 50


@studio_page
def entry_preview(request, collection: str, entry_id: str):
    """POST: a preview token for the entry; JSON for the editor's script, else a redirect to the preview route."""
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    target = collection_for_read(slug=collection)
    preview = services.entry_preview_create(actor=request.actor, collection=target, ref=entry_id)
    if preview.url is None:
        raise NotFound(f"'{target.slug}' has no preview URL; set one in the schema builder.")
    if "application/json" in request.headers.get("Accept", ""):
        return JsonResponse({"success": True, "data": present_preview(preview)}, status=201)
    return HttpResponseRedirect(preview.url, status=303)


def _page(request, *, values=None, errors=None, status: int = 200):
    page = searched_page(
        request,
        query=RedirectListQuery,
        read=selectors.redirect_list,
        url_name="studio:redirects",
        limit=PAGE_SIZE,
    )
    context = {
        "redirects": page.items,
        "search": page.search,
        "may_write": can(request.actor, "redirects.write"),
        "statuses": REDIRECT_STATUSES,
        "values": values or {"source": "", "location": "", "status": "301"},
        "errors": errors or {},
        "next_url": page.next_url,
        "first_url": page.first_url,
    }
    return render_studio(request, "studio/redirects.html", context, section=SECTION, status=status)


@studio_page
def redirects_page(request):
    if request.method != "POST":
        return _page(request)
    values = {name: request.POST.get(name, "").strip() for name in FIELDS}
    try:
        body = shapes.validate(RedirectIn, values).values()
        created = services.redirect_create(actor=request.actor, **body)
    except CmsError as exc:
        # The whole sentence on top (a loop names the other redirect), each detail beside its control.
        errors = {**form_errors(exc, FIELDS), "form": exc.message}
        return _page(request, values=values, errors=errors, status=exc.status)
    messages.success(request, f"Added the redirect {created.source} → {created.location} ({created.status}).")
    return redirect("studio:redirects")


@studio_page
def redirect_edit(request, redirect_id: str):
    # Readers of the list may not change it: the page is refused to them, not shown with a form they cannot send.
    authorize(request.actor, "redirects.write")
    target = selectors.redirect_get(redirect_id=redirect_id)
    context = {"target": target, "statuses": REDIRECT_STATUSES, "errors": {}}
    if request.method != "POST":
        values = {"source": target.source, "location": target.location, "status": str(target.status)}
        return render_studio(
            request, "studio/redirect_edit.html", {**context, "values": values}, section=SECTION
        )
    values = {name: request.POST.get(name, "").strip() for name in FIELDS}
    try:
        changes = shapes.validate(RedirectUpdateIn, values).values()
        changed = services.redirect_update(actor=request.actor, redirect=target, changes=changes)
    except CmsError as exc:
        errors = {**form_errors(exc, FIELDS), "form": exc.message}
        return render_studio(
            request,
            "studio/redirect_edit.html",
            {**context, "values": values, "errors": errors},
            section=SECTION,
            status=exc.status,
        )
    messages.success(request, f"Saved the redirect {changed.source} → {changed.location} ({changed.status}).")
    return redirect("studio:redirects")


@studio_page
def redirect_delete(request, redirect_id: str):
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    target = selectors.redirect_get(redirect_id=redirect_id)
    services.redirect_delete(actor=request.actor, redirect=target)
    messages.success(request, f"Deleted the redirect from {target.source}.")
    return redirect("studio:redirects")
