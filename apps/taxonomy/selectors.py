"""Reads of taxonomies and terms, and the two batch reads entry answers need: the terms of a page of entries (one
query), and the filter that keeps entries carrying given terms (``?terms[category]=news``).

The reads a face answers with (``taxonomy_list``, ``taxonomy_read``, ``term_list``, ``term_read``, ``entry_terms``)
authorize the reader; ``taxonomy_get`` and ``term_get`` find what a service is about to change (the service
authorizes) or what content resolves names against.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db.models import Count, OuterRef, Prefetch, Q

from apps.accounts.permissions import Actor, authorize
from apps.content.companions import companion_rows, register_entry_companion
from apps.core.db.jsonrows import json_rows
from apps.core.db.prepared import PreparedQuery
from apps.core.errors import NotFound, ValidationError
from apps.core.pagination import Page, SortKey, keyset_page
from apps.core.slugs import slugify
from apps.schema.models import Collection
from apps.schema.selectors import schema_cached, site_is_public
from apps.taxonomy.models import EntryTerm, Taxonomy, Term

if TYPE_CHECKING:
    from apps.content.models import Entry
    from apps.taxonomy.presenters import TermRefOut

TERM_ORDER = (SortKey("slug"), SortKey("id"))


@dataclass(frozen=True)
class AttachedTaxonomy:
    id: str
    name: str
    hierarchical: bool


def _with_collections(queryset):
    return queryset.prefetch_related(Prefetch("collections", queryset=Collection.objects.order_by("slug")))


def taxonomy_list(*, actor: Actor | None) -> list[Taxonomy]:
    authorize(actor, "taxonomies.read", public=site_is_public)
    return list(_with_collections(Taxonomy.objects.order_by("name")))


def taxonomy_read(*, actor: Actor | None, name: str) -> Taxonomy:
    authorize(actor, "taxonomies.read", public=site_is_public)
    return taxonomy_get(name=name)


def taxonomy_get(*, name: str) -> Taxonomy:
    """The taxonomy named ``name`` without a read check (a service authorizes its write), or NOT_FOUND naming the
    others."""
    taxonomy = _with_collections(Taxonomy.objects.filter(name=name)).first()
    if taxonomy is None:
        known = ", ".join(Taxonomy.objects.order_by("name").values_list("name", flat=True)[:50]) or "none yet"
        raise NotFound(f"No taxonomy '{name}'; taxonomies: {known}.")
    return taxonomy


def term_list(
    *,
    actor: Actor | None,
    taxonomy: str,
    parent_id: str | None = None,
    cursor: str | None = None,
    limit: int = 50,
) -> Page[Term]:
    """A page of the terms of the taxonomy named ``taxonomy``, by slug; ``parent_id`` keeps one level ("" the
    top-level terms)."""
    authorize(actor, "taxonomies.read", public=site_is_public)
    target = taxonomy_get(name=taxonomy)
    terms = Term.objects.filter(taxonomy=target)
    if parent_id is not None:
        terms = terms.filter(parent__isnull=True) if parent_id == "" else terms.filter(parent_id=parent_id)
    return keyset_page(terms, keys=TERM_ORDER, cursor=cursor, limit=limit, scope=f"terms:{target.pk}")


@dataclass(frozen=True)
class TermListing:
    """A page of terms with how many entries carry each term shown; with a tree, each term's descendants
    (``children``: by parent id, in slug order; None for a flat list)."""

    page: Page[Term]
    counts: dict[str, int]
    children: dict[str, list[Term]] | None = None


def term_listing(
    *,
    actor: Actor | None,
    taxonomy: str,
    parent_id: str | None = None,
    cursor: str | None = None,
    limit: int = 50,
    tree: bool = False,
) -> TermListing:
    """What every face lists: ``term_list`` with the counts (``term_counts``). ``tree``: the page is one level (the
    top-level terms, or the children of ``parent_id``) and each term comes with its whole subtree, so a page holds a
    stable number of branches however deep they go."""
    if not tree:
        page = term_list(actor=actor, taxonomy=taxonomy, parent_id=parent_id, cursor=cursor, limit=limit)
        counts = term_counts(
            actor=actor, taxonomy=taxonomy_get(name=taxonomy), term_ids=[term.pk for term in page.items]
        )
        return TermListing(page=page, counts=counts)
    page = term_list(actor=actor, taxonomy=taxonomy, parent_id=parent_id or "", cursor=cursor, limit=limit)
    target = taxonomy_get(name=taxonomy)
    below: dict[str, list[Term]] = defaultdict(list)
    if page.items:
        # One read of the taxonomy's nested terms (none at all for a flat one), walked down from the page.
        for term in Term.objects.filter(taxonomy=target, parent__isnull=False).order_by("slug", "id"):
            below[term.parent_id].append(term)
    children: dict[str, list[Term]] = {}
    stack = [term.pk for term in page.items]
    while stack:
        term_id = stack.pop()
        children[term_id] = below.get(term_id, [])
        stack.extend(child.pk for child in children[term_id])
    counts = term_counts(actor=actor, taxonomy=target, term_ids=list(children))
    return TermListing(page=page, counts=counts, children=children)


def term_read(*, actor: Actor | None, taxonomy: str, slug: str) -> Term:
    authorize(actor, "taxonomies.read", public=site_is_public)
    return term_get(taxonomy=taxonomy_get(name=taxonomy), slug=slug)


def term_get(*, taxonomy: Taxonomy, slug: str) -> Term:
    term = Term.objects.filter(taxonomy=taxonomy, slug=slug).first()
    if term is None:
        raise NotFound(f"No term '{slug}' in '{taxonomy.name}'.")
    return term


def entry_terms(*, actor: Actor | None, entry: Entry, taxonomy: str) -> list[Term]:
    """The entry's terms of the taxonomy named ``taxonomy``, in their order; NOT_FOUND when it does not apply to the
    entry's collection. ``entry`` is one ``actor`` may see (``apps.content.selectors.entry_get``)."""
    authorize(actor, "content.read")
    target = taxonomy_get(name=taxonomy)
    if not any(item.id == target.pk for item in taxonomies_for_collection(entry.collection)):
        raise NotFound(f"The taxonomy '{taxonomy}' does not apply to '{entry.collection.slug}'.")
    return [
        assignment.term
        for assignment in EntryTerm.objects.filter(entry_id=entry.pk, taxonomy=target)
        .select_related("term")
        .order_by("sort_order", "id")
    ]


