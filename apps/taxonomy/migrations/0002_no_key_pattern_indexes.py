"""Term assignments need no single-column indexes on entry and term (the unique (entry, term) and the (term, entry)
index lead with each), and keys need no pattern indexes (apps/core/dbbackends/postgresql)."""

import django.db.models.deletion
from django.db import migrations, models

from apps.core.migration_operations import DropKeyPatternIndexes


class Migration(migrations.Migration):
    dependencies = [
        ("content", "0003_no_key_pattern_indexes"),
        ("taxonomy", "0001_initial"),
    ]

    operations = [
        migrations.AlterField(
            model_name="entryterm",
            name="entry",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="content.entry",
            ),
        ),
        migrations.AlterField(
            model_name="entryterm",
            name="term",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="assignments",
                to="taxonomy.term",
            ),
        ),
        DropKeyPatternIndexes(),
    ]
