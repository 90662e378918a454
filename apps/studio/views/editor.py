"""The entry editor: a form per collection, built from its field definitions at run time, over the content services.

Saving sends the ``_rev`` the page was loaded with, so an edit made by someone else meanwhile is never overwritten
unnoticed: the service answers CONFLICT and the page shows who changed what, keeps everything typed, and lets the
person reload or overwrite deliberately. Publishing saves the pending edits and publishes in one service call
(``entry_update`` with ``status="published"``), so a publish cannot race an unsaved edit. Scheduling saves them and
schedules in one transaction.
"""

from __future__ import annotations

from typing import Any

import orjson
from django.conf import settings
from django.contrib import messages
from django.db import transaction
from django.shortcuts import redirect
from django.urls import reverse

from apps.accounts.permissions import can
from apps.content import selectors as content_selectors
from apps.content import services as content_services
from apps.content.models import Status
from apps.core.errors import CmsError, Conflict, ValidationError
from apps.core.timefmt import parse_iso
from apps.media.presenters import present_media
from apps.media.selectors import media_by_ids
from apps.plugins.selectors import editor_block_types
from apps.schema.selectors import collection_for_read, collections_for_read, title_field
from apps.site.selectors import site_settings
from apps.studio import editor_fields as fields_ui
from apps.studio import editor_panel as panel
from apps.studio.access import studio_page
from apps.studio.rendering import render_studio

CONFLICT_KEY = "studio.conflict.{}"


