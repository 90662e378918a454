"""Writes to taxonomies, terms and entries' terms.

Taxonomy definitions are structure (which collections they apply to), cached with the schema: every change here
bumps the schema version token in the same transaction. Terms of hierarchical taxonomies form a forest; a parent is a
term of the same taxonomy and never the term itself or one of its descendants. Deleting a term detaches it from every
entry and moves its children up to its own parent.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from typing import Any

from django.db import IntegrityError, transaction

from apps.accounts.permissions import Actor, authorize
from apps.content.models import Entry
from apps.core import events
from apps.core.db import bulk_insert
from apps.core.errors import DuplicateSlug, ValidationError
from apps.core.slugs import free_slug, slugify
from apps.schema.models import Collection
from apps.schema.services import schema_changed
from apps.taxonomy.models import EntryTerm, Taxonomy, Term

NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")
NAME_HINT = "Use lowercase letters, digits and underscores, starting with a letter (e.g. category, post_tag)."


def _collections(slugs: list[str]) -> list[Collection]:
    if len(set(slugs)) != len(slugs):
        raise ValidationError(details={"collections": "Name each collection once."})
    found = {collection.slug: collection for collection in Collection.objects.filter(slug__in=slugs)}
    missing = [slug for slug in slugs if slug not in found]
    if missing:
        known = (
            ", ".join(Collection.objects.order_by("slug").values_list("slug", flat=True)[:50]) or "none yet"
        )
        raise ValidationError(
            details={"collections": f"Unknown collection(s) {', '.join(missing)}; collections: {known}."}
        )
    return [found[slug] for slug in slugs]


@transaction.atomic
def taxonomy_create(
    *,
    actor: Actor,
    name: str,
    label: str,
    label_singular: str = "",
    hierarchical: bool = False,
    collections: list[str] | None = None,
) -> Taxonomy:
    authorize(actor, "taxonomies.write")
    problems = {}
    if not isinstance(name, str) or not NAME_RE.match(name) or len(name) > 63:
        problems["name"] = NAME_HINT
    if not label or not label.strip():
        problems["label"] = "Required."
    if problems:
        raise ValidationError(details=problems)
    targets = _collections(collections or [])
    if Taxonomy.objects.filter(name=name).exists():
        raise DuplicateSlug(f"A taxonomy named '{name}' exists already.", details={"name": "Taken."})
    taxonomy = Taxonomy.objects.create(
        name=name,
        label=label.strip(),
        label_singular=(label_singular or "").strip(),
        hierarchical=hierarchical,
    )
    taxonomy.collections.set(targets)
    schema_changed()
    events.taxonomy_changed.send(sender=Taxonomy, taxonomy=taxonomy, action="create", actor=actor)
    return taxonomy


@transaction.atomic
def taxonomy_update(*, actor: Actor, taxonomy: Taxonomy, changes: dict[str, Any]) -> Taxonomy:
    """Change label, label_singular, hierarchical and collections. The name is the taxonomy's identity and does not
    change. A collection taken off the list loses this taxonomy's terms on its entries."""
    authorize(actor, "taxonomies.write")
    taxonomy = Taxonomy.objects.select_for_update().get(pk=taxonomy.pk)
    if "name" in changes and changes["name"] != taxonomy.name:
        raise ValidationError(details={"name": "A taxonomy's name cannot change; create another taxonomy."})
    if "label" in changes:
        if not changes["label"] or not changes["label"].strip():
            raise ValidationError(details={"label": "Must not be empty."})
        taxonomy.label = changes["label"].strip()
    if "label_singular" in changes:
        taxonomy.label_singular = (changes["label_singular"] or "").strip()
    if "hierarchical" in changes and changes["hierarchical"] != taxonomy.hierarchical:
        if not changes["hierarchical"]:
            nested = taxonomy.terms.filter(parent__isnull=False).count()
            if nested:
                raise ValidationError(
                    details={
                        "hierarchical": f"{nested} term(s) have a parent; clear their parentId before making "
                        f"'{taxonomy.name}' flat."
                    }
                )
        taxonomy.hierarchical = changes["hierarchical"]
    taxonomy.save()
    if "collections" in changes:
        targets = _collections(changes["collections"] or [])
        kept = {collection.pk for collection in targets}
        dropped = [pk for pk in taxonomy.collections.values_list("pk", flat=True) if pk not in kept]
        if dropped:
            EntryTerm.objects.filter(taxonomy=taxonomy, entry__collection_id__in=dropped).delete()
        taxonomy.collections.set(targets)
    schema_changed()
    events.taxonomy_changed.send(sender=Taxonomy, taxonomy=taxonomy, action="update", actor=actor)
    return taxonomy


