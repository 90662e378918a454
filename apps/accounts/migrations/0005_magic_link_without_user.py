"""Link requests for addresses without an account write a row too (with no user), so both cost the same."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("accounts", "0004_magic_link_next")]

    operations = [
        migrations.AlterField(
            model_name="magiclink",
            name="user",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="magic_links",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
    ]
