"""Bylines (SPEC §4.10): who is credited for an entry, a user or a guest, and the credits of one entry."""

from __future__ import annotations

from collections.abc import Container, Iterable
from typing import Any

from django.db import transaction

from apps.accounts import selectors as account_selectors
from apps.accounts.models import User
from apps.accounts.permissions import Actor, authorize
from apps.content.models import Byline, Entry, EntryByline
from apps.core import slugs
from apps.core.errors import NotFound, ValidationError
from apps.core.ids import new_id
from apps.core.slugs import slugify

# --- an entry's credits: the rules, shared by one entry and a batch, then the writes ---------------------------------


def bylines_named(credit_lists: Iterable[list[dict] | None]) -> dict[str, Byline]:
    """The bylines that the credits of one entry or of a batch name, read at once."""
    ids = {item.get("bylineId") for credits in credit_lists if credits for item in credits}
    wanted = [byline_id for byline_id in ids if isinstance(byline_id, str)]
    return {byline.pk: byline for byline in Byline.objects.filter(pk__in=wanted)} if wanted else {}


def credit_problems(bylines: list[dict] | None) -> dict[str, str]:
    """What is wrong with the shape of one entry's credits (``unknown_bylines`` checks that they exist).

    Keys are dotted paths (docs/decisions.md), as the request parser reports the same list's shape errors."""
    if not bylines:
        return {}
    ids = [item.get("bylineId") for item in bylines]
    problems = {}
    for index, byline_id in enumerate(ids):
        if not isinstance(byline_id, str):
            problems[f"bylines.{index}.bylineId"] = "Required: the id of a byline."
    if len(set(ids)) != len(ids):
        problems["bylines"] = "A byline may be credited once per entry."
    return problems


def unknown_bylines(bylines: list[dict] | None, known: Container[str]) -> dict[str, str]:
    """The credits naming no byline; ``known`` holds the ids among them that name one (``bylines_named``)."""
    return {
        f"bylines.{index}.bylineId": f"No byline {item['bylineId']}."
        for index, item in enumerate(bylines or [])
        if isinstance(item.get("bylineId"), str) and item["bylineId"] not in known
    }


def credit_rows(entry: Entry, bylines: list[dict] | None) -> list[EntryByline]:
    """The credit rows of checked ``bylines``, in their order; the first is the primary byline (SPEC §4.10 rule 6)."""
    return [
        EntryByline(
            entry=entry,
            byline_id=item["bylineId"],
            sort_order=position,
            role_label=item.get("roleLabel") or "",
        )
        for position, item in enumerate(bylines or [])
    ]


def set_credits(entry: Entry, bylines: list[dict] | None) -> None:
    """Replace the credits of an entry that exists; None leaves them as they are."""
    if bylines is None:
        return
    found = bylines_named([bylines])
    if problems := {**credit_problems(bylines), **unknown_bylines(bylines, found)}:
        raise ValidationError(details=problems)
    EntryByline.objects.filter(entry=entry).delete()
    EntryByline.objects.bulk_create(credit_rows(entry, bylines))
    primary = found[bylines[0]["bylineId"]] if bylines else None
    if entry.primary_byline_id != (primary.pk if primary else None):
        Entry.objects.filter(pk=entry.pk).update(primary_byline=primary)
        entry.primary_byline = primary


# --- bylines --------------------------------------------------------------------------------------------------------

# Wire names of a byline's values, as the services below name them (``userId`` becomes ``user``).
BYLINE_NAMES = {"displayName": "display_name", "isGuest": "is_guest", "bio": "bio", "email": "email"}


def byline_values(sent: dict[str, Any]) -> dict[str, Any]:
    """The values a client sent (wire names) as ``byline_create`` and ``byline_update`` take them: the user of a
    ``userId`` looked up (an unknown one is a VALIDATION_ERROR on ``userId``; null unlinks)."""
    values = {name: sent[wire] for wire, name in BYLINE_NAMES.items() if wire in sent}
    if "userId" in sent:
        values["user"] = _linked_user(sent["userId"])
    return values


def _linked_user(user_id: str | None) -> User | None:
    if not user_id:
        return None
    try:
        return account_selectors.user_get(user_id=user_id)
    except NotFound as exc:
        raise ValidationError(details={"userId": exc.message}) from exc


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
