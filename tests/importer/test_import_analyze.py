"""A finished import refreshes the planner statistics of the tables it filled (issue 21): without them PostgreSQL
plans reads of the imported entries on the statistics of empty tables until autovacuum comes by. SQLite plans pages
of entries better without statistics, so there they are removed."""

from __future__ import annotations

import pytest
from django.db import connection

from apps.content.models import Entry
from apps.core.db.stats import analyze
from tests.factories import make_entry
from tests.importer.conftest import THEME_UNIT_TEST
from tests.importer.helpers import run_import


def _manual_analyses(table: str) -> int:
    with connection.cursor() as cursor:
        # The statistics views keep a snapshot per transaction; the test runs in one.
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT analyze_count, last_analyze FROM pg_stat_user_tables WHERE relname = %s", [table]
        )
        count, last = cursor.fetchone()
    return count if last is not None else 0


@pytest.mark.requires_postgres
def test_a_finished_import_analyzes_the_tables_it_filled_on_postgresql(admin_api):
    tables = ("content_entry", "content_revision", "taxonomy_entryterm", "taxonomy_term", "content_byline")
    before = {table: _manual_analyses(table) for table in tables}

    job = run_import(admin_api, THEME_UNIT_TEST)

    assert job["state"] == "completed"
    assert {table: _manual_analyses(table) - before[table] for table in tables} == dict.fromkeys(tables, 1)


def _stat_rows(table: str) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT name FROM sqlite_master WHERE name = 'sqlite_stat1'")
        if cursor.fetchone() is None:
            return []
        cursor.execute("SELECT idx, stat FROM sqlite_stat1 WHERE tbl = %s", [table])
        return cursor.fetchall()


def _plant_stats(table: str) -> None:
    """Statistics as an earlier version's ANALYZE left them."""
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {table}")


def test_analyze_removes_sqlite_statistics_so_pages_are_read_in_index_order(posts_collection):
    if connection.vendor != "sqlite":
        pytest.skip("sqlite_stat1 is SQLite's")
    for number in range(3):
        make_entry(posts_collection, {"title": f"Post {number}"})
    _plant_stats("content_entry")
    assert _stat_rows("content_entry")

    assert analyze([Entry]) >= 0

    assert _stat_rows("content_entry") == []
    with connection.cursor() as cursor:
        cursor.execute(
            "EXPLAIN QUERY PLAN SELECT id FROM content_entry WHERE collection_id = %s AND deleted_at IS NULL "
            "ORDER BY created_at DESC, id DESC LIMIT 50",
            [posts_collection.pk],
        )
        plan = " ".join(row[-1] for row in cursor.fetchall())
    assert "content_entry_created" in plan
    assert "TEMP B-TREE" not in plan


def test_a_finished_import_leaves_sqlite_without_entry_statistics(admin_api):
    if connection.vendor != "sqlite":
        pytest.skip("sqlite_stat1 is SQLite's")
    _plant_stats("content_entry")

    run_import(admin_api, THEME_UNIT_TEST)

    assert _stat_rows("content_entry") == []
