"""MCP tools for taxonomies and terms (SPEC §4.11), over the taxonomy selectors and services and REST's presenters.
Entries get their terms through content_create and content_update (``taxonomies``)."""

from __future__ import annotations

from pydantic import Field

from apps.accounts.models import Role
from apps.mcp.registry import ToolInput, tool
from apps.taxonomy import selectors, services
from apps.taxonomy.api.serializers import present_taxonomy, present_term, to_model_names

NAME = r"^[a-z][a-z0-9_]*$"


class Empty(ToolInput):
    pass


@tool("taxonomy_list", title="List taxonomies", scope="content:read", input=Empty, read_only=True)
def taxonomy_list(actor, args: Empty) -> dict:
    """List the taxonomies (categories, tags …): name, label, hierarchical, and the collections each applies to.

    Returns {items, nextCursor} (all at once; nextCursor is always null). taxonomy_list_terms lists a taxonomy's
    terms, whose slugs content_create and content_update take in taxonomies.
    """
    return {
        "items": [present_taxonomy(taxonomy) for taxonomy in selectors.taxonomy_list()],
        "nextCursor": None,
    }


class TermListIn(ToolInput):
    taxonomy: str = Field(min_length=1, max_length=63, description="The taxonomy's name.")
    limit: int = Field(50, ge=1, le=100)
    cursor: str = Field(None, max_length=1000, description="nextCursor of the previous page.")


@tool("taxonomy_list_terms", title="List terms", scope="content:read", input=TermListIn, read_only=True)
def taxonomy_list_terms(actor, args: TermListIn) -> dict:
    """List a taxonomy's terms by slug: id, slug, label, parentId (null for top-level terms), description.

    Returns {items, nextCursor}.
    """
    taxonomy = selectors.taxonomy_get(name=args.taxonomy)
    page = selectors.term_list(taxonomy=taxonomy, cursor=args.cursor, limit=args.limit)
    return page.to_data(lambda term: present_term(term, taxonomy_name=taxonomy.name))


class TermCreateIn(ToolInput):
    taxonomy: str = Field(min_length=1, max_length=63, description="The taxonomy's name.")
    slug: str = Field(min_length=1, max_length=200, description="URL slug of the term; must be free.")
    label: str = Field(min_length=1, max_length=200)
    parentId: str = Field(
        None, max_length=26, description="The parent term's id (hierarchical taxonomies only)."
    )
    description: str = None


@tool("taxonomy_create_term", title="Create a term", scope="content:write", input=TermCreateIn)
def taxonomy_create_term(actor, args: TermCreateIn) -> dict:
    """Create a term in a taxonomy. A taken slug is [DUPLICATE_SLUG]. Returns the term."""
    taxonomy = selectors.taxonomy_get(name=args.taxonomy)
    term = services.term_create(
        actor=actor,
        taxonomy=taxonomy,
        label=args.label,
        slug=args.slug,
        parent_id=args.parentId,
        description=args.description or "",
    )
    return present_term(term, taxonomy_name=taxonomy.name)


class TaxonomyCreateIn(ToolInput):
    name: str = Field(pattern=NAME, max_length=63, description="Identifier, e.g. 'category'; cannot change.")
    label: str = Field(min_length=1, max_length=200, description="Plural display name, e.g. 'Categories'.")
    labelSingular: str = Field(None, max_length=200)
    hierarchical: bool = Field(
        False, description="Terms can have parents (like categories), or not (like tags)."
    )
    collections: list[str] = Field([], description="Slugs of the collections it applies to.")


@tool(
    "taxonomy_create",
    title="Create a taxonomy",
    scope="schema:write",
    min_role=Role.ADMIN,
    input=TaxonomyCreateIn,
)
def taxonomy_create(actor, args: TaxonomyCreateIn) -> dict:
    """Define a taxonomy (a way to classify entries, like categories or tags) for some collections.

    Returns the taxonomy. Add terms with taxonomy_create_term. A taken name is [DUPLICATE_SLUG].
    """
    taxonomy = services.taxonomy_create(actor=actor, **to_model_names(args.model_dump(exclude_none=True)))
    return present_taxonomy(selectors.taxonomy_get(name=taxonomy.name))
