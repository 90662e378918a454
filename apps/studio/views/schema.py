"""The schema builder's collection pages (admins: whoever the permission table lets write the schema): the list, the
create and edit form, deletion after saying how many entries go with it, and the schema downloads.

Every page asks ``schema.write`` first, so people who may not change the schema get the studio's 403 page rather than
a form the service would refuse on submit."""

from __future__ import annotations

import orjson
from django.contrib import messages
from django.http import HttpResponse, HttpResponseNotAllowed
from django.shortcuts import redirect

from apps.accounts.permissions import authorize
from apps.content import overviews
from apps.core.errors import CmsError, NotFound
from apps.schema import selectors, services, typescript
from apps.schema.presenters import present_schema
from apps.studio import schema_forms as forms
from apps.studio.access import studio_page
from apps.studio.rendering import render_studio

SECTION = "schema"


def admin_only(request) -> None:
    authorize(request.actor, "schema.write")


@studio_page
def schema_home(request):
    admin_only(request)
    collections = selectors.collection_list(actor=request.actor, with_fields=True)
    counts = overviews.entry_counts(actor=request.actor)
    rows = [
        {
            "collection": collection,
            "entries": counts.get(collection.pk, 0),
            "fields": len(collection.fields.all()),
        }
        for collection in collections
    ]
    return render_studio(request, "studio/schema/collections.html", {"rows": rows}, section=SECTION)


def _collection_form(request, *, values, collection=None, errors=None, message="", status=200):
    context = {
        "values": values,
        "collection": collection,
        "errors": errors or {},
        "message": message,
        "supports": forms.supports_choices(),
        "slug_rules": forms.slug_rules(),
        "taken": [item.slug for item in selectors.collection_list(actor=request.actor)],
    }
    return render_studio(
        request, "studio/schema/collection_form.html", context, section=SECTION, status=status
    )


@studio_page
def collection_new(request):
    admin_only(request)
    if request.method != "POST":
        values = {"supports": ["drafts", "revisions"]}
        return _collection_form(request, values=values)
    values = forms.read_collection_form(request.POST, creating=True)
    try:
        collection = services.collection_create(actor=request.actor, **values)
    except CmsError as exc:
        errors, _ = forms.split_errors(exc, [*values, *forms.COLLECTION_CONTROLS])
        return _collection_form(request, values=values, errors=errors, message=exc.message, status=exc.status)
    messages.success(request, f"Created the collection {collection.label}. Add its fields here.")
    return redirect("studio:schema-collection", collection.slug)


@studio_page
def collection_edit(request, collection: str):
    admin_only(request)
    target = selectors.collection_read(actor=request.actor, slug=collection, with_fields=False)
    if request.method != "POST":
        return _collection_form(request, values=forms.collection_values(target), collection=target)
    changes = forms.read_collection_form(request.POST, creating=False)
    try:
        services.collection_update(actor=request.actor, collection=target, changes=changes)
    except CmsError as exc:
        errors, _ = forms.split_errors(exc, [*changes, *forms.COLLECTION_CONTROLS])
        values = {**changes, "slug": target.slug}
        return _collection_form(
            request, values=values, collection=target, errors=errors, message=exc.message, status=exc.status
        )
    messages.success(request, "Saved the collection.")
    return redirect("studio:schema-collection", target.slug)


@studio_page
def collection_delete(request, collection: str):
    admin_only(request)
    target = selectors.collection_read(actor=request.actor, slug=collection, with_fields=True)
    if request.method == "POST":
        # The count was shown on the confirm page this form came from; force only then.
        services.collection_delete(
            actor=request.actor, collection=target, force=request.POST.get("confirmed") == "yes"
        )
        messages.success(request, f"Deleted the collection {target.label}.")
        return redirect("studio:schema")
    count = overviews.entry_counts(actor=request.actor).get(target.pk, 0)
    context = {"collection": target, "entries": count, "fields": len(target.fields.all())}
    return render_studio(request, "studio/schema/collection_delete.html", context, section=SECTION)


@studio_page
def schema_download(request, format: str):
    """The same export as ``GET /_cms/api/schema`` (its selector and presenter), served as a file to save."""
    admin_only(request)
    if request.method != "GET":
        return HttpResponseNotAllowed(["GET"])
    if format not in ("ts", "json"):
        raise NotFound("The schema downloads are export.ts (TypeScript) and export.json (JSON schema).")
    collections = selectors.collection_list(actor=request.actor, with_fields=True)
    if format == "ts":
        response = HttpResponse(typescript.render(collections), content_type="text/typescript; charset=utf-8")
        name = "cms-schema.ts"
    else:
        response = HttpResponse(
            orjson.dumps(present_schema(collections), option=orjson.OPT_INDENT_2),
            content_type="application/json",
        )
        name = "cms-schema.json"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