@transaction.atomic
def taxonomy_delete(*, actor: Actor, taxonomy: Taxonomy) -> None:
    """Delete the taxonomy with its terms; entries lose those terms."""
    authorize(actor, "taxonomies.write")
    events.taxonomy_changed.send(sender=Taxonomy, taxonomy=taxonomy, action="delete", actor=actor)
    taxonomy.delete()
    schema_changed()


# --- terms ----------------------------------------------------------------------------------------------------------


def _term_slug(taxonomy: Taxonomy, explicit: str | None, label: str, exclude: str | None = None) -> str:
    siblings = Term.objects.filter(taxonomy=taxonomy).exclude(pk=exclude)
    if explicit is not None:
        slug = slugify(explicit) if isinstance(explicit, str) else ""
        if not slug:
            raise ValidationError(details={"slug": "Needs at least one letter or digit."})
        if siblings.filter(slug=slug).exists():
            raise DuplicateSlug(
                f"The slug '{slug}' is already used in '{taxonomy.name}'.", details={"slug": "Taken."}
            )
        return slug
    base = slugify(label)
    if not base:
        raise ValidationError(
            details={"slug": "Give a slug: the label has no letters or digits to make one."}
        )
    return free_slug(siblings, base)


# A tree of terms (taxonomy_list_terms with tree) nests two JSON levels per term level: far deeper chains would pass
# the JSON encoder's nesting limit. No real taxonomy comes near.
MAX_TERM_DEPTH = 100


def _check_parent(taxonomy: Taxonomy, term: Term | None, parent_id: str | None) -> Term | None:
    """The parent term for ``parent_id``, refusing other taxonomies, flat taxonomies, cycles and nesting deeper than
    ``MAX_TERM_DEPTH``."""
    if parent_id is None:
        return None
    if not taxonomy.hierarchical:
        raise ValidationError(
            details={"parentId": f"'{taxonomy.name}' is not hierarchical: its terms have no parent."}
        )
    parents = dict(Term.objects.filter(taxonomy=taxonomy).values_list("pk", "parent_id"))
    if parent_id not in parents:
        raise ValidationError(details={"parentId": f"No term {parent_id} in '{taxonomy.name}'."})
    if term is not None:
        # Walk up from the new parent: meeting the term itself means the change would close a loop.
        current, seen = parent_id, set()
        while current is not None and current not in seen:
            if current == term.pk:
                raise ValidationError(
                    details={
                        "parentId": "A term cannot be its own parent or the child of one of its descendants."
                    }
                )
            seen.add(current)
            current = parents.get(current)
    if _levels_above(parents, parent_id) + _levels_from(parents, term.pk if term else None) > MAX_TERM_DEPTH:
        raise ValidationError(details={"parentId": f"Terms nest at most {MAX_TERM_DEPTH} levels deep."})
    return Term.objects.get(pk=parent_id)


def _levels_above(parents: dict[str, str | None], term_id: str) -> int:
    """How many levels from the root down to ``term_id``, itself included (the links hold no loop)."""
    levels = 0
    current: str | None = term_id
    while current is not None:
        levels += 1
        current = parents.get(current)
    return levels


def _levels_from(parents: dict[str, str | None], term_id: str | None) -> int:
    """How many levels the subtree of ``term_id`` spans, itself included (1 for a new term)."""
    if term_id is None:
        return 1
    children: dict[str, list[str]] = {}
    for child, parent in parents.items():
        if parent is not None:
            children.setdefault(parent, []).append(child)
    levels, level = 0, [term_id]
    while level:
        levels += 1
        level = [child for node in level for child in children.get(node, [])]
    return levels


@transaction.atomic
def term_create(
    *,
    actor: Actor,
    taxonomy: Taxonomy,
    label: str,
    slug: str | None = None,
    parent_id: str | None = None,
    description: str = "",
) -> Term:
    """Create a term; without a slug one is made from the label (``-2``, ``-3`` … when taken)."""
    authorize(actor, "terms.create")
    if not label or not label.strip():
        raise ValidationError(details={"label": "Required."})
    parent = _check_parent(taxonomy, None, parent_id)
    term = Term(
        taxonomy=taxonomy,
        slug=_term_slug(taxonomy, slug, label),
        label=label.strip(),
        parent=parent,
        description=description or "",
    )
    try:
        with transaction.atomic():
            term.save(force_insert=True)
    except IntegrityError:
        raise DuplicateSlug(f"The slug '{term.slug}' was just taken in '{taxonomy.name}'.") from None
    events.term_changed.send(sender=Term, term=term, action="create", actor=actor)
    return term


