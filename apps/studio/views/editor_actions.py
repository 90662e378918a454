"""The editor's lifecycle buttons that do not save the form: each posts here and calls one content service."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponseNotAllowed
from django.shortcuts import redirect

from apps.content import services as content_services
from apps.content.selectors import entry_get
from apps.core.errors import NotFound
from apps.schema.selectors import collection_for_read
from apps.studio.access import studio_page

# The action in the address → the service that performs it and what the page says afterwards.
ACTIONS = {
    "publish": (content_services.entry_publish, "Published."),
    "unpublish": (content_services.entry_unpublish, "Unpublished: the entry is a draft again."),
    "unschedule": (content_services.entry_unschedule, "The scheduled publication was cancelled."),
    "discard": (
        content_services.entry_discard_draft,
        "Changes discarded: the entry is its published version again.",
    ),
    "trash": (content_services.entry_trash, "Moved to the trash."),
    "restore": (content_services.entry_restore, "Restored from the trash."),
}


@studio_page
def entry_action(request, collection: str, entry_id: str, action: str):
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    target = collection_for_read(slug=collection)
    if action == "duplicate":
        copy = content_services.entry_duplicate(actor=request.actor, entry=_own(target, entry_id))
        messages.success(request, "Duplicated: this is the copy, a new draft.")
        return redirect("studio:entry-edit", collection, copy.pk)
    if action not in ACTIONS:
        raise NotFound(f"The editor has no action '{action}'.")
    service, done = ACTIONS[action]
    entry = service(actor=request.actor, entry=entry_id, collection=target)
    messages.success(request, done)
    return redirect("studio:entry-edit", collection, entry.pk)


def _own(collection, entry_id: str):
    """The entry to duplicate, which must be one of ``collection``'s (the service takes any entry)."""
    return entry_get(collection=collection, actor=None, ref=entry_id, for_update=True)