class Editor:
    """One editor page: the collection, its fields, the entry (None while creating) and the form's state."""

    def __init__(self, request, collection_slug: str, entry_id: str | None = None):
        self.request = request
        self.actor = request.actor
        self.collection = collection_for_read(slug=collection_slug)
        self.fields = sorted(
            self.collection.fields.all(), key=lambda item: (item.sort_order, item.created_at)
        )
        zone_name = site_settings().timezone or "UTC"
        self.zone, self.zone_name = fields_ui.site_zone(zone_name), zone_name
        self.taxonomies = panel.attached_taxonomies(self.actor, self.collection)
        self.entry = None
        self.data: dict = {}
        self.live: dict | None = None
        if entry_id is not None:
            seen = content_selectors.entry_read(actor=self.actor, collection=self.collection, ref=entry_id)
            self.entry = seen.items[0]
            self.data = orjson.loads(self.entry.data_raw) if self.entry.data_raw else {}
            self.live = orjson.loads(self.entry.live_raw) if self.entry.live_raw else None
            # Parsed once here, so the state table's "was it ever published" asks no second query.
            self.entry.live_data = self.live
        self.errors: dict[str, str] = {}
        self.state: dict[str, Any] = {}

    # --- state --------------------------------------------------------------------------------------------------

    def load(self, data: dict | None = None) -> None:
        values = self.data if data is None else data
        self.state = fields_ui.initial_state(self.fields, values, self.zone)
        self.state.update(panel.initial_terms(self.collection, self.entry.pk if self.entry else None))
        self.state.update(panel.initial_bylines(self.entry))
        self.state["slug"] = self.entry.slug if self.entry else ""
        self.state["_rev"] = self.entry.rev if self.entry else ""

    def take_post(self) -> None:
        post = self.request.POST
        self.state = fields_ui.posted_state(self.fields, post)
        self.state.update(panel.posted_terms(self.taxonomies, post))
        self.state.update(panel.posted_bylines(post))
        for name in ("slug", "_rev", "schedule_at", "locale", "translation_of"):
            if name in post:
                self.state[name] = post.get(name, "")

    def values(self) -> dict:
        data, problems = fields_ui.to_data(self.fields, self.state, self.zone, creating=self.entry is None)
        if problems:
            raise ValidationError(details=problems)
        return data

    # --- page ---------------------------------------------------------------------------------------------------

    @property
    def has_changes(self) -> bool:
        return bool(self.entry and self.live is not None and self.live != self.data)

    def url(self) -> str:
        if self.entry is None:
            return reverse("studio:entry-new", args=[self.collection.slug])
        return reverse("studio:entry-edit", args=[self.collection.slug, self.entry.pk])

    def render(self, *, status: int = 200, message: str = "", conflict: dict | None = None, note: str = ""):
        title_slug = title_field(self.collection)
        title_control = fields_ui.control(title_slug) if title_slug else ""
        media = {
            item.pk: present_media(item)
            for item in media_by_ids(fields_ui.media_ids(self.fields, self.state)).values()
        }
        choices = panel.byline_choices(self.actor)
        entry = self.entry
        life = panel.lifecycle(self.actor, entry, self.has_changes) if entry else None
        editable = life["can_save"] if life else can(self.actor, "content.create")
        known = {fields_ui.control(item.slug) for item in self.fields}
        general = {
            key: text
            for key, text in self.errors.items()
            if key not in {item.slug for item in self.fields}
            and key not in ("slug", "locale", "scheduledAt")
            and not key.startswith(("taxonomies.", "bylines."))
        }
        context = {
            "collection": self.collection,
            "entry": entry,
            "creating": entry is None,
            "form_url": self.url(),
            "widgets": fields_ui.build_widgets(
                self.fields,
                self.state,
                self.errors,
                zone_name=self.zone_name,
                media=media,
                title_control=title_control,
            ),
            "title_control": title_control if title_control in known else "",
            "state": self.state,
            "loaded_rev": self.state.get("_rev", ""),
            "errors": self.errors,
            "general_errors": general,
            "message": message,
            "note": note,
            "zone_name": self.zone_name,
            "editable": editable,
            "life": life,
            "may_publish": ("publish" in life["allowed"] if life else can(self.actor, "content.publish")),
            "has_changes": self.has_changes,
            "taxonomies": panel.taxonomy_controls(self.actor, self.taxonomies, self.state, self.errors),
            "bylines": panel.byline_rows(self.state, choices, self.errors),
            "byline_choices": [byline for byline in choices if byline.pk not in self.state.get("byline", [])],
            "i18n": panel.i18n_on(),
            "locales": settings.CMS_LOCALES,
            "translations": panel.translations(self.actor, self.collection, entry) if entry else None,
            "conflict": conflict,
            **self._rich_text_context(),
            "stashed": self._stashed() if status == 200 and conflict is None and not self.errors else None,
        }
        if entry is not None:
            address = [self.collection.slug, entry.pk]
            context["compare_url"] = reverse("studio:entry-compare", args=address)
            if self.collection.supports_feature("revisions"):
                context["revisions_url"] = reverse("studio:entry-revisions", args=address)
            context["title"] = self._title()
            # Preview opens the collection's front-end preview route with a fresh token (views/delivery.py).
            if self.collection.preview_url and can(self.actor, "content.preview"):
                context["preview_url"] = reverse("studio:entry-preview", args=address)
        return render_studio(
            self.request,
            "studio/editor/edit.html",
            context,
            section=f"collection:{self.collection.slug}",
            status=status,
        )

    def _rich_text_context(self) -> dict:
        """What the rich-text editor needs besides the value: the block types plugins add (with their fields'
        schema), and the collections a link to an entry may point into (searched by the entry picker)."""
        if not any(item.type == "portableText" for item in self.fields):
            return {"block_types_json": "", "link_collections_json": ""}
        collections = [
            {"slug": item.slug, "label": item.label or item.slug} for item in collections_for_read()
        ]
        return {
            "block_types_json": orjson.dumps(editor_block_types()).decode(),
            "link_collections_json": orjson.dumps(collections).decode(),
        }

    def _title(self) -> str:
        key = title_field(self.collection)
        value = self.data.get(key) if key else None
        return value if isinstance(value, str) and value.strip() else self.entry.slug

    def _stashed(self):
        if self.entry is None or self.request.method != "GET":
            return None
        return self.request.session.pop(CONFLICT_KEY.format(self.entry.pk), None)

    def fail(self, exc: CmsError):
        self.errors = (
            {str(key): str(text) for key, text in (exc.details or {}).items()}
            if isinstance(exc.details, dict)
            else {}
        )
        return self.render(status=exc.status, message=exc.message)


def _byline_step(editor: Editor):
    """A panel button (add, remove, move a byline) pressed without JavaScript: the form comes back with the change,
    nothing saved."""
    panel.apply_byline_step(
        editor.state, editor.request.POST["_bylines"], editor.request.POST.get("byline_add", "")
    )
    return editor.render(note="Not saved yet: save to keep the bylines as listed.")


