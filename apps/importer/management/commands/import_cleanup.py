"""``manage.py import_cleanup [--days 7]``: delete uploaded exports that no unfinished import needs any more.

Uploads are kept after analysis so that prepare, execute and resume can use them by ``analysisId``; run this from
cron (or by hand) to reclaim the space. A failed job's export goes too, once old enough: start a new import to retry.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand

from apps.importer import services


class Command(BaseCommand):
    help = "Delete stored import uploads older than --days that no unfinished import job needs."

    def add_arguments(self, parser):
        parser.add_argument("--days", type=int, default=7, help="Keep uploads younger than this (default 7).")

    def handle(self, *args, days: int, **options):
        removed = services.analyses_prune(older_than_days=days)
        self.stdout.write(
            f"Removed {removed['analyses']} stored export(s) and {removed['orphanFiles']} orphaned file(s)."
        )
