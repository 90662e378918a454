"""Entries' JSON compressed with lz4 on PostgreSQL (apps/core/migration_operations.py)."""

from django.db import migrations

from apps.core.migration_operations import CompressWithLz4


class Migration(migrations.Migration):
    dependencies = [("content", "0003_no_key_pattern_indexes")]

    operations = [
        CompressWithLz4("content_entry", ["data", "live_data"]),
        CompressWithLz4("content_revision", ["data"]),
    ]
