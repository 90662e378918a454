"""``manage.py cms_token create|list|revoke``: personal access tokens from the command line.

``create`` prints only the token on stdout, so scripts can capture it: ``TOKEN=$(python manage.py cms_token create …)``.
"""

from __future__ import annotations

from datetime import timedelta

from django.core.management.base import BaseCommand, CommandError

from apps.accounts import selectors, services
from apps.accounts.permissions import Actor
from apps.core.errors import CmsError
from apps.core.timefmt import iso, now


class Command(BaseCommand):
    help = "Create, list or revoke personal access tokens."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        create = sub.add_parser("create", help="Create a token and print it (once).")
        create.add_argument("--email", required=True, help="The user the token acts as.")
        create.add_argument(
            "--scopes", required=True, help="Comma-separated, e.g. content:read,content:write"
        )
        create.add_argument("--name", required=True)
        create.add_argument(
            "--expires-days",
            type=int,
            default=None,
            help="Days until it expires (1 or more); default: never.",
        )
        listing = sub.add_parser("list", help="List active tokens.")
        listing.add_argument("--email", default=None)
        revoke = sub.add_parser("revoke", help="Revoke a token by id.")
        revoke.add_argument("id")

    def handle(self, *args, action: str, **options):
        try:
            getattr(self, f"_{action}")(**options)
        except CmsError as exc:
            raise CommandError(exc.message) from exc

    def _create(self, *, email, scopes, name, expires_days, **_):
        if expires_days is not None and expires_days < 1:
            raise CommandError(
                f"--expires-days must be 1 or more (got {expires_days}); leave it out for a token that never expires."
            )
        user = selectors.user_get_by_email(email=email)
        expires_at = now() + timedelta(days=expires_days) if expires_days is not None else None
        _, raw = services.api_token_create(
            actor=Actor.system(),
            user=user,
            name=name,
            scopes=[scope.strip() for scope in scopes.split(",") if scope.strip()],
            expires_at=expires_at,
        )
        self.stdout.write(raw)

    def _list(self, *, email, **_):
        user_id = selectors.user_get_by_email(email=email).pk if email else None
        cursor = None
        self.stdout.write(f"{'ID':26}  {'PREFIX':11}  {'USER':30}  {'NAME':20}  {'SCOPES':40}  EXPIRES")
        while True:
            page = selectors.api_token_list(actor=Actor.system(), user_id=user_id, cursor=cursor, limit=100)
            for token in page.items:
                self.stdout.write(
                    f"{token.pk:26}  {token.prefix:11}  {token.user.email:30}  {token.name[:20]:20}  "
                    f"{','.join(token.scopes)[:40]:40}  {iso(token.expires_at) or 'never'}"
                )
            if not page.next_cursor:
                break
            cursor = page.next_cursor

    def _revoke(self, *, id, **_):
        token = services.api_token_revoke(actor=Actor.system(), token_id=id)
        self.stdout.write(f"Revoked {token.pk} ({token.name}).")
