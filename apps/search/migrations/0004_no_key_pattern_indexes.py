"""Drop the pattern indexes of primary and foreign keys (apps/core/dbbackends/postgresql), and the database's check
of a suggestion's collection, which its document's own key already guarantees (apps/search/models.py)."""

import django.db.models.deletion
from django.db import migrations, models

from apps.core.migration_operations import DropKeyPatternIndexes


class Migration(migrations.Migration):
    dependencies = [
        ("schema", "0003_no_key_pattern_indexes"),
        ("search", "0003_title_tsv_column"),
    ]

    operations = [
        DropKeyPatternIndexes(),
        migrations.AlterField(
            model_name="searchsuggestion",
            name="collection",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="schema.collection",
            ),
        ),
    ]
