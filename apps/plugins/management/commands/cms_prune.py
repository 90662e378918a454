"""``manage.py cms_prune [--only audit,webhooks,imports] [--import-days 7]``: delete what is kept only for a while.

One command for cron (or a periodic task) over every retention the CMS has: audit events older than
``CMS_AUDIT_RETENTION_DAYS`` (0 keeps them), finished webhook deliveries older than ``CMS_WEBHOOK_RETENTION_DAYS``
(the worker also does this hourly), and uploaded import exports no unfinished job needs (``import_cleanup``). Each
part is the service function the command names, so a scheduler may call them directly.
"""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from apps.importer import services as importer_services
from apps.plugins import retention
from apps.webhooks import delivery

PARTS = ("audit", "webhooks", "imports")


class Command(BaseCommand):
    help = "Delete audit events, finished webhook deliveries and stored import uploads past their retention."

    def add_arguments(self, parser):
        parser.add_argument(
            "--only",
            default=",".join(PARTS),
            help=f"Comma-separated parts to prune (default all: {','.join(PARTS)}).",
        )
        parser.add_argument(
            "--import-days", type=int, default=7, help="Keep import uploads younger than this (default 7)."
        )

    def handle(self, *args, only: str, import_days: int, **options):
        parts = [part.strip() for part in only.split(",") if part.strip()]
        unknown = sorted(set(parts) - set(PARTS))
        if unknown or not parts:
            raise CommandError(
                f"Unknown part(s) {', '.join(unknown) or '(none)'}; known: {', '.join(PARTS)}."
            )
        if "audit" in parts:
            days = settings.CMS_AUDIT_RETENTION_DAYS
            if days > 0:
                deleted = retention.prune_audit()
                self.stdout.write(f"Audit log: deleted {deleted} event(s) older than {days} day(s).")
            else:
                self.stdout.write("Audit log: kept forever (CMS_AUDIT_RETENTION_DAYS=0).")
        if "webhooks" in parts:
            deleted = delivery.prune()
            self.stdout.write(
                f"Webhooks: deleted {deleted} finished delivery(ies) older than "
                f"{settings.CMS_WEBHOOK_RETENTION_DAYS} day(s)."
            )
        if "imports" in parts:
            removed = importer_services.analyses_prune(older_than_days=import_days)
            self.stdout.write(
                f"Imports: removed {removed['analyses']} stored export(s) and {removed['orphanFiles']} "
                "orphaned file(s)."
            )
