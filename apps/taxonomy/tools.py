"""MCP tools for taxonomies and terms (SPEC §4.11): the taxonomy selectors and services, the taxonomy shapes.
Entries get their terms through content_create and content_update (``taxonomies``)."""

from __future__ import annotations

from apps.core.shapes import paged
from apps.mcp.registry import tool
from apps.taxonomy import selectors, services
from apps.taxonomy.inputs import NoArguments, TaxonomyCreateIn, TermCreateIn, TermListIn, to_model_names
from apps.taxonomy.presenters import (
    TaxonomyListOut,
    TaxonomyOut,
    TermCountedOut,
    TermOut,
    present_counted_term,
    present_taxonomies,
    present_taxonomy,
    present_term,
)


@tool(
    "taxonomy_list",
    title="List taxonomies",
    operation="taxonomies.read",
    input=NoArguments,
    read_only=True,
    output=TaxonomyListOut,
)
def taxonomy_list(actor, args: NoArguments) -> TaxonomyListOut:
    """List the taxonomies (categories, tags …): name, label, hierarchical, and the collections each applies to.

    Returns {items, nextCursor} (all at once; nextCursor is always null). taxonomy_list_terms lists a taxonomy's
    terms, whose slugs content_create and content_update take in taxonomies.
    """
    return present_taxonomies(selectors.taxonomy_list(actor=actor))


@tool(
    "taxonomy_list_terms",
    title="List terms",
    operation="taxonomies.read",
    input=TermListIn,
    read_only=True,
    output=paged(TermCountedOut),
)
def taxonomy_list_terms(actor, args: TermListIn) -> dict:
    """List a taxonomy's terms by slug: id, slug, label, parentId (null for top-level terms), description, count
    (the entries carrying the term). parentId keeps one level of a hierarchical taxonomy: a term's children, or ""
    for the top-level terms.

    Returns {items, nextCursor}.
    """
    page, counts = selectors.term_list_counted(
        actor=actor, taxonomy=args.taxonomy, parent_id=args.parentId, cursor=args.cursor, limit=args.limit
    )
    return page.to_data(lambda term: present_counted_term(term, taxonomy_name=args.taxonomy, counts=counts))


@tool(
    "taxonomy_create_term",
    title="Create a term",
    operation="terms.create",
    input=TermCreateIn,
    output=TermOut,
)
def taxonomy_create_term(actor, args: TermCreateIn) -> TermOut:
    """Create a term in a taxonomy; without a slug one is made from the label. A taken slug is [DUPLICATE_SLUG].
    Returns the term."""
    term = services.term_create(
        actor=actor,
        taxonomy=selectors.taxonomy_get(name=args.taxonomy),
        label=args.label,
        slug=args.slug,
        parent_id=args.parentId,
        description=args.description or "",
    )
    return present_term(term, taxonomy_name=args.taxonomy)


@tool(
    "taxonomy_create",
    title="Create a taxonomy",
    operation="taxonomies.write",
    input=TaxonomyCreateIn,
    output=TaxonomyOut,
)
def taxonomy_create(actor, args: TaxonomyCreateIn) -> TaxonomyOut:
    """Define a taxonomy (a way to classify entries, like categories or tags) for some collections.

    Returns the taxonomy. Add terms with taxonomy_create_term. A taken name is [DUPLICATE_SLUG].
    """
    taxonomy = services.taxonomy_create(actor=actor, **to_model_names(args.values()))
    return present_taxonomy(selectors.taxonomy_get(name=taxonomy.name))
