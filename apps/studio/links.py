"""Addresses of studio pages that other studio pages link to."""

from __future__ import annotations


def editor_path(collection_slug: str, entry_id: str) -> str:
    """The entry editor's address. Built by hand while the editor's route is not part of the studio yet; once it is,
    this becomes ``reverse("studio:entry-edit", args=[collection_slug, entry_id])``, and every link follows."""
    return f"/_cms/admin/content/{collection_slug}/{entry_id}/"