@transaction.atomic
def term_update(*, actor: Actor, term: Term, changes: dict[str, Any]) -> Term:
    """Change slug, label, parent (``parent_id``; None makes it a root) and description; only the keys given."""
    authorize(actor, "terms.manage")
    term = Term.objects.select_for_update().select_related("taxonomy").get(pk=term.pk)
    taxonomy = term.taxonomy
    if "label" in changes:
        if not changes["label"] or not changes["label"].strip():
            raise ValidationError(details={"label": "Must not be empty."})
        term.label = changes["label"].strip()
    if "slug" in changes and changes["slug"] != term.slug:
        term.slug = _term_slug(taxonomy, changes["slug"], term.label, exclude=term.pk)
    if "parent_id" in changes:
        term.parent = _check_parent(taxonomy, term, changes["parent_id"])
    if "description" in changes:
        term.description = changes["description"] or ""
    try:
        with transaction.atomic():
            term.save()
    except IntegrityError:
        raise DuplicateSlug(f"The slug '{term.slug}' was just taken in '{taxonomy.name}'.") from None
    events.term_changed.send(sender=Term, term=term, action="update", actor=actor)
    return term


@transaction.atomic
def term_delete(*, actor: Actor, term: Term) -> None:
    """Delete a term: entries lose it, and its children move up to its parent (a root's children become roots)."""
    authorize(actor, "terms.manage")
    term = Term.objects.select_for_update().get(pk=term.pk)
    Term.objects.filter(parent=term).update(parent_id=term.parent_id)
    events.term_changed.send(sender=Term, term=term, action="delete", actor=actor)
    term.delete()


# --- entries' terms: one plan for an entry's terms, writers for one entry and for many ------------------------------


@dataclasses.dataclass
class TermsLookup:
    """What planning entries' terms reads from the database, once for one entry or for a whole batch."""

    # (taxonomy id, collection id) of each taxonomy that applies to a collection.
    attached: set[tuple[str, str]]
    # The taxonomy of each named term that exists.
    found: dict[str, str]

    @classmethod
    def read(cls, taxonomies: Iterable[Taxonomy], term_ids: Iterable[str]) -> TermsLookup:
        found = Term.objects.filter(pk__in=set(term_ids)).values_list("pk", "taxonomy_id")
        return cls(_attached(taxonomies), dict(found))


def _attached(taxonomies: Iterable[Taxonomy]) -> set[tuple[str, str]]:
    return set(
        Taxonomy.collections.through.objects.filter(
            taxonomy_id__in=[taxonomy.pk for taxonomy in taxonomies]
        ).values_list("taxonomy_id", "collection_id")
    )


def plan_entry_terms(
    *, entry: Entry, taxonomy: Taxonomy, term_ids: list[str], lookup: TermsLookup
) -> dict[str, str]:
    """What is wrong with giving ``entry`` the terms ``term_ids`` of ``taxonomy``: the taxonomy must apply to the
    entry's collection, and each term must exist, belong to it and be named once. Keys as ``entry_terms_set``
    reports them (``taxonomy``, ``termIds``, ``termIds.N``); the functions for several taxonomies or entries put
    the taxonomy's name (and the entry's id) before them. Reads and writes nothing."""
    problems: dict[str, str] = {}
    if (taxonomy.pk, entry.collection_id) not in lookup.attached:
        problems["taxonomy"] = f"Not attached to '{entry.collection.slug}'."
    if len(set(term_ids)) != len(term_ids):
        problems["termIds"] = "Name each term once."
    for index, term_id in enumerate(term_ids):
        owner = lookup.found.get(term_id)
        if owner is None:
            problems[f"termIds.{index}"] = f"No term {term_id}."
        elif owner != taxonomy.pk:
            problems[f"termIds.{index}"] = (
                f"Term {term_id} belongs to another taxonomy, not '{taxonomy.name}'."
            )
    return problems


def _term_rows(entry: Entry, terms: dict[Taxonomy, list[str]]) -> list[EntryTerm]:
    return [
        EntryTerm(entry=entry, term_id=term_id, taxonomy=taxonomy, sort_order=position)
        for taxonomy, term_ids in terms.items()
        for position, term_id in enumerate(term_ids)
    ]


