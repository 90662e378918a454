"""Drop the pattern indexes of primary and foreign keys (apps/core/dbbackends/postgresql)."""

from django.db import migrations

from apps.core.migration_operations import DropKeyPatternIndexes


class Migration(migrations.Migration):
    dependencies = [("accounts", "0002_sign_in_and_oauth")]

    operations = [DropKeyPatternIndexes()]
