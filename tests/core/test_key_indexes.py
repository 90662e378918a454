"""Primary and foreign keys carry no pattern-matching (``…_like``) twin index on PostgreSQL: they are compared for
equality only, and every insert paid for the twins (apps/core/dbbackends/postgresql)."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.db import connection
from django.db.migrations.loader import MigrationLoader

from apps.core.migration_operations import DropKeyPatternIndexes

pytestmark = pytest.mark.requires_postgres


def _indexes(table: str) -> dict[str, str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = %s", [table])
        return dict(cursor.fetchall())


def test_no_key_of_any_model_has_a_pattern_index():
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname FROM pg_indexes WHERE indexdef LIKE %s", ["%varchar_pattern_ops%"])
        pattern_indexes = {row[0] for row in cursor.fetchall()}
    with connection.schema_editor() as editor:
        for model in apps.get_models(include_auto_created=True):
            for field in model._meta.local_concrete_fields:
                if field.primary_key or field.is_relation:
                    name = editor._create_index_name(model._meta.db_table, [field.column], suffix="_like")
                    assert name not in pattern_indexes, f"{model._meta.db_table}.{field.column}"
    # A plain text column that may be matched by prefix keeps its twin.
    assert any(index.startswith("schema_collection_slug_") for index in pattern_indexes)


def test_the_entry_tables_keep_only_the_indexes_their_queries_use():
    assert sorted(_indexes("content_entrybyline")) == [
        "content_credit_unique",
        "content_entrybyline_byline_id_21b7cb3f",
        "content_entrybyline_pkey",
    ]
    assert sorted(_indexes("taxonomy_entryterm")) == [
        "taxonomy_entry_term_unique",
        "taxonomy_entryterm_pkey",
        "taxonomy_entryterm_taxonomy_id_ac299add",
        "taxonomy_term_entries",
    ]


def test_the_migration_drops_pattern_indexes_that_an_older_database_has():
    # What Django created before our schema editor: twins on the entry's id and its author key.
    with connection.cursor() as cursor:
        cursor.execute(
            'CREATE INDEX "content_entry_id_cebf6de0_like" ON content_entry (id varchar_pattern_ops)'
        )
        cursor.execute(
            'CREATE INDEX "content_entry_author_id_059e9495_like" ON content_entry (author_id varchar_pattern_ops)'
        )
    state = MigrationLoader(connection).project_state()

    with connection.schema_editor(atomic=False) as editor:
        DropKeyPatternIndexes().database_forwards("content", editor, state, state)

    indexes = _indexes("content_entry")
    assert "content_entry_id_cebf6de0_like" not in indexes
    assert "content_entry_author_id_059e9495_like" not in indexes
    assert "content_entry_slug_unique" in indexes
