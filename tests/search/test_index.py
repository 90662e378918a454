"""The index follows every change in the change's own transaction: each lifecycle transition of SPEC §3 and each
schema change leaves exactly the documents a rebuild would write (a rebuild then changes nothing), and search never
returns an entry that no longer matches."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import transaction

from apps.accounts.permissions import Actor
from apps.content import services as content
from apps.content.models import Revision
from apps.core.errors import SchemaError
from apps.core.timefmt import now
from apps.schema import services as schema
from apps.schema.selectors import collection_for_read
from apps.search import services
from apps.search.models import SearchDocument, SearchSuggestion
from tests.factories import make_entry, make_field
from tests.search.conftest import article, index_state, make_articles, pt, titles

SYSTEM = Actor.system()


def documents(entry) -> list[tuple]:
    """(published, working, title) of the entry's documents."""
    return sorted(
        SearchDocument.objects.filter(entry_id=entry.pk).values_list("published", "working", "title", "body")
    )


def assert_rebuild_changes_nothing() -> None:
    """The incremental index equals a rebuilt one: checking writes nothing, and a full rewrite gives the same rows."""
    before = index_state()
    result = services.search_rebuild(actor=SYSTEM)
    assert (result["written"], result["removed"]) == (0, 0), result
    assert index_state() == before
    services.search_rebuild(actor=SYSTEM, full=True)
    assert index_state() == before


@pytest.fixture
def entry(articles):
    return article(articles, "Otters", "Otters swim in the river.", status="draft")


def test_create_and_update_a_draft(editor, reader, entry):
    assert documents(entry) == [(False, True, "Otters", "Otters swim in the river.")]
    content.entry_update(actor=SYSTEM, entry=entry, data={"body": pt("Beavers build dams.")})
    assert documents(entry) == [(False, True, "Otters", "Beavers build dams.")]
    assert titles(editor, "swim", status="draft") == []
    assert titles(editor, "dams", status="draft") == ["Otters"]
    assert titles(reader, "dams") == []
    assert_rebuild_changes_nothing()


def test_publish_edit_and_discard_draft(editor, reader, entry):
    content.entry_publish(actor=SYSTEM, entry=entry)
    assert documents(entry) == [(True, True, "Otters", "Otters swim in the river.")]
    assert titles(reader, "swim") == ["Otters"]

    content.entry_update(
        actor=SYSTEM, entry=entry, data={"title": "Beavers", "body": pt("Beavers build dams.")}
    )
    assert documents(entry) == [
        (False, True, "Beavers", "Beavers build dams."),
        (True, False, "Otters", "Otters swim in the river."),
    ]
    assert titles(reader, "dams") == [] and titles(reader, "swim") == ["Otters"]
    assert (
        titles(editor, "dams", status="draft") == ["Beavers"] and titles(editor, "swim", status="draft") == []
    )
    assert_rebuild_changes_nothing()

    content.entry_discard_draft(actor=SYSTEM, entry=entry)
    assert documents(entry) == [(True, True, "Otters", "Otters swim in the river.")]
    assert titles(editor, "dams", status="draft") == []
    assert_rebuild_changes_nothing()


def test_unpublish_schedule_and_publish_due(editor, reader, entry):
    content.entry_publish(actor=SYSTEM, entry=entry)
    content.entry_unpublish(actor=SYSTEM, entry=entry)
    assert documents(entry) == [(False, True, "Otters", "Otters swim in the river.")]
    assert titles(reader, "swim") == []
    assert_rebuild_changes_nothing()

    content.entry_schedule(actor=SYSTEM, entry=entry, scheduled_at=now() + timedelta(hours=1))
    assert documents(entry) == [(False, True, "Otters", "Otters swim in the river.")]
    content.publish_due(at=now() + timedelta(hours=2))
    assert documents(entry) == [(True, True, "Otters", "Otters swim in the river.")]
    assert titles(reader, "swim") == ["Otters"]
    assert_rebuild_changes_nothing()


def test_trash_restore_and_permanent_delete(editor, reader, entry):
    content.entry_publish(actor=SYSTEM, entry=entry)
    content.entry_trash(actor=SYSTEM, entry=entry)
    assert documents(entry) == []
    assert titles(reader, "swim") == [] and titles(editor, "swim", status="draft") == []
    assert_rebuild_changes_nothing()

    content.entry_restore(actor=SYSTEM, entry=entry)
    assert documents(entry) == [(True, True, "Otters", "Otters swim in the river.")]
    assert titles(reader, "swim") == ["Otters"]

    content.entry_trash(actor=SYSTEM, entry=entry)
    content.entry_delete_permanently(actor=SYSTEM, entry=entry)
    assert SearchDocument.objects.count() == 0 and SearchSuggestion.objects.count() == 0
    assert_rebuild_changes_nothing()


def test_duplicate_and_revision_restore(editor, entry):
    copy = content.entry_duplicate(actor=SYSTEM, entry=entry)
    assert documents(copy) == [(False, True, "Otters (Copy)", "Otters swim in the river.")]
    content.entry_update(actor=SYSTEM, entry=entry, data={"body": pt("Beavers build dams.")})
    first = Revision.objects.filter(entry_id=entry.pk).order_by("created_at", "id").first()
    content.revision_restore(actor=SYSTEM, revision=first)
    assert documents(entry) == [(False, True, "Otters", "Otters swim in the river.")]
    assert sorted(titles(editor, "swim", status="draft")) == ["Otters", "Otters (Copy)"]
    assert_rebuild_changes_nothing()


def test_a_slug_change_reaches_the_results(editor, entry):
    content.entry_update(actor=SYSTEM, entry=entry, slug="river-otters")
    [hit] = editor.get("/_cms/api/search", {"q": "otters", "status": "draft"}).json()["results"]
    assert hit["slug"] == "river-otters"
    assert_rebuild_changes_nothing()


