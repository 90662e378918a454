"""PostgreSQL: the title's own tsvector becomes a stored generated column (``title_tsv``) with the GIN index on it.

The bounded ranking (apps/search/backends/postgres.py) takes up to 500 title matches of a broad query. With only an
expression index, the planner reads those by scanning the table and computing ``to_tsvector`` for every row it passes
(it prices that function as cheap), 16-24 ms at 100,000 documents for one common word; reading a stored column is ten
times cheaper, and the index stays usable for rarer words. Nothing changes on SQLite.
"""

from django.db import migrations

DOCUMENTS = "search_searchdocument"
TITLE_TSV = "to_tsvector(config, replace(title, '<', '< '))"


def create(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            f"ALTER TABLE {DOCUMENTS} ADD COLUMN title_tsv tsvector GENERATED ALWAYS AS ({TITLE_TSV}) STORED"
        )
        cursor.execute("DROP INDEX IF EXISTS search_doc_title")
        cursor.execute(f"CREATE INDEX search_doc_title ON {DOCUMENTS} USING gin (title_tsv)")


def drop(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(f"ALTER TABLE {DOCUMENTS} DROP COLUMN IF EXISTS title_tsv")
        cursor.execute(f"CREATE INDEX IF NOT EXISTS search_doc_title ON {DOCUMENTS} USING gin ({TITLE_TSV})")


class Migration(migrations.Migration):
    dependencies = [("search", "0002_fulltext")]

    operations = [migrations.RunPython(create, drop)]
