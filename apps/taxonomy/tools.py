"""MCP tools for taxonomies and terms (SPEC §4.11): the taxonomy selectors and services, the taxonomy shapes.
Entries get their terms through content_create and content_update (``taxonomies``)."""

from __future__ import annotations

from apps.core.presenters import SUCCESS, SuccessFlagOut
from apps.mcp.registry import tool
from apps.taxonomy import selectors, services
from apps.taxonomy.inputs import (
    NoArguments,
    TaxonomyChangeIn,
    TaxonomyCreateIn,
    TermChangeIn,
    TermCreateIn,
    TermDeleteIn,
    TermListIn,
    to_model_names,
)
from apps.taxonomy.presenters import (
    TaxonomyListOut,
    TaxonomyOut,
    TermOut,
    TermPageOut,
    present_taxonomies,
    present_taxonomy,
    present_term,
    present_term_listing,
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
    output=TermPageOut,
)
def taxonomy_list_terms(actor, args: TermListIn) -> TermPageOut:
    """List a taxonomy's terms by slug: id, slug, label, parentId (null for top-level terms), description, count
    (the entries carrying the term). parentId keeps one level of a hierarchical taxonomy: a term's children, or ""
    for the top-level terms. tree: true nests each term's descendants under it as children (the page then holds
    top-level terms, or the children of parentId, each with its whole subtree).

    Returns {items, nextCursor}.
    """
    listing = selectors.term_listing(
        actor=actor,
        taxonomy=args.taxonomy,
        parent_id=args.parentId,
        cursor=args.cursor,
        limit=args.limit,
        tree=args.tree,
    )
    return present_term_listing(listing, taxonomy_name=args.taxonomy)


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


@tool(
    "taxonomy_update",
    title="Update a taxonomy",
    operation="taxonomies.write",
    input=TaxonomyChangeIn,
    destructive=True,
    output=TaxonomyOut,
)
def taxonomy_update(actor, args: TaxonomyChangeIn) -> TaxonomyOut:
    """Change a taxonomy's label, labelSingular, hierarchical or collections (only the keys sent; the name cannot
    change). collections replaces the list: entries of a collection left out lose this taxonomy's terms.
    hierarchical: false is [VALIDATION_ERROR] while some term has a parent.

    Returns the taxonomy.
    """
    changes = args.values()
    name = changes.pop("name")
    services.taxonomy_update(
        actor=actor, taxonomy=selectors.taxonomy_get(name=name), changes=to_model_names(changes)
    )
    return present_taxonomy(selectors.taxonomy_get(name=name))


@tool(
    "taxonomy_update_term",
    title="Update a term",
    operation="terms.manage",
    input=TermChangeIn,
    output=TermOut,
)
def taxonomy_update_term(actor, args: TermChangeIn) -> TermOut:
    """Change a term's label, slug, parentId or description (only the keys sent); the term is named by taxonomy and
    its current termSlug. parentId: null makes it a top-level term; a parent in another taxonomy, in a flat
    taxonomy or below the term itself is [VALIDATION_ERROR]. A taken slug is [DUPLICATE_SLUG].

    Returns the term.
    """
    changes = args.values()
    taxonomy = selectors.taxonomy_get(name=changes.pop("taxonomy"))
    term = selectors.term_get(taxonomy=taxonomy, slug=changes.pop("termSlug"))
    updated = services.term_update(actor=actor, term=term, changes=to_model_names(changes))
    return present_term(updated, taxonomy_name=taxonomy.name)


@tool(
    "taxonomy_delete_term",
    title="Delete a term",
    operation="terms.manage",
    input=TermDeleteIn,
    destructive=True,
    output=SuccessFlagOut,
)
def taxonomy_delete_term(actor, args: TermDeleteIn) -> SuccessFlagOut:
    """Delete a term: entries lose it and its children move up to its parent. Irreversible. Returns
    {success: true}."""
    taxonomy = selectors.taxonomy_get(name=args.taxonomy)
    services.term_delete(actor=actor, term=selectors.term_get(taxonomy=taxonomy, slug=args.termSlug))
    return SUCCESS
