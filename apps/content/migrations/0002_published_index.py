"""The (collection, published_at, id) index, NULLs first, so one index serves publishedAt order in both directions
with drafts (no publication date) sorting lowest. SQLite orders NULLs first natively and has no NULLS FIRST in index
definitions; PostgreSQL needs it spelled out."""

from django.db import migrations

NAME = "content_entry_published"


def create(apps, schema_editor):
    nulls = " NULLS FIRST" if schema_editor.connection.vendor == "postgresql" else ""
    schema_editor.execute(
        f'CREATE INDEX "{NAME}" ON "content_entry" ("collection_id", "published_at"{nulls}, "id") '
        'WHERE "deleted_at" IS NULL'
    )


def drop(apps, schema_editor):
    schema_editor.execute(f'DROP INDEX IF EXISTS "{NAME}"')


class Migration(migrations.Migration):
    dependencies = [("content", "0001_initial")]

    operations = [migrations.RunPython(create, drop)]
