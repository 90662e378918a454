"""Drop the pattern indexes of primary and foreign keys (apps/core/dbbackends/postgresql)."""

from django.db import migrations

from apps.core.migration_operations import DropKeyPatternIndexes


class Migration(migrations.Migration):
    dependencies = [("site", "0001_initial")]

    operations = [DropKeyPatternIndexes()]
