"""One rich-text field of one entry in the Portable Text editor: the smallest real studio page that loads a stored
value into the editor island and saves what the island gives back, through the entry service like every studio save.
The browser tests use it to prove the editor loses nothing (tests/browser/test_portable_text_roundtrip.py)."""

from __future__ import annotations

import json

import orjson
from django.contrib import messages
from django.shortcuts import redirect

from apps.content import selectors, services
from apps.core.errors import CmsError, NotFound
from apps.schema.selectors import collection_for_read
from apps.studio.access import studio_page
from apps.studio.rendering import render_studio


def _field(collection, slug: str):
    for field in collection.fields.all():
        if field.slug == slug and field.type == "portableText":
            return field
    raise NotFound(f"'{collection.slug}' has no rich-text field '{slug}'.")


@studio_page
def portable_text_check(request, collection: str, entry: str, field: str):
    found = collection_for_read(slug=collection)
    target = _field(found, field)
    seen = selectors.entry_read(actor=request.actor, collection=found, ref=entry)
    item = seen.items[0]
    name = f"f-{target.slug}"
    error, status = None, 200
    if request.method == "POST":
        raw = request.POST.get(name, "")
        try:
            value = json.loads(raw) if raw.strip() else None
        except ValueError:
            error, status = "This is not valid JSON.", 400
        if error is None:
            try:
                services.entry_update(
                    actor=request.actor,
                    entry=item.pk,
                    collection=found,
                    data={target.slug: value},
                    rev=request.POST.get("_rev") or None,
                )
            except CmsError as exc:
                details = exc.details or {}
                error = next(
                    (text for key, text in details.items() if key.startswith(target.slug)), exc.message
                )
                status = exc.status
            else:
                messages.success(request, f"{target.label or target.slug} saved.")
                return redirect(request.path)
        shown = raw
    else:
        data = orjson.loads(item.data_raw) if getattr(item, "data_raw", None) else item.data
        stored = (data or {}).get(target.slug)
        shown = json.dumps(stored, ensure_ascii=False) if stored is not None else ""
    return render_studio(
        request,
        "studio/editor/portable_text_check.html",
        {
            "title": f"{found.label or found.slug}: {item.slug}",
            "field": target,
            "value": shown,
            "rev": item.rev,
            "error": error,
        },
        section=f"collection:{found.slug}",
        status=status,
    )
