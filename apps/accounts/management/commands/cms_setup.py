"""``manage.py cms_setup``: create the first admin without a browser; with --print-token, print an admin token once.

Safe to run on every start: when an admin exists it changes nothing and prints nothing secret.
"""

from __future__ import annotations

import os

from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.management.base import BaseCommand, CommandError
from django.core.validators import validate_email

from apps.accounts import services
from apps.accounts.permissions import Actor

# How a front end reads content (issue 22, docs/delivery.md), said once on the first run.
FRONT_ENDS = """Front ends read content in one of two ways:
  - without a token: make a collection public (studio: Schema > the collection > Edit > "Public (readable without a
    token)", or PATCH /_cms/api/schema/collections/<slug> with {"public": true}); its published entries, search,
    menus, terms, sections, widgets and settings are then readable by anyone, with CDN caching headers;
  - with a read-only token: invite a user with the role subscriber (studio: Users), then
    python manage.py cms_token create --email <their email> --scopes content:read --name front-end
    (a subscriber's token reads published entries only, of every collection)."""


class Command(BaseCommand):
    help = "Create the first admin user (non-interactive); optionally print an admin API token for it."

    def add_arguments(self, parser):
        parser.add_argument("--email", default=os.environ.get("CMS_ADMIN_EMAIL") or "admin@localhost")
        parser.add_argument("--name", default=os.environ.get("CMS_ADMIN_NAME") or "Admin")
        parser.add_argument(
            "--print-token",
            action="store_true",
            help="When the admin is created, create and print an admin token.",
        )

    def handle(self, *args, email: str, name: str, print_token: bool, **options):
        # "admin@localhost" is not valid for Django's validator (no TLD) but is a fine local default.
        if not email.endswith("@localhost"):
            try:
                validate_email(email)
            except DjangoValidationError as exc:
                raise CommandError(f"Not a valid email address: {email}") from exc
        user, created = services.admin_setup(email=email, name=name)
        if not created:
            self.stdout.write(
                f"An admin already exists ({user.email}); nothing to do. "
                f"New token: python manage.py cms_token create --email {user.email} --scopes admin --name <name>"
            )
            return
        self.stdout.write(self.style.SUCCESS(f"Created the admin user {user.email}."))
        if print_token:
            _, raw = services.api_token_create(
                actor=Actor.system(), user=user, name="setup", scopes=["admin"]
            )
            self.stdout.write("Admin API token (shown once, store it now):")
            self.stdout.write(f"  {raw}")
        self.stdout.write(FRONT_ENDS)
