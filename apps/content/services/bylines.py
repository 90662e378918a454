"""Bylines (SPEC §4.10): who is credited for an entry, a user or a guest, and the credits of one entry."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from apps.accounts.models import User
from apps.accounts.permissions import Actor, authorize
from apps.content.models import Byline, Entry, EntryByline
from apps.core import slugs
from apps.core.errors import ValidationError
from apps.core.ids import new_id
from apps.core.slugs import slugify


def set_credits(entry: Entry, bylines: list[dict] | None) -> None:
    """Replace the entry's credits; the first becomes its primary byline (SPEC §4.10 rule 6)."""
    if bylines is None:
        return
    ids = [item.get("bylineId") for item in bylines]
    # Keys are dotted paths (docs/decisions.md), as the request parser reports the same list's shape errors.
    problems = {}
    for index, item in enumerate(bylines):
        if not isinstance(item.get("bylineId"), str):
            problems[f"bylines.{index}.bylineId"] = "Required: the id of a byline."
    if len(set(ids)) != len(ids):
        problems["bylines"] = "A byline may be credited once per entry."
    found = {
        byline.pk: byline for byline in Byline.objects.filter(pk__in=[i for i in ids if isinstance(i, str)])
    }
    for index, byline_id in enumerate(ids):
        if isinstance(byline_id, str) and byline_id not in found:
            problems[f"bylines.{index}.bylineId"] = f"No byline {byline_id}."
    if problems:
        raise ValidationError(details=problems)
    EntryByline.objects.filter(entry=entry).delete()
    EntryByline.objects.bulk_create(
        EntryByline(
            entry=entry,
            byline=found[item["bylineId"]],
            sort_order=position,
            role_label=item.get("roleLabel") or "",
        )
        for position, item in enumerate(bylines)
    )
    primary = found[ids[0]] if ids else None
    if entry.primary_byline_id != (primary.pk if primary else None):
        Entry.objects.filter(pk=entry.pk).update(primary_byline=primary)
        entry.primary_byline = primary


# --- bylines --------------------------------------------------------------------------------------------------------


@transaction.atomic
def byline_create(
    *,
    actor: Actor,
    display_name: str,
    user: User | None = None,
    is_guest: bool | None = None,
    bio: str = "",
    email: str = "",
    slug: str | None = None,
) -> Byline:
    authorize(actor, "bylines.manage")
    if not display_name or not display_name.strip():
        raise ValidationError(details={"displayName": "Required."})
    candidate = slugs.free_slug(Byline.objects.all(), slugify(slug or display_name) or new_id().lower())
    return Byline.objects.create(
        display_name=display_name.strip(),
        slug=candidate,
        user=user,
        is_guest=(user is None) if is_guest is None else is_guest,
        bio=bio or "",
        email=email or "",
    )


@transaction.atomic
def byline_update(*, actor: Actor, byline: Byline, changes: dict[str, Any]) -> Byline:
    authorize(actor, "bylines.manage")
    if "display_name" in changes:
        if not changes["display_name"] or not str(changes["display_name"]).strip():
            raise ValidationError(details={"displayName": "Must not be empty."})
        byline.display_name = changes["display_name"].strip()
    for name in ("bio", "email", "is_guest", "user"):
        if name in changes:
            setattr(byline, name, changes[name] if changes[name] is not None or name == "user" else "")
    byline.save()
    return byline


@transaction.atomic
def byline_delete(*, actor: Actor, byline: Byline) -> None:
    """Delete a byline; entries that credited it lose that credit (and their primary byline moves to the next)."""
    authorize(actor, "bylines.manage")
    affected = list(Entry.objects.filter(credits__byline=byline).values_list("pk", flat=True))
    byline.delete()
    for entry_id in affected:
        first = (
            EntryByline.objects.filter(entry_id=entry_id)
            .order_by("sort_order")
            .values_list("byline_id", flat=True)
            .first()
        )
        Entry.objects.filter(pk=entry_id).update(primary_byline_id=first)
