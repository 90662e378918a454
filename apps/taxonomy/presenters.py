"""Taxonomies and terms as every face shows them (SPEC §2.7, §4.8): each shape once, with the function that builds
it. ``TermRefOut`` is a term as entries show it: content's answers nest them by taxonomy name, built in bulk by
``selectors.terms_for_entries``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Annotated, NotRequired

from pydantic import Field

from apps.core.shapes import Timestamp, TypedDict
from apps.core.timefmt import iso
from apps.taxonomy.models import Taxonomy, Term

if TYPE_CHECKING:
    from apps.taxonomy.selectors import TermListing


class TaxonomyOut(TypedDict):
    id: str
    name: Annotated[str, Field(description="The taxonomy's identity, e.g. category.")]
    label: str
    labelSingular: str
    hierarchical: Annotated[bool, Field(description="Terms can have parents.")]
    collections: Annotated[
        list[str], Field(description="Slugs of the collections whose entries take terms of this taxonomy.")
    ]
    createdAt: Timestamp
    updatedAt: Timestamp


class TaxonomyListOut(TypedDict):
    items: list[TaxonomyOut]
    nextCursor: Annotated[None, Field(description="Always null: every taxonomy comes at once.")]


class TermOut(TypedDict):
    id: str
    taxonomy: Annotated[str, Field(description="The taxonomy's name.")]
    slug: str
    label: str
    parentId: Annotated[str | None, Field(description="The parent term's id; null for a top-level term.")]
    description: str
    createdAt: Timestamp
    updatedAt: Timestamp


class TermCountedOut(TermOut):
    count: Annotated[
        int,
        Field(
            description="How many entries carry the term, drafts and trashed entries included (they lose it when "
            "it is deleted)."
        ),
    ]


class TermNodeOut(TermCountedOut):
    """A term of a list; with tree, its children nest under it."""

    children: NotRequired[
        Annotated[
            list[TermNodeOut],
            Field(description="Only with tree: the term's children, by slug, each with its own children."),
        ]
    ]


class TermPageOut(TypedDict):
    items: Annotated[list[TermNodeOut], Field(description="By slug.")]
    nextCursor: Annotated[
        str | None, Field(description="Pass as cursor for the next page; null on the last.")
    ]


class TermListOut(TypedDict):
    items: Annotated[list[TermOut], Field(description="In the entry's order.")]


class TermRefOut(TypedDict):
    """A term as entries show it."""

    id: str
    slug: str
    label: str
    parentId: str | None


def present_taxonomy(taxonomy: Taxonomy) -> TaxonomyOut:
    return {
        "id": taxonomy.pk,
        "name": taxonomy.name,
        "label": taxonomy.label,
        "labelSingular": taxonomy.label_singular,
        "hierarchical": taxonomy.hierarchical,
        "collections": [collection.slug for collection in taxonomy.collections.all()],
        "createdAt": iso(taxonomy.created_at),
        "updatedAt": iso(taxonomy.updated_at),
    }


def present_taxonomies(taxonomies: Iterable[Taxonomy]) -> TaxonomyListOut:
    return {"items": [present_taxonomy(taxonomy) for taxonomy in taxonomies], "nextCursor": None}


def present_term(term: Term, *, taxonomy_name: str) -> TermOut:
    return {
        "id": term.pk,
        "taxonomy": taxonomy_name,
        "slug": term.slug,
        "label": term.label,
        "parentId": term.parent_id,
        "description": term.description,
        "createdAt": iso(term.created_at),
        "updatedAt": iso(term.updated_at),
    }


def present_terms(terms: Iterable[Term], *, taxonomy_name: str) -> TermListOut:
    return {"items": [present_term(term, taxonomy_name=taxonomy_name) for term in terms]}


def present_counted_term(term: Term, *, taxonomy_name: str, counts: dict[str, int]) -> TermCountedOut:
    """``counts``: ``selectors.term_counts`` for the terms shown (absent means none)."""
    return {**present_term(term, taxonomy_name=taxonomy_name), "count": counts.get(term.pk, 0)}


def present_term_listing(listing: TermListing, *, taxonomy_name: str) -> TermPageOut:
    """``selectors.term_listing``'s page: each term as ``present_counted_term`` shows it, with its children nested
    when the listing is a tree."""
    children = listing.children

    def node(term: Term) -> TermNodeOut:
        counted: TermNodeOut = present_counted_term(term, taxonomy_name=taxonomy_name, counts=listing.counts)
        if children is not None:
            counted["children"] = [node(child) for child in children.get(term.pk, [])]
        return counted

    return listing.page.to_data(node)