@studio_page
def entry_new(request, collection: str):
    editor = Editor(request, collection)
    if request.method != "POST":
        editor.load(
            {field.slug: field.default_value for field in editor.fields if field.default_value is not None}
        )
        editor.state["locale"] = request.GET.get("locale", "")
        editor.state["translation_of"] = request.GET.get("translation_of", "")
        return editor.render()
    editor.take_post()
    if "_bylines" in request.POST:
        return _byline_step(editor)
    publish = request.POST.get("_action") == "publish"
    try:
        data = editor.values()
        with transaction.atomic():
            entry = content_services.entry_create(
                actor=editor.actor,
                collection=editor.collection,
                data=data,
                slug=editor.state.get("slug") or None,
                status=Status.PUBLISHED if publish else Status.DRAFT,
                locale=editor.state.get("locale") or None,
                translation_of=editor.state.get("translation_of") or None,
                bylines=panel.credits(editor.state) or None,
            )
            panel.save_terms(editor.actor, entry, editor.collection, editor.taxonomies, editor.state)
    except CmsError as exc:
        return editor.fail(exc)
    messages.success(request, "Published." if publish else "Draft saved.")
    return redirect("studio:entry-edit", collection, entry.pk)


@studio_page
def entry_edit(request, collection: str, entry_id: str):
    editor = Editor(request, collection, entry_id)
    if request.method != "POST":
        editor.load()
        return editor.render()
    editor.take_post()
    if "_bylines" in request.POST:
        return _byline_step(editor)
    action = request.POST.get("_action") or "save"
    # "Overwrite with my version" carries the _rev the conflict page showed: a deliberate choice to replace it.
    rev = request.POST.get("_overwrite") or editor.state.get("_rev") or None
    try:
        data = editor.values()
        with transaction.atomic():
            entry = content_services.entry_update(
                actor=editor.actor,
                entry=editor.entry.pk,
                collection=editor.collection,
                data=data,
                slug=editor.state.get("slug"),
                status=Status.PUBLISHED if action == "publish" else None,
                rev=rev,
                bylines=panel.credits(editor.state),
            )
            panel.save_terms(editor.actor, entry, editor.collection, editor.taxonomies, editor.state)
            if action == "schedule":
                content_services.entry_schedule(
                    actor=editor.actor,
                    entry=entry.pk,
                    collection=editor.collection,
                    scheduled_at=_schedule_time(editor),
                )
    except Conflict as exc:
        if "currentRev" in (exc.details or {}) or not exc.details:
            return _conflict(editor, data)
        return editor.fail(exc)
    except CmsError as exc:
        return editor.fail(exc)
    done = {"publish": "Published.", "schedule": "Scheduled."}.get(action, "Saved.")
    messages.success(request, done)
    return redirect("studio:entry-edit", collection, entry.pk)


def _schedule_time(editor: Editor):
    text = (editor.state.get("schedule_at") or "").strip()
    instant = parse_iso(fields_ui.from_local_input(text, editor.zone)) if text else None
    if instant is None:
        raise ValidationError(details={"scheduledAt": "Give the date and time to publish at."})
    return instant


def _conflict(editor: Editor, submitted: dict):
    """Someone saved the entry since this form was loaded: say who and when, which fields now differ from what was
    typed, and keep every typed value (in the form, and in a read-only copy)."""
    # The editor read the entry as it is now, at the start of this request.
    current = editor
    latest = None
    page, _ = content_selectors.revision_list(
        actor=editor.actor, collection=editor.collection, ref=current.entry.pk, limit=1
    )
    if page.items:
        latest = page.items[0]
    differing = [
        item.label or item.slug
        for item in editor.fields
        if submitted.get(item.slug) != current.data.get(item.slug)
    ]
    shown = fields_ui.shown_values(editor.fields, editor.state)
    editor.request.session[CONFLICT_KEY.format(current.entry.pk)] = shown
    author = latest.author if latest is not None else None
    conflict = {
        "updated_at": current.entry.updated_at,
        "revision": latest,
        "by": (author.name or author.email) if author else "",
        "fields": differing,
        "current_rev": current.entry.rev,
        "shown": shown,
    }
    return editor.render(
        status=409,
        message="This entry was changed by someone else since you opened it. Nothing of yours was saved yet.",
        conflict=conflict,
    )
