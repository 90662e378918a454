"""``manage.py publish_scheduled``: publish every scheduled entry whose time has passed, once (for cron). Due entries
that may not be published now (in the trash, say) are named with the reason an editor publishing them would get."""

from django.core.management.base import BaseCommand

from apps.content.services import due_refusals, publish_due


class Command(BaseCommand):
    help = "Publish scheduled entries that are due, then exit."
    # Run from cron every minute: the system checks (URLs, views, admin) would more than double its start-up.
    requires_system_checks: list[str] = []

    def handle(self, *args, **options):
        total = 0
        while batch := publish_due():
            total += len(batch)
            for entry in batch:
                self.stdout.write(f"published {entry.collection.slug}/{entry.slug} ({entry.pk})")
        for entry, reason in due_refusals():
            self.stdout.write(f"not published {entry.collection.slug}/{entry.slug} ({entry.pk}): {reason}")
        self.stdout.write(f"{total} entr{'y' if total == 1 else 'ies'} published.")
