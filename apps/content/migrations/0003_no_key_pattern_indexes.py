"""Credits need no index of their own on the entry (the unique (entry, byline) leads with it); keys, and the
translation group (an entry id), need no pattern indexes (apps/core/dbbackends/postgresql)."""

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
        migrations.AlterField(
            model_name="entry",
            name="translation_group",
            field=models.CharField(max_length=26),
        ),
        migrations.AddIndex(
            model_name="entry",
            index=models.Index(fields=["translation_group"], name="content_entry_translation"),
        ),
        DropKeyPatternIndexes(),
    ]