def _terms_changed(entry: Entry, terms: dict[Taxonomy, list[str]], actor: Actor) -> None:
    for taxonomy, term_ids in terms.items():
        events.entry_terms_changed.send(
            sender=Entry, entry=entry, taxonomy=taxonomy, term_ids=list(term_ids), actor=actor
        )


def _write_terms(entry: Entry, terms: dict[Taxonomy, list[str]], actor: Actor, *, fresh: bool) -> None:
    """Replace one entry's terms of these taxonomies (``fresh``: it has none yet, nothing to delete)."""
    if not fresh:
        EntryTerm.objects.filter(entry=entry, taxonomy__in=list(terms)).delete()
    EntryTerm.objects.bulk_create(_term_rows(entry, terms))
    _terms_changed(entry, terms, actor)


def _locked(entry: Entry) -> Entry:
    return Entry.objects.select_for_update().select_related("collection").get(pk=entry.pk)


@transaction.atomic
def entry_terms_set(*, actor: Actor, entry: Entry, taxonomy: Taxonomy, term_ids: list[str]) -> list[Term]:
    """Replace the entry's terms of ``taxonomy`` with ``term_ids`` (in that order). The taxonomy must apply to the
    entry's collection, and every term must belong to it."""
    entry = _locked(entry)
    authorize(actor, "content.update", owner_id=entry.author_id)
    found = {term.pk: term for term in Term.objects.filter(pk__in=term_ids)}
    lookup = TermsLookup(_attached([taxonomy]), {term.pk: term.taxonomy_id for term in found.values()})
    if problems := plan_entry_terms(entry=entry, taxonomy=taxonomy, term_ids=term_ids, lookup=lookup):
        message = None
        if "taxonomy" in problems:
            applies = (
                ", ".join(taxonomy.collections.order_by("slug").values_list("slug", flat=True)) or "none"
            )
            message = (
                f"The taxonomy '{taxonomy.name}' does not apply to '{entry.collection.slug}'; it applies to: "
                f"{applies}."
            )
        raise ValidationError(message, details=problems)
    _write_terms(entry, {taxonomy: term_ids}, actor, fresh=False)
    return [found[term_id] for term_id in term_ids]


@transaction.atomic
def entry_terms_set_many(
    *, actor: Actor, entry: Entry, terms: dict[Taxonomy, list[str]], fresh: bool = False
) -> None:
    """``entry_terms_set`` for several taxonomies at once, in one statement each for the checks and the writes (the
    importer sets categories and tags of thousands of entries); problems are keyed by the taxonomy's name first.
    ``fresh``: the entry was created in this transaction, so nobody else can hold it and it has no terms yet (no
    lock, nothing to delete)."""
    if not terms:
        return
    if not fresh:
        entry = _locked(entry)
    authorize(actor, "content.update", owner_id=entry.author_id)
    lookup = TermsLookup.read(terms, [term_id for term_ids in terms.values() for term_id in term_ids])
    problems = {
        f"{taxonomy.name}.{key}": problem
        for taxonomy, term_ids in terms.items()
        for key, problem in plan_entry_terms(
            entry=entry, taxonomy=taxonomy, term_ids=term_ids, lookup=lookup
        ).items()
    }
    if problems:
        raise ValidationError(details=problems)
    _write_terms(entry, terms, actor, fresh=fresh)


@transaction.atomic
def entry_terms_add_many(*, actor: Actor, assignments: list[tuple[Entry, dict[Taxonomy, list[str]]]]) -> None:
    """Give entries created in this transaction (they have no terms yet) their terms, in one INSERT for all of them
    (imports). The checks of ``entry_terms_set``, keyed by the entry's id and the taxonomy's name first; the
    ``entry_terms_changed`` event per entry and taxonomy."""
    assignments = [(entry, terms) for entry, terms in assignments if terms]
    if not assignments:
        return
    for entry, _ in assignments:
        authorize(actor, "content.update", owner_id=entry.author_id)
    lookup = TermsLookup.read(
        {taxonomy for _, terms in assignments for taxonomy in terms},
        [term_id for _, terms in assignments for term_ids in terms.values() for term_id in term_ids],
    )
    problems = {
        f"{entry.pk}.{taxonomy.name}.{key}": problem
        for entry, terms in assignments
        for taxonomy, term_ids in terms.items()
        for key, problem in plan_entry_terms(
            entry=entry, taxonomy=taxonomy, term_ids=term_ids, lookup=lookup
        ).items()
    }
    if problems:
        raise ValidationError(details=problems)
    bulk_insert([row for entry, terms in assignments for row in _term_rows(entry, terms)])
    for entry, terms in assignments:
        _terms_changed(entry, terms, actor)