def taxonomies_for_collection(collection: Collection) -> list[AttachedTaxonomy]:
    """The taxonomies that apply to ``collection``, by name; cached with the schema (call after
    ``collection_for_read`` in the same request)."""

    def load() -> list[AttachedTaxonomy]:
        rows = Taxonomy.objects.filter(collections=collection).order_by("name")
        return [AttachedTaxonomy(row.pk, row.name, row.hierarchical) for row in rows]

    return schema_cached(f"taxonomies:{collection.pk}", load)


_TERM_COLUMNS = ("entry_id", "taxonomy_id", "term_id", "term__slug", "term__label", "term__parent_id")
# An entry's terms, read in its own query (apps/content/companions.py): the same columns (without the entry's id), then
# what they are sorted by.
TERMS_COMPANION = "terms"
register_entry_companion(
    TERMS_COMPANION,
    lambda: json_rows(
        EntryTerm.objects.filter(entry_id=OuterRef("pk")),
        "entry_id",
        (*_TERM_COLUMNS[1:], "sort_order", "id"),
    ),
)
# The terms of a page's entries, compiled once per page size (see PreparedQuery): compiling this query took about a
# quarter of a GET of an imported post (issue 21). It reads every taxonomy's terms of the entries; the caller keeps
# those that apply.
_TERMS_OF_ENTRIES = PreparedQuery(
    lambda entry_ids: (
        EntryTerm.objects.filter(entry_id__in=entry_ids)
        .order_by("sort_order", "id")
        .values_list(*_TERM_COLUMNS)
    ),
    lists=("entry_ids",),
)


def terms_for_entries(
    *, collection: Collection, entry_ids: list[str], entries: Sequence | None = None
) -> dict[str, dict[str, list[TermRefOut]]] | None:
    """``{entry id: {taxonomy name: [{id, slug, label, parentId}]}}`` for a page of entries, every taxonomy that
    applies to the collection present (empty lists included). None when no taxonomy applies: nothing to show.
    ``entries`` (the entries of ``entry_ids``) may carry their terms, read with them (``TERMS_COMPANION``): then no
    query is made."""
    attached = taxonomies_for_collection(collection)
    if not attached:
        return None
    names = {taxonomy.id: taxonomy.name for taxonomy in attached}
    grouped: dict[str, dict[str, list[TermRefOut]]] = {
        entry_id: {taxonomy.name: [] for taxonomy in attached} for entry_id in entry_ids
    }
    if not entry_ids:
        return grouped
    carried = companion_rows(entries, TERMS_COMPANION) if entries is not None else None
    if carried is not None:
        rows = [
            (entry_id, *row)
            for entry_id, found in carried.items()
            for row in sorted(found, key=lambda row: (row[-2], row[-1]))
        ]
    else:
        rows = _TERMS_OF_ENTRIES.fetch(entry_ids=list(dict.fromkeys(entry_ids)))
    for entry_id, taxonomy_id, term_id, slug, label, parent_id, *_ in rows:
        if taxonomy_id in names:
            grouped[entry_id][names[taxonomy_id]].append(
                {"id": term_id, "slug": slug, "label": label, "parentId": parent_id}
            )
    return grouped
    rows = [
        row for row in _TERMS_OF_ENTRIES.fetch(entry_ids=list(dict.fromkeys(entry_ids))) if row[1] in names
    ]
    for entry_id, taxonomy_id, term_id, slug, label, parent_id in rows:
        grouped[entry_id][names[taxonomy_id]].append(
            {"id": term_id, "slug": slug, "label": label, "parentId": parent_id}
        )
    return grouped


