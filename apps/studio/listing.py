"""Entries as the studio's lists show them: a title, a status badge, the primary byline and the dates, shaped from
the content selectors' rows read with a projection of the title key (never the entries' data)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from apps.accounts.permissions import Actor, can
from apps.content.models import Status
from apps.content.selectors import Entries
from apps.studio.links import editor_path

# Badge class and words per state: a word, never colour alone (ui.css).
BADGES = {
    Status.DRAFT: ("draft", "draft"),
    Status.PUBLISHED: ("published", "published"),
    Status.SCHEDULED: ("scheduled", "scheduled"),
}
CHANGED = ("changed", "published, unpublished changes")
TRASHED = ("trashed", "trashed")


@dataclass(frozen=True)
class ListRow:
    id: str
    title: str
    slug: str
    status: str
    badge: str
    badge_label: str
    locale: str
    byline: str
    editor_url: str
    created_at: datetime
    updated_at: datetime
    scheduled_at: datetime | None
    deleted_at: datetime | None
    may_restore: bool = False
    may_delete: bool = False


def row_title(row, key: str | None) -> str:
    """The collection's title field, else the slug (an entry with an empty title still needs a name)."""
    value = (row.projected or {}).get(key) if key else None
    if isinstance(value, str) and value.strip():
        return value
    return row.slug


def primary_byline(row) -> str:
    credits = row.credit_list
    for credit in credits:
        if credit.byline_id == row.primary_byline_id:
            return credit.byline.display_name
    return credits[0].byline.display_name if credits else ""


def _badge(row) -> tuple[str, str]:
    if row.deleted_at is not None:
        return TRASHED
    if row.status == Status.PUBLISHED and row.has_changes:
        return CHANGED
    return BADGES.get(row.status, (row.status, row.status))


def list_rows(seen: Entries, *, title_key: str | None, actor: Actor) -> list[ListRow]:
    """``seen`` read with ``project=[title_key]``. In the trash, each row says whether ``actor`` may restore it or
    delete it for good, as the permission table says for its owner."""
    slug = seen.collection.slug
    rows = []
    for row in seen.items:
        badge, label = _badge(row)
        trashed = row.deleted_at is not None
        rows.append(
            ListRow(
                id=row.id,
                title=row_title(row, title_key),
                slug=row.slug,
                status=row.status,
                badge=badge,
                badge_label=label,
                locale=row.locale,
                byline=primary_byline(row),
                editor_url=editor_path(slug, row.id),
                created_at=row.created_at,
                updated_at=row.updated_at,
                scheduled_at=row.scheduled_at,
                deleted_at=row.deleted_at,
                may_restore=trashed and can(actor, "content.delete", owner_id=row.author_id),
                may_delete=trashed and can(actor, "content.delete_permanent", owner_id=row.author_id),
            )
        )
    return rows
