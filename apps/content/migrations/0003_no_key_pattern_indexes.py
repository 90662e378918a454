"""Credits need no index of their own on the entry (the unique (entry, byline) leads with it), and keys need no
pattern indexes (apps/core/dbbackends/postgresql).

Nothing here may alter ``content_entry`` itself: SQLite rebuilds a table to alter one of its columns, and the rebuilt
table would lose the indexes Django does not know of (the published-date index of migration 0002, and every field's
generated index)."""

import django.db.models.deletion
from django.db import migrations, models

from apps.core.migration_operations import DropKeyPatternIndexes


class Migration(migrations.Migration):
    dependencies = [
        ("content", "0002_published_index"),
    ]

    operations = [
        migrations.AlterField(
            model_name="entrybyline",
            name="entry",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="credits",
                to="content.entry",
            ),
        ),
        DropKeyPatternIndexes(),
    ]
