"""Writes of the delivery layer: redirects (by hand, and when a published entry moves) and the preview secret.

Redirects are stored collapsed: a stored location is never the source of another redirect. Saving ``A → B`` follows
``B`` one hop (``B → C`` stored means ``A → C``), points every redirect that led to ``A`` at the same final location,
and refuses what would come back to ``A`` (a loop) with 409. An entry that moves (slug or URL pattern change) leaves
``old path → new path`` (301) in the transaction of the change, and any redirect from its new path is dropped, since
the entry now answers there.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime

from django.db import IntegrityError, transaction

from apps.accounts.permissions import Actor, authorize
from apps.content.selectors import entry_get
from apps.core.errors import Conflict, ValidationError
from apps.core.timefmt import now
from apps.delivery.models import REDIRECT_STATUSES, PreviewSecret, Redirect, RedirectOrigin
from apps.delivery.paths import local, location_problem, normal_path, source_problem
from apps.delivery.preview import token_mint
from apps.schema.addresses import entry_path, preview_address
from apps.schema.models import Collection


def _checked(source: str, location: str, status: int) -> tuple[str, str]:
    problems = {}
    if problem := source_problem(source):
        problems["source"] = problem
    if problem := location_problem(location):
        problems["location"] = problem
    if status not in REDIRECT_STATUSES:
        problems["status"] = f"One of {', '.join(map(str, REDIRECT_STATUSES))}."
    if problems:
        raise ValidationError(details=problems)
    source = normal_path(source)
    if local(location) == source:
        raise ValidationError(details={"location": f"A redirect cannot point at its own source {source}."})
    return source, location


def _store(redirect: Redirect) -> Redirect:
    """Save ``redirect`` collapsed (see the module's docstring); Conflict for a loop or a taken source."""
    onward = None
    if (target := local(redirect.location)) is not None:
        onward = Redirect.objects.filter(source=target).exclude(pk=redirect.pk).first()
    if onward is not None:
        if local(onward.location) == redirect.source:
            raise Conflict(
                f"{redirect.source} → {redirect.location} would make a loop: {onward.source} already redirects to "
                f"{onward.location}. Change or delete that redirect first.",
                details={"location": f"{onward.source} already redirects to {onward.location}: a loop."},
            )
        redirect.location = onward.location
    # Redirects that led here now go straight to the final location (no chains).
    Redirect.objects.filter(location__in=_spellings(redirect.source)).exclude(pk=redirect.pk).update(
        location=redirect.location, updated_at=now()
    )
    try:
        with transaction.atomic():
            redirect.save()
    except IntegrityError:
        holder = Redirect.objects.filter(source=redirect.source).values_list("pk", flat=True).first()
        raise Conflict(
            f"A redirect from {redirect.source} already exists ({holder}); change that one instead.",
            details={"source": f"Taken by {holder}."},
        ) from None
    return redirect


def _spellings(path: str) -> list[str]:
    """The stored locations that mean ``path``: with and without a trailing slash."""
    return [path] if path == "/" else [path, path + "/"]


@transaction.atomic
def redirect_create(*, actor: Actor, source: str, location: str, status: int = 301) -> Redirect:
    authorize(actor, "redirects.write")
    source, location = _checked(source, location, status)
    return _store(Redirect(source=source, location=location, status=status, origin=RedirectOrigin.MANUAL))


@transaction.atomic
def redirect_update(*, actor: Actor, redirect: Redirect, changes: dict) -> Redirect:
    """Change a redirect's source, location or status (the keys given)."""
    authorize(actor, "redirects.write")
    redirect = Redirect.objects.select_for_update().get(pk=redirect.pk)
    source, location = _checked(
        changes.get("source", redirect.source),
        changes.get("location", redirect.location),
        changes.get("status", redirect.status),
    )
    redirect.source, redirect.location = source, location
    redirect.status = changes.get("status", redirect.status)
    redirect.origin = RedirectOrigin.MANUAL
    return _store(redirect)


@transaction.atomic
def redirect_delete(*, actor: Actor, redirect: Redirect) -> None:
    authorize(actor, "redirects.write")
    Redirect.objects.filter(pk=redirect.pk).delete()


def moves_record(moves: list[tuple[str, str, str]]) -> None:
    """``(old path, new path, entry id)`` for entries that moved, inside the transaction of the write that moved
    them (authorized there). The new paths answer with their entries now, so redirects from them go first."""
    moves = [(normal_path(old), normal_path(new), entry) for old, new, entry in moves]
    moves = [move for move in moves if move[0] != move[1]]
    if not moves:
        return
    Redirect.objects.filter(source__in=[new for _, new, _ in moves]).delete()
    for old, new, entry_id in moves:
        redirect = Redirect.objects.filter(source=old).first() or Redirect(source=old)
        redirect.location, redirect.status = new, 301
        redirect.origin, redirect.entry_id = RedirectOrigin.AUTO, entry_id
        _store(redirect)


@transaction.atomic
def preview_secret_rotate(*, actor: Actor) -> PreviewSecret:
    """A new secret: every preview token signed with the old one stops working."""
    authorize(actor, "preview.revoke")
    secret, _ = PreviewSecret.objects.update_or_create(
        pk=1, defaults={"secret": secrets.token_urlsafe(32), "rotated_at": now()}
    )
    return secret


@dataclass(frozen=True)
class Preview:
    token: str
    url: str | None
    expires_at: datetime


def entry_preview_create(
    *, actor: Actor, collection: Collection, ref: str, locale: str | None = None
) -> Preview:
    """A preview token for the entry ``ref`` (id, or slug in ``locale``), scoped to its id and locale, and the
    collection's preview URL filled in (None when the collection has none: scripts may still read the draft with
    the token). Nothing is stored."""
    authorize(actor, "content.preview")
    entry = entry_get(collection=collection, actor=None, ref=ref, locale=locale, for_update=True)
    token, grant = token_mint(entry_id=entry.pk, locale=entry.locale)
    url = None
    if collection.preview_url:
        path = (
            entry_path(collection.url_pattern, slug=entry.slug, locale=entry.locale, id=entry.pk)
            if collection.url_pattern
            else None
        )
        url = preview_address(
            collection.preview_url, token=token, url=path, id=entry.pk, slug=entry.slug, locale=entry.locale
        )
    return Preview(token=token, url=url, expires_at=grant.expires_at)