def entry_filter(*, collection: Collection, filters: dict[str, str] | None) -> Q | None:
    """Entries carrying at least one of the named terms of each taxonomy: ``{"category": "news,sport", "tag": "x"}``
    is (news OR sport) AND x. In hierarchical taxonomies a term also matches its descendants. Slugs that name no term
    match nothing; taxonomies that do not apply to the collection are refused."""
    if not filters:
        return None
    attached = {taxonomy.name: taxonomy for taxonomy in taxonomies_for_collection(collection)}
    problems: dict[str, str] = {}
    condition = Q()
    for name, value in filters.items():
        taxonomy = attached.get(name)
        if taxonomy is None:
            applies = ", ".join(attached) or "none"
            problems[f"terms[{name}]"] = (
                f"No taxonomy '{name}' applies to '{collection.slug}'; taxonomies that do: {applies}."
            )
            continue
        slugs = [slug.strip() for slug in value.split(",") if slug.strip()]
        if not slugs:
            problems[f"terms[{name}]"] = "Give one or more term slugs, comma-separated."
            continue
        if taxonomy.hierarchical:
            term_ids = _with_descendants(taxonomy.id, slugs)
            assignments = EntryTerm.objects.filter(term_id__in=term_ids)
        else:
            assignments = EntryTerm.objects.filter(taxonomy_id=taxonomy.id, term__slug__in=slugs)
        condition &= Q(pk__in=assignments.values("entry_id"))
    if problems:
        raise ValidationError(details=problems)
    return condition


def _with_descendants(taxonomy_id: str, slugs: list[str]) -> list[str]:
    rows = list(Term.objects.filter(taxonomy_id=taxonomy_id).values_list("pk", "slug", "parent_id"))
    children: dict[str | None, list[str]] = defaultdict(list)
    for term_id, _, parent_id in rows:
        children[parent_id].append(term_id)
    found = [term_id for term_id, slug, _ in rows if slug in slugs]
    result, stack = set(), list(found)
    while stack:
        term_id = stack.pop()
        if term_id not in result:
            result.add(term_id)
            stack.extend(children.get(term_id, []))
    return list(result)


def taxonomy_terms(*, actor: Actor | None, taxonomy: str) -> list[Term]:
    """Every term of the taxonomy named ``taxonomy`` in one read, by label: for pickers that show them all at once (a
    hierarchical taxonomy's tree of checkboxes). Pages of them are ``term_list``'s."""
    authorize(actor, "taxonomies.read", public=site_is_public)
    target = taxonomy_get(name=taxonomy)
    return list(Term.objects.filter(taxonomy=target).order_by("label", "slug", "id"))


def entry_term_refs(*, entry_id: str, collection: Collection) -> dict[str, list[TermRefOut]]:
    """The terms of one entry the caller has read, by taxonomy name (every taxonomy attached to its collection, empty
    lists included)."""
    return (terms_for_entries(collection=collection, entry_ids=[entry_id]) or {}).get(entry_id, {})


def terms_named(*, actor: Actor | None, taxonomy: str, names: list[str]) -> dict[str, Term]:
    """The terms of ``taxonomy`` that ``names`` (labels or slugs, as people type tags) name, by the name given: a term
    whose label matches (case aside) or whose slug is the name's slug. Names that match nothing are absent."""
    authorize(actor, "taxonomies.read", public=site_is_public)
    target = taxonomy_get(name=taxonomy)
    wanted = {name: slugify(name) for name in names if name.strip()}
    if not wanted:
        return {}
    matches = Q(slug__in=[slug for slug in wanted.values() if slug])
    for name in wanted:
        matches |= Q(label__iexact=name.strip())
    candidates = list(Term.objects.filter(taxonomy=target).filter(matches).order_by("slug"))
    by_label = {term.label.lower(): term for term in reversed(candidates)}
    by_slug = {term.slug: term for term in candidates}
    found = {}
    for name, slug in wanted.items():
        term = by_label.get(name.strip().lower()) or by_slug.get(slug)
        if term is not None:
            found[name] = term
    return found


def term_counts(
    *, actor: Actor | None, taxonomy: Taxonomy, term_ids: list[str] | None = None
) -> dict[str, int]:
    """How many entries carry each term of ``taxonomy`` (or of the terms ``term_ids``), in one query; terms no entry
    carries are absent. Drafts and trashed entries count: they are the entries that lose the term when it is
    deleted."""
    authorize(actor, "taxonomies.read", public=site_is_public)
    rows = EntryTerm.objects.filter(taxonomy=taxonomy)
    if term_ids is not None:
        rows = rows.filter(term_id__in=term_ids)
    return dict(rows.values("term_id").annotate(entries=Count("entry_id")).values_list("term_id", "entries"))
