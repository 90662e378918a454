"""How the index follows content and schema changes (events from apps/core/events.py, sent inside the transaction of
the change, so a failure here undoes the change and the index never disagrees with the data).

- An entry is written (created alone or in a batch, updated, published, unpublished, scheduled, trashed, restored …): its documents are
  rewritten when they differ. Deleted for good: its documents go first.
- What a collection contributes changes (``search`` added to or removed from ``supports``, a field made searchable or
  not, a searchable field added, removed or retyped, the ``title`` field added, removed or retyped, searchable fields
  reordered): every entry of the collection is checked and repaired, in that transaction.
- A collection is deleted: its documents are deleted with one statement each, before its entries.
"""

from __future__ import annotations

from apps.search import services


def on_entry_changed(sender, *, entry, action: str, **kwargs) -> None:
    services.entry_index(entry=entry, created=action == "create")


def on_entries_created(sender, *, entries, **kwargs) -> None:
    services.entries_index_new(entries=entries)


def on_entry_deleting(sender, *, entry, **kwargs) -> None:
    services.entry_unindex(entry=entry)


def on_collection_search_changed(sender, *, collection, **kwargs) -> None:
    services.collection_index(collection=collection)


def on_field_saved(sender, *, collection, field, previous, **kwargs) -> None:
    # Searchable fields announce themselves with collection_search_changed; what is left is the title field, which is
    # indexed whether or not it is searchable, and a searchable field's type (values were just converted).
    searchable_change = previous is not None and previous["searchable"] != field.searchable
    created_searchable = previous is None and field.searchable
    type_changed = previous is not None and previous["type"] != field.type
    if searchable_change or created_searchable:
        return
    if (field.slug == "title" and (previous is None or type_changed)) or (field.searchable and type_changed):
        services.collection_index(collection=collection)


def on_field_removing(sender, *, collection, field, **kwargs) -> None:
    # A searchable field is followed by collection_search_changed once it is gone; a title field that is not
    # searchable still gave the documents their titles.
    if field.slug == "title" and not field.searchable:
        services.collection_index(collection=collection, exclude_field_id=field.pk)


def on_collection_deleting(sender, *, collection, **kwargs) -> None:
    from apps.search.backends import get_search_backend

    get_search_backend().delete_documents(collection_id=collection.pk)
