"""Reads of the delivery layer: redirects, what a path of the front end shows, the sitemap's entries, and an entry
read with a preview token.

``path_resolve`` tries the collections whose URL pattern matches the path, the most literal pattern first, and
answers the published entry found there; else the redirect stored for the path; else NOT_FOUND. A pattern without
``{locale}`` matches the entry in the default locale first, then in any locale.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db.models import Q

from apps.accounts.permissions import Actor, authorize
from apps.content.models import Entry, Status
from apps.content.selectors import Entries, entry_get
from apps.core.errors import Forbidden, NotFound, ValidationError
from apps.core.pagination import Page, SortKey, keyset_page
from apps.delivery.models import Redirect
from apps.delivery.paths import normal_path, source_problem
from apps.delivery.preview import Grant, token_verify
from apps.schema.addresses import entry_path, pattern_regex, specificity
from apps.schema.models import Collection
from apps.schema.selectors import collections_for_read, schema_cached


def redirect_list(
    *, actor: Actor | None, cursor: str | None = None, limit: int = 50, search: str | None = None
) -> Page[Redirect]:
    """Redirects by source; ``search`` keeps those whose source or location contains it."""
    authorize(actor, "redirects.read")
    redirects = Redirect.objects.all()
    if search:
        redirects = redirects.filter(Q(source__icontains=search) | Q(location__icontains=search))
    keys = [SortKey("source"), SortKey("id")]
    return keyset_page(redirects, keys=keys, cursor=cursor, limit=limit, scope="redirects")


def redirect_read(*, actor: Actor | None, redirect_id: str) -> Redirect:
    authorize(actor, "redirects.read")
    return redirect_get(redirect_id=redirect_id)


def redirect_get(*, redirect_id: str) -> Redirect:
    """The redirect a write addresses (the write checks its own permission)."""
    redirect = Redirect.objects.filter(pk=redirect_id).first()
    if redirect is None:
        raise NotFound(f"No redirect {redirect_id}.")
    return redirect


# --- resolve -------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Resolved:
    """What a path shows: ``entry`` (published, as the public reads it) or ``redirect``."""

    entry: Entries | None = None
    redirect: Redirect | None = None


def _routes() -> list[tuple[Collection, object]]:
    """Collections with a URL pattern and its matcher, the most literal first; cached with the schema."""

    collections = collections_for_read()  # revalidates the schema cache first (see schema_cached)

    def load():
        routed = [collection for collection in collections if collection.url_pattern]
        routed.sort(key=lambda collection: (-specificity(collection.url_pattern), collection.slug))
        return [(collection, pattern_regex(collection.url_pattern)) for collection in routed]

    return schema_cached("delivery.routes", load)


def _published_at(collection: Collection, values: dict) -> Entry | None:
    locale = values.get("locale")
    ref = values.get("id") or values["slug"]
    locales = [locale] if locale else [settings.CMS_DEFAULT_LOCALE]
    for attempt in locales:
        try:
            entry = entry_get(collection=collection, actor=None, ref=ref, locale=attempt)
        except NotFound:
            continue
        if (
            entry_path(collection.url_pattern, slug=entry.slug, locale=entry.locale, id=entry.pk)
            == values["path"]
        ):
            return entry
    if locale or "id" in values:
        return None
    # A pattern without {locale}: an entry that exists only in another locale is found there.
    other = (
        Entry.objects.filter(
            collection=collection, slug=values["slug"], status=Status.PUBLISHED, deleted_at__isnull=True
        )
        .order_by("locale")
        .values_list("pk", flat=True)
        .first()
    )
    return entry_get(collection=collection, actor=None, ref=other) if other else None


def path_resolve(*, actor: Actor | None, path: str) -> Resolved:
    authorize(actor, "delivery.resolve")
    if problem := source_problem(path):
        raise ValidationError(details={"path": problem})
    path = normal_path(path)
    for collection, matcher in _routes():
        match = matcher.fullmatch(path)
        if match is None:
            continue
        entry = _published_at(collection, {**match.groupdict(), "path": path})
        if entry is not None:
            return Resolved(entry=Entries(collection, [entry], drafts=False))
    redirect = Redirect.objects.filter(source=path).first()
    if redirect is not None:
        return Resolved(redirect=redirect)
    raise NotFound(f"Nothing on the site answers {path}: no published entry and no redirect.")


# --- sitemap -------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SitemapUrl:
    path: str
    lastmod: datetime


def _mapped() -> dict[str, Collection]:
    return {
        collection.pk: collection
        for collection in collections_for_read()
        if collection.public and collection.url_pattern
    }


def _sitemap_entries():
    return Entry.objects.filter(
        collection_id__in=list(_mapped()), status=Status.PUBLISHED, deleted_at__isnull=True
    ).order_by("collection_id", "id")


def sitemap_count() -> int:
    authorize(None, "delivery.sitemap")
    return _sitemap_entries().count() if _mapped() else 0


def sitemap_urls(*, page: int, size: int) -> list[SitemapUrl]:
    """The ``page``-th (from 1) run of ``size`` URLs: published entries of public collections with a URL pattern,
    each with its last change."""
    authorize(None, "delivery.sitemap")
    mapped = _mapped()
    if not mapped:
        return []
    rows = _sitemap_entries().values_list("collection_id", "id", "slug", "locale", "updated_at")
    start = (page - 1) * size
    return [
        SitemapUrl(entry_path(mapped[collection].url_pattern, slug=slug, locale=locale, id=pk), updated)
        for collection, pk, slug, locale, updated in rows[start : start + size]
    ]


# --- preview -------------------------------------------------------------------------------------------------------


def entry_preview_read(*, token: str, collection: Collection, ref: str, locale: str | None = None) -> Entries:
    """The working copy of the one entry ``token`` was minted for, with no other credential (the token is one)."""
    authorize(None, "content.preview_read")
    grant: Grant = token_verify(token)
    entry = entry_get(
        collection=collection, actor=None, ref=ref, locale=locale or grant.locale, for_update=True
    )
    if entry.pk != grant.entry_id or entry.locale != grant.locale:
        raise Forbidden(
            "This preview token is for another entry: a token shows only the entry (and locale) it was minted for.",
            details={"preview": "Issued for another entry."},
        )
    if entry.is_trashed:
        raise NotFound(f"No entry '{ref}' in '{collection.slug}'.")
    return Entries(collection, [entry], drafts=True)
