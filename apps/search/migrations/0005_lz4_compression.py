"""Documents' text compressed with lz4 on PostgreSQL (apps/core/migration_operations.py)."""

from django.db import migrations

from apps.core.migration_operations import CompressWithLz4


class Migration(migrations.Migration):
    dependencies = [("search", "0004_no_key_pattern_indexes")]

    operations = [CompressWithLz4("search_searchdocument", ["body"])]
