"""Bulk actions on chosen entries of a collection: publish, unpublish, move to the trash, restore, delete for good.

The first POST shows what was chosen and asks to confirm (works without JavaScript); the confirmed POST hands each
entry to its single-entry service, each in its own transaction, so one refusal (a contributor may not publish, an
entry in the wrong state) leaves the others done. The outcome comes back as messages: how many were done, and each
refusal in the service's words."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.contrib import messages
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from apps.content import services
from apps.content.selectors import entries_chosen
from apps.core.errors import CmsError, ValidationError
from apps.schema.selectors import collection_for_read, title_field
from apps.studio.access import studio_page
from apps.studio.listing import list_rows
from apps.studio.rendering import render_studio

MAX_CHOSEN = 200


@dataclass(frozen=True)
class Action:
    service: Callable
    verb: str  # the button: "Publish"
    done: str  # the outcome: "published"


ACTIONS = {
    "publish": Action(services.entry_publish, "Publish", "published"),
    "unpublish": Action(services.entry_unpublish, "Unpublish", "unpublished"),
    "trash": Action(services.entry_trash, "Move to trash", "moved to the trash"),
    "restore": Action(services.entry_restore, "Restore", "restored"),
    "delete": Action(services.entry_delete_permanently, "Delete permanently", "deleted permanently"),
}


def _entries(count: int) -> str:
    return f"{count} {'entry' if count == 1 else 'entries'}"


def _back(request, collection) -> str:
    """Where the person came from (a list or trash page of this collection), else the collection's list."""
    wanted = request.POST.get("next", "")
    prefix = reverse("studio:entries", args=[collection.slug])
    if wanted.startswith(prefix) and url_has_allowed_host_and_scheme(
        wanted, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return wanted
    return prefix


@studio_page
@require_POST
def entries_bulk(request, collection: str):
    found = collection_for_read(slug=collection)
    actor = request.actor
    back = _back(request, found)
    name = request.POST.get("action", "")
    action = ACTIONS.get(name)
    if action is None:
        raise ValidationError(
            f"Unknown bulk action '{name}'; choose one of: {', '.join(ACTIONS)}.",
            details={"action": f"One of: {', '.join(ACTIONS)}."},
        )
    ids = request.POST.getlist("ids")
    if not ids:
        messages.error(request, "Choose at least one entry first.")
        return redirect(back)
    if len(ids) > MAX_CHOSEN:
        raise ValidationError(
            f"At most {MAX_CHOSEN} entries at a time (got {len(ids)}).",
            details={"ids": f"At most {MAX_CHOSEN}."},
        )
    key = title_field(found)
    chosen = list_rows(
        entries_chosen(actor=actor, collection=found, ids=ids, project=[key] if key else []),
        title_key=key,
        actor=actor,
    )
    if not chosen:
        messages.error(request, "None of the chosen entries exists any more.")
        return redirect(back)
    if request.POST.get("confirmed") != "yes":
        context = {
            "collection": found,
            "action": name,
            "verb": action.verb,
            "rows": chosen,
            "count": _entries(len(chosen)),
            "back": back,
        }
        return render_studio(
            request, "studio/entries/confirm.html", context, section=f"collection:{found.slug}"
        )
    done = 0
    refusals = []
    for row in chosen:
        try:
            action.service(actor=actor, entry=row.id, collection=found)
        except CmsError as exc:
            refusals.append((row.title, exc.message))
        else:
            done += 1
    if done:
        messages.success(request, f"{_entries(done)} {action.done}.")
    for title, message in refusals:
        messages.error(request, f"“{title}” was not {action.done}: {message}")
    return redirect(back)