def test_an_update_that_changes_no_indexed_text_writes_nothing(entry):
    before = list(SearchDocument.objects.values_list("id", flat=True))
    content.entry_update(actor=SYSTEM, entry=entry, data={"views": 3, "note": "not searchable"})
    assert list(SearchDocument.objects.values_list("id", flat=True)) == before


def test_a_failed_write_leaves_the_index_as_it_was(entry):
    before = index_state()
    with pytest.raises(RuntimeError), transaction.atomic():
        content.entry_update(actor=SYSTEM, entry=entry, data={"body": pt("Beavers build dams.")})
        raise RuntimeError("the rest of the request failed")
    assert index_state() == before


# --- schema changes ---------------------------------------------------------------------------------------------------


def test_removing_a_searchable_field_removes_its_text(editor, articles):
    entry = article(articles, "Otters", "Otters swim.", summary="A summary about herons.")
    assert titles(editor, "herons", status="draft") == ["Otters"]
    schema.field_delete(actor=SYSTEM, field=articles.fields.get(slug="summary"))
    assert titles(editor, "herons", status="draft") == []
    assert documents(entry) == [(True, True, "Otters", "Otters swim.")]
    assert_rebuild_changes_nothing()


def test_toggling_searchable_adds_and_removes_a_field(editor, articles):
    article(articles, "Otters", "Otters swim.", note="badgers too")
    note = articles.fields.get(slug="note")
    schema.field_update(actor=SYSTEM, field=note, changes={"searchable": True})
    assert titles(editor, "badgers", status="draft") == ["Otters"]
    assert_rebuild_changes_nothing()
    schema.field_update(actor=SYSTEM, field=note, changes={"searchable": False})
    assert titles(editor, "badgers", status="draft") == []
    assert_rebuild_changes_nothing()


def test_toggling_search_in_supports(editor, articles):
    article(articles, "Otters", "Otters swim.")
    schema.collection_update(actor=SYSTEM, collection=articles, changes={"supports": ["drafts"]})
    assert SearchDocument.objects.count() == 0
    schema.collection_update(actor=SYSTEM, collection=articles, changes={"supports": ["drafts", "search"]})
    assert titles(editor, "swim", status="draft") == ["Otters"]
    assert_rebuild_changes_nothing()


def test_changing_a_searchable_fields_type_reindexes_its_values(editor, articles):
    article(articles, "Otters", "Otters swim.", category="sport")
    schema.field_update(
        actor=SYSTEM, field=articles.fields.get(slug="category"), changes={"type": "string", "validation": {}}
    )
    assert titles(editor, "sport", status="draft") == ["Otters"]
    assert_rebuild_changes_nothing()


def test_removing_the_title_field_leaves_documents_without_a_title(editor):
    collection = make_articles("pages")
    entry = article(collection, "Kingfishers", "Birds by the river.")
    schema.field_delete(actor=SYSTEM, field=collection.fields.get(slug="title"))
    # Without a title field the first searchable string field gives the title: there is none, so none.
    assert documents(entry) == [(True, True, "", "Birds by the river.")]
    assert titles(editor, "kingfishers", status="draft") == []
    make_field(collection_for_read(slug="pages"), "headline", "string", searchable=True)
    assert_rebuild_changes_nothing()


def test_reordering_searchable_fields_changes_the_fallback_title(editor):
    collection = make_articles("pages")
    schema.field_delete(actor=SYSTEM, field=collection.fields.get(slug="title"))
    first = make_field(collection_for_read(slug="pages"), "first", "string", searchable=True)
    make_field(collection_for_read(slug="pages"), "second", "string", searchable=True)
    entry = make_entry(
        collection_for_read(slug="pages"), {"first": "Alpha", "second": "Beta"}, status="published"
    )
    assert documents(entry)[0][2] == "Alpha"
    schema.fields_reorder(
        actor=SYSTEM, collection=collection_for_read(slug="pages"), field_slugs=["second", first.slug]
    )
    assert documents(entry)[0][2] == "Beta"
    assert_rebuild_changes_nothing()


def test_deleting_a_collection_deletes_its_documents(articles):
    article(articles, "Otters", "Otters swim.")
    other = make_articles("news")
    article(other, "News", "Otters swim too.")
    with pytest.raises(SchemaError):
        schema.collection_delete(actor=SYSTEM, collection=articles)
    assert SearchDocument.objects.filter(collection=articles).count() == 1
    schema.collection_delete(actor=SYSTEM, collection=articles, force=True)
    assert list(SearchDocument.objects.values_list("title", flat=True)) == ["News"]
    assert SearchSuggestion.objects.exclude(collection=other).count() == 0
    assert_rebuild_changes_nothing()


def test_a_rebuild_repairs_a_damaged_index(articles):
    entries = [article(articles, f"Entry {n}", f"Otters number {n}.") for n in range(7)]
    expected = index_state()
    SearchDocument.objects.filter(entry_id=entries[0].pk).delete()
    SearchDocument.objects.filter(entry_id=entries[1].pk).update(title="Wrong", signature="x")
    result = services.search_rebuild(actor=SYSTEM, batch_size=3)
    assert (result["written"], result["removed"], result["documents"], result["entries"]) == (2, 1, 7, 7)
    assert [
        {key: value for key, value in item.items() if key != "seconds"} for item in result["collections"]
    ] == [
        {
            "collection": "articles",
            "searchable": True,
            "entries": 7,
            "documents": 7,
            "written": 2,
            "removed": 1,
        }
    ]
    state = index_state()
    assert [row[:-1] for row in state] == [row[:-1] for row in expected]
