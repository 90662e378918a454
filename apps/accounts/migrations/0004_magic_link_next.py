"""A sign-in link remembers where its requester was going (a consent or device page)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("accounts", "0003_no_key_pattern_indexes")]

    operations = [
        migrations.AddField(
            model_name="magiclink",
            name="next_url",
            field=models.CharField(blank=True, default="", max_length=2000),
        ),
    ]
