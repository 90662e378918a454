"""An entry's revisions (list, one revision, restoring it) and Compare (live ↔ working copy).

Reads go through the content selectors (``revision_list``, ``revision_read``, ``entry_read``, ``entry_compare``),
the restore through ``revision_restore``; both sides of every comparison are shown by ``apps.studio.diffs``."""

from __future__ import annotations

import orjson
from django.contrib import messages
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from apps.accounts.permissions import can
from apps.content import states
from apps.content.selectors import entry_compare, entry_read, revision_get, revision_list, revision_read
from apps.content.services import revision_restore
from apps.core.errors import CmsError, NotFound
from apps.core.timefmt import iso
from apps.schema.selectors import collection_for_read, title_field
from apps.studio.access import studio_page
from apps.studio.diffs import field_changes, field_values
from apps.studio.rendering import render_studio

PAGE_SIZE = 30
ACTIONS = {"create": "Created", "update": "Saved", "publish": "Published", "restore": "Restored a revision"}


def _title(collection, values: dict | None, fallback: str) -> str:
    key = title_field(collection)
    value = (values or {}).get(key) if key else None
    return value if isinstance(value, str) and value.strip() else fallback


def _entry(request, collection, entry_id: str):
    """The entry as the signed-in person may read it, its working copy parsed, and its title."""
    entry = entry_read(actor=request.actor, collection=collection, ref=entry_id).items[0]
    data = orjson.loads(entry.data_raw) if entry.data_raw else {}
    return entry, data, _title(collection, data, entry.slug)


def _with_revisions(slug: str):
    collection = collection_for_read(slug=slug)
    if not collection.supports_feature("revisions"):
        raise NotFound(f"{collection.label or collection.slug} do not keep revisions.")
    return collection


def _who(user) -> str:
    if user is None:
        return "The system"
    return user.name or user.email


def _may_restore(actor, entry) -> bool:
    """What the restore itself checks (the permission table, then the lifecycle table), asked beforehand so the
    button shows only where it would work."""
    if not can(actor, "content.update", owner_id=entry.author_id):
        return False
    try:
        states.check("restore_revision", entry)
    except CmsError:
        return False
    return True


@studio_page
def revisions_page(request, collection: str, entry_id: str):
    found = _with_revisions(collection)
    entry, _, title = _entry(request, found, entry_id)
    page, total = revision_list(
        actor=request.actor, collection=found, ref=entry.pk, cursor=request.GET.get("cursor"), limit=PAGE_SIZE
    )
    rows = [
        {
            "revision": revision,
            "action": ACTIONS.get(revision.action, revision.action.replace("_", " ").capitalize()),
            "who": _who(revision.author),
            "when": iso(revision.created_at),
        }
        for revision in page.items
    ]
    context = {"collection": found, "entry": entry, "title": title, "rows": rows, "total": total}
    context["next_cursor"] = page.next_cursor
    return render_studio(
        request, "studio/entries/revisions.html", context, section=f"collection:{found.slug}"
    )


def _revision_of(request, collection, entry, revision_id: str, *, for_restore: bool = False):
    revision = (
        revision_get(revision_id=revision_id)
        if for_restore
        else revision_read(actor=request.actor, revision_id=revision_id)
    )
    # The address names the entry: a revision of another entry is not found here.
    if revision.entry_id != entry.pk or revision.collection_id != collection.pk:
        raise NotFound(f"No revision {revision_id} of this entry.")
    return revision


def _revision_context(request, collection, entry, data, title, revision) -> dict:
    fields = list(collection.fields.all())
    return {
        "collection": collection,
        "entry": entry,
        "title": title,
        "revision": revision,
        "action": ACTIONS.get(revision.action, revision.action),
        "who": _who(revision.author),
        "values": field_values(fields, revision.data),
        "changes": field_changes(fields, revision.data, data),
        "may_restore": _may_restore(request.actor, entry),
    }


@studio_page
@require_http_methods(["GET", "HEAD"])
def revision_page(request, collection: str, entry_id: str, revision_id: str):
    found = _with_revisions(collection)
    entry, data, title = _entry(request, found, entry_id)
    revision = _revision_of(request, found, entry, revision_id)
    context = _revision_context(request, found, entry, data, title, revision)
    return render_studio(request, "studio/entries/revision.html", context, section=f"collection:{found.slug}")


@studio_page
@require_POST
def revision_restore_page(request, collection: str, entry_id: str, revision_id: str):
    found = _with_revisions(collection)
    entry, data, title = _entry(request, found, entry_id)
    revision = _revision_of(request, found, entry, revision_id, for_restore=True)
    try:
        restored = revision_restore(actor=request.actor, revision=revision)
    except CmsError as exc:
        context = _revision_context(request, found, entry, data, title, revision)
        context["error"] = exc.message
        return render_studio(
            request,
            "studio/entries/revision.html",
            context,
            section=f"collection:{found.slug}",
            status=exc.status,
        )
    messages.success(
        request,
        f"The revision of {revision.created_at:%Y-%m-%d %H:%M} UTC is now the working copy of “{_title(found, restored.data, restored.slug)}”. "
        "Nothing was published.",
    )
    return redirect(reverse("studio:entry-revisions", args=[found.slug, entry.pk]))


@studio_page
def compare_page(request, collection: str, entry_id: str):
    found = collection_for_read(slug=collection)
    entry, _, _ = _entry(request, found, entry_id)
    comparison = entry_compare(actor=request.actor, collection=found, ref=entry.pk)
    changes = field_changes(list(found.fields.all()), comparison.live, comparison.draft)
    context = {
        "collection": found,
        "entry": entry,
        "title": _title(found, comparison.draft, entry.slug),
        "published": comparison.live is not None,
        "has_changes": comparison.has_changes,
        "changes": changes,
        "changed_count": sum(1 for change in changes if change.changed),
    }
    return render_studio(request, "studio/entries/compare.html", context, section=f"collection:{found.slug}")
