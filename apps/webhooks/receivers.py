"""Domain events (apps/core/events.py) turned into webhook events: each receiver names the event type, the ids of
the resource and how the public API presents it, and leaves the rest to ``outbox.emit``.

Receivers run inside the writer's transaction. Each first reads the cached subscriptions (one cache lookup, passed on
to the outbox): a write without endpoints pays that and nothing else.
"""

from __future__ import annotations

import copy
from typing import Any

from apps.webhooks import outbox
from apps.webhooks.outbox import Change

ENTRY_ACTIONS = {
    "create": "entry.created",
    "update": "entry.updated",
    "publish": "entry.published",
    "unpublish": "entry.unpublished",
    "schedule": "entry.scheduled",
    "unschedule": "entry.unscheduled",
    "discard_draft": "entry.updated",
    "trash": "entry.trashed",
    "restore": "entry.restored",
    "revision_restore": "entry.updated",
    "translation_sync": "entry.updated",
}
MEDIA_ACTIONS = {
    "upload": "media.created",
    "create": "media.created",
    "update": "media.updated",
    "delete": "media.deleted",
}
VERBS = {"create": "created", "update": "updated", "delete": "deleted"}


# --- entries ---------------------------------------------------------------------------------------------------------


def _entry_ids(entry, collection) -> dict[str, Any]:
    return {"id": entry.pk, "collection": collection.slug, "locale": entry.locale, "slug": entry.slug}


def _present_entries(collection, entries: list) -> list[Any]:
    # The public API's view: the published version only (drafts=False), media and terms resolved, in one go.
    # Bylines as the list reads them: no query for entries without one. On copies: the writer keeps its objects.
    from apps.content.presenters import present_entries
    from apps.content.selectors import Entries, attach_credits

    return present_entries(
        Entries(collection, attach_credits([copy.copy(entry) for entry in entries]), drafts=False)
    )


def _emit_entries(found, event_type: str, entries: list, actor) -> None:
    collection = entries[0].collection
    outbox.emit_many(
        found,
        event_type,
        actor=actor,
        collection=collection.slug,
        changes=lambda: [Change(_entry_ids(entry, collection)) for entry in entries],
        present_all=lambda: _present_entries(collection, entries),
    )


def on_entry_changed(sender, *, entry, action: str, actor=None, **kwargs) -> None:
    found = outbox.subscriptions()
    if not found or action not in ENTRY_ACTIONS:
        return
    _emit_entries(found, ENTRY_ACTIONS[action], [entry], actor)


def on_entries_created(sender, *, entries, actor=None, **kwargs) -> None:
    found = outbox.subscriptions()
    if not found or not entries:
        return
    _emit_entries(found, "entry.created", list(entries), actor)


def on_entry_deleting(sender, *, entry, actor=None, **kwargs) -> None:
    found = outbox.subscriptions()
    if not found:
        return
    _emit_entries(found, "entry.deleted", [entry], actor)


# --- media and schema ------------------------------------------------------------------------------------------------


def on_media_changed(sender, *, media, action: str, deduplicated: bool = False, actor=None, **kwargs) -> None:
    found = outbox.subscriptions()
    if not found or deduplicated or action not in MEDIA_ACTIONS:
        return
    from apps.media.presenters import present_media

    outbox.emit(
        found, MEDIA_ACTIONS[action], actor=actor, ids={"id": media.pk}, present=lambda: present_media(media)
    )


def _emit_collection(found, event_type: str, collection, actor) -> None:
    from apps.schema.presenters import present_collection

    outbox.emit(
        found,
        event_type,
        actor=actor,
        collection=collection.slug,
        ids={"id": collection.pk, "slug": collection.slug},
        present=lambda: present_collection(collection, with_fields=True),
    )


def on_collection_changed(sender, *, collection, action: str, actor=None, **kwargs) -> None:
    if found := outbox.subscriptions():
        _emit_collection(found, f"schema.collection.{VERBS[action]}", collection, actor)


def on_collection_deleting(sender, *, collection, actor=None, **kwargs) -> None:
    if found := outbox.subscriptions():
        _emit_collection(found, "schema.collection.deleted", collection, actor)


