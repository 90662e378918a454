"""Domain events, dispatched synchronously inside the writer's transaction (docs/architecture.md §7).

A lower app announces what happened; higher apps (content, search, plugins, audit) subscribe in
``AppConfig.ready()``. Django's signals are the dispatcher, sent with ``send`` (not ``send_robust``): a receiver that
raises aborts the write, so an index and its data never disagree. Each signal lists the keyword arguments it sends.
"""

from django.dispatch import Signal

# Schema (apps/schema) -----------------------------------------------------------------------------------------------
# collection: Collection, force: bool, actor. Receivers refuse (raise) when the collection still holds data and not
# force, and otherwise remove what they keep for it.
collection_deleting = Signal()
# collection: Collection, field: Field (after the save), previous: dict of the attributes before (None when created),
# actor. Receivers keep derived structures (generated indexes) in step with the definition.
field_saved = Signal()
# collection: Collection, field: Field (being removed), actor
field_removing = Signal()
# collection: Collection, field: Field (with its new definition), previous_type: str, actor. Receivers convert stored
# values or raise SchemaError naming the entries that cannot convert.
field_type_changing = Signal()
# collection: Collection, actor: what the collection contributes to search changed (`supports` gained or lost
# "search", a field became or stopped being searchable, a searchable field was added or removed, searchable fields were
# reordered).
collection_search_changed = Signal()
# collection: Collection (after the write), previous_pattern: str (the URL pattern before; "" for none), actor: the
# collection's URL pattern changed, so its published entries moved (apps/delivery records redirects).
collection_url_changed = Signal()

# Content (apps/content) ---------------------------------------------------------------------------------------------
# entry: Entry (after the write), action: "create" | "update" | "publish" | "unpublish" | "schedule" | "unschedule" |
# "discard_draft" | "trash" | "restore" | "revision_restore" | "translation_sync", actor; previous_slug: str, sent
# only by an update that changed the slug (the entry's address moved: apps/delivery records a redirect)
entry_changed = Signal()
# entries: list[Entry] (created together, all of one collection: imports), actor. Sent once instead of one
# entry_changed("create") per entry, so that receivers write their part for the whole batch at once; every receiver
# of entry_changed that must see new entries subscribes to this too.
entries_created = Signal()
# entry: Entry (still readable, about to be deleted), actor
entry_deleting = Signal()

# Media (apps/media) -------------------------------------------------------------------------------------------------
# media: MediaItem (after the write; still readable on "delete"), action: "upload" | "create" | "update" | "delete",
# deduplicated: bool (an upload answered with an existing item: nothing was written), actor
media_changed = Signal()

# Taxonomies (apps/taxonomy) -----------------------------------------------------------------------------------------
# entry: Entry, taxonomy: Taxonomy, term_ids: list[str] (the entry's terms in that taxonomy after the change), actor
entry_terms_changed = Signal()

# Changes that only notify (webhooks, apps/webhooks), sent by the domains' services inside their transaction --------
# collection: Collection (after the write), action: "create" | "update", actor
collection_changed = Signal()
# taxonomy: Taxonomy (still readable on "delete"), action: "create" | "update" | "delete", actor
taxonomy_changed = Signal()
# term: Term (still readable on "delete"), action: "create" | "update" | "delete", actor
term_changed = Signal()
# menu: Menu (still readable on "delete"), action: "create" | "update" | "delete", actor. Changes to a menu's items
# are its "update".
menu_changed = Signal()
# section: Section (still readable on "delete"), action: "create" | "update" | "delete", actor
section_changed = Signal()
# widget: Widget (still readable on "delete"), action: "create" | "update" | "delete", actor
widget_changed = Signal()
# area: WidgetArea (still readable on "delete"), action: "create" | "update" | "delete", actor. Reordering its
# widgets is its "update".
widget_area_changed = Signal()
# settings: SiteSettings (after the write), actor
settings_changed = Signal()
# job: ImportJob (in its final state), outcome: "completed" | "failed", actor (None: the worker ran it)
import_finished = Signal()
