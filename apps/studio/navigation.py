"""The studio's navigation shell: the dashboard, each collection by its label, media, taxonomies, menus, widgets and
sections (for those the permission table lets read them), the administration pages (for those it lets do what each
is for), the account."""

from __future__ import annotations

from dataclasses import dataclass

from django.urls import reverse

from apps.accounts.permissions import Actor, can
from apps.schema.selectors import collections_for_read

# The administration pages after the schema: (label, URL name, the operation the page is for).
ADMIN_PAGES = (
    ("Settings", "studio:settings", "settings.write"),
    ("People", "studio:people", "users.manage"),
    ("Plugins", "studio:plugins", "plugins.manage"),
    ("Search", "studio:search", "search.rebuild"),
    ("Webhooks", "studio:webhooks", "webhooks.manage"),
)


@dataclass(frozen=True)
class NavItem:
    label: str
    url: str
    key: str


def navigation(actor: Actor | None = None) -> list[NavItem]:
    """The shell's links, read from the cached schema (no query when it is unchanged); the administration pages only
    for those the permission table lets do what they are for."""
    items = [NavItem("Dashboard", reverse("studio:dashboard"), "dashboard")]
    for collection in collections_for_read():
        items.append(
            NavItem(
                collection.label or collection.slug,
                reverse("studio:entries", args=[collection.slug]),
                f"collection:{collection.slug}",
            )
        )
    items.append(NavItem("Media", reverse("studio:media"), "media"))
    if can(actor, "taxonomies.read"):
        items.append(NavItem("Taxonomies", reverse("studio:taxonomies"), "taxonomies"))
    if can(actor, "menus.read"):
        items.append(NavItem("Menus", reverse("studio:menus"), "menus"))
    if can(actor, "widgets.read"):
        items.append(NavItem("Widgets", reverse("studio:widgets"), "widgets"))
    if can(actor, "sections.read"):
        items.append(NavItem("Sections", reverse("studio:sections"), "sections"))
    if can(actor, "redirects.read"):
        items.append(NavItem("Redirects", reverse("studio:redirects"), "redirects"))
    if can(actor, "schema.write"):
        items.append(NavItem("Schema", reverse("studio:schema"), "schema"))
    if can(actor, "import.run"):
        items.append(NavItem("Import", reverse("studio:import"), "import"))
    for label, name, operation in ADMIN_PAGES:
        if can(actor, operation):
            items.append(NavItem(label, reverse(name), name.removeprefix("studio:")))
    if can(actor, "tokens.manage"):
        items.append(NavItem("API tokens", reverse("accounts:account") + "#tokens-heading", "tokens"))
    items.append(NavItem("Account", reverse("accounts:account"), "account"))
    return items