def _emit_field(found, event_type: str, collection, field, actor) -> None:
    from apps.schema.presenters import present_field

    outbox.emit(
        found,
        event_type,
        actor=actor,
        collection=collection.slug,
        ids={"id": field.pk, "slug": field.slug, "collection": collection.slug},
        present=lambda: {"collection": collection.slug, **present_field(field)},
    )


def on_field_saved(sender, *, collection, field, previous=None, actor=None, **kwargs) -> None:
    if found := outbox.subscriptions():
        _emit_field(
            found,
            "schema.field.created" if previous is None else "schema.field.updated",
            collection,
            field,
            actor,
        )


def on_field_removing(sender, *, collection, field, actor=None, **kwargs) -> None:
    if found := outbox.subscriptions():
        _emit_field(found, "schema.field.deleted", collection, field, actor)


# --- taxonomies, menus, site -----------------------------------------------------------------------------------------


def on_taxonomy_changed(sender, *, taxonomy, action: str, actor=None, **kwargs) -> None:
    found = outbox.subscriptions()
    if not found:
        return
    from apps.taxonomy.presenters import present_taxonomy

    outbox.emit(
        found,
        f"taxonomy.{VERBS[action]}",
        actor=actor,
        ids={"id": taxonomy.pk, "name": taxonomy.name},
        present=lambda: present_taxonomy(taxonomy),
    )


def on_term_changed(sender, *, term, action: str, actor=None, **kwargs) -> None:
    found = outbox.subscriptions()
    if not found:
        return
    from apps.taxonomy.presenters import present_term

    name = term.taxonomy.name
    outbox.emit(
        found,
        f"term.{VERBS[action]}",
        actor=actor,
        ids={"id": term.pk, "slug": term.slug, "taxonomy": name},
        present=lambda: present_term(term, taxonomy_name=name),
    )


def on_menu_changed(sender, *, menu, action: str, actor=None, **kwargs) -> None:
    found = outbox.subscriptions()
    if not found:
        return
    from apps.menus.presenters import present_menu, present_menu_detail
    from apps.menus.selectors import menu_tree

    def present():
        # A deleted menu has no items left to show.
        if action == "delete":
            return present_menu(menu)
        return present_menu_detail(menu, menu_tree(menu=menu, drafts=False))

    outbox.emit(
        found, f"menu.{VERBS[action]}", actor=actor, ids={"id": menu.pk, "name": menu.name}, present=present
    )


def on_section_changed(sender, *, section, action: str, actor=None, **kwargs) -> None:
    found = outbox.subscriptions()
    if not found:
        return
    from apps.site.presenters import present_section

    outbox.emit(
        found,
        f"section.{VERBS[action]}",
        actor=actor,
        ids={"id": section.pk, "slug": section.slug},
        present=lambda: present_section(section),
    )


def on_widget_changed(sender, *, widget, action: str, actor=None, **kwargs) -> None:
    found = outbox.subscriptions()
    if not found:
        return
    from apps.site.presenters import present_widget

    area = widget.area.name
    outbox.emit(
        found,
        f"widget.{VERBS[action]}",
        actor=actor,
        ids={"id": widget.pk, "area": area},
        present=lambda: {"area": area, **present_widget(widget)},
    )


def on_widget_area_changed(sender, *, area, action: str, actor=None, **kwargs) -> None:
    found = outbox.subscriptions()
    if not found:
        return
    from apps.site.presenters import present_widget_area
    from apps.site.selectors import widget_area_get

    def present():
        return present_widget_area(area if action == "delete" else widget_area_get(name=area.name))

    outbox.emit(
        found,
        f"widget.area.{VERBS[action]}",
        actor=actor,
        ids={"id": area.pk, "name": area.name},
        present=present,
    )


def on_settings_changed(sender, *, settings, actor=None, **kwargs) -> None:
    found = outbox.subscriptions()
    if not found:
        return
    from apps.site.presenters import present_settings
    from apps.site.selectors import site_settings

    outbox.emit(
        found, "settings.updated", actor=actor, ids={}, present=lambda: present_settings(site_settings())
    )


def on_import_finished(sender, *, job, outcome: str, actor=None, **kwargs) -> None:
    found = outbox.subscriptions()
    if not found:
        return
    from apps.importer.presenters import present_job

    outbox.emit(
        found,
        f"import.{outcome}",
        actor={"userId": job.created_by_id, "via": "import"} if actor is None else actor,
        ids={"id": job.pk},
        present=lambda: present_job(job),
    )
