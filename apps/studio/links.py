"""Addresses of studio pages that other studio pages link to."""

from __future__ import annotations

from django.urls import reverse


def editor_path(collection_slug: str, entry_id: str) -> str:
    """The entry editor's address."""
    return reverse("studio:entry-edit", args=[collection_slug, entry_id])
