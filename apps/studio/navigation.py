"""The studio's navigation shell: the dashboard, each collection by its label, media, the account."""

from __future__ import annotations

from dataclasses import dataclass

from django.urls import reverse

from apps.schema.selectors import collections_for_read


@dataclass(frozen=True)
class NavItem:
    label: str
    url: str
    key: str


def navigation() -> list[NavItem]:
    """The shell's links, read from the cached schema (no query when it is unchanged)."""
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
    items.append(NavItem("Account", reverse("accounts:account"), "account"))
    return items
