"""What each taxonomy operation takes (SPEC §2.7, §4.8, §4.11): one model per operation, read by REST and MCP alike.

REST takes the taxonomy's name (and a term's slug) from the path; the tools take it as an argument, so a tool's model
is the name plus the REST body or query. A taxonomy's name is checked by the service, whose message says what a name
may be; the model documents the pattern.
"""

from __future__ import annotations

from typing import Annotated

from apps.core.shapes import Field, Input, Str, Text, cursor_param, limit_param

NAME_PATTERN = r"^[a-z][a-z0-9_]*$"
CollectionSlug = Annotated[Str, Field(max_length=63)]
TermId = Annotated[Str, Field(max_length=26)]


class NoArguments(Input):
    pass


class TaxonomyNameIn(Input):
    taxonomy: Str = Field(max_length=63, description="The taxonomy's name.")


class TaxonomyCreateIn(Input):
    name: Str = Field(
        max_length=63,
        description="Identity, e.g. category or post_tag: lowercase letters, digits and _, starting with a letter; "
        "cannot change.",
        json_schema_extra={"pattern": NAME_PATTERN},
    )
    label: Str = Field(max_length=200, description="Plural display name, e.g. 'Categories'.")
    labelSingular: Text = Field(None, max_length=200)
    hierarchical: bool = Field(
        False, description="Terms can have parents (like categories), or not (like tags)."
    )
    collections: list[CollectionSlug] = Field(
        [], description="Slugs of the collections whose entries take terms of this taxonomy."
    )


class TaxonomyUpdateIn(Input):
    """Only the keys sent change. A collection removed from ``collections`` loses this taxonomy's terms."""

    label: Str = Field(None, max_length=200)
    labelSingular: Text = Field(None, max_length=200)
    hierarchical: bool = Field(
        None, description="false is refused while terms have a parent: clear their parentId first."
    )
    collections: list[CollectionSlug] = Field(
        None,
        description="Replaces the list; a collection left out loses this taxonomy's terms on its entries.",
    )


class TaxonomyIdentityIn(Input):
    name: Str = Field(max_length=63, description="The taxonomy's name (it cannot change).")


# pydantic orders inherited fields from the last base to the first: the identity comes first.
class TaxonomyChangeIn(TaxonomyUpdateIn, TaxonomyIdentityIn):
    """The tool's update: the name names the taxonomy; the other keys are the REST PATCH body."""


class TermListQuery(Input):
    cursor: Str = cursor_param()
    limit: int = limit_param(50)
    parentId: Text = Field(
        None,
        max_length=26,
        description="Only the children of this term; empty for the top-level terms (hierarchical taxonomies).",
    )
    tree: bool = Field(
        False,
        description="Nest each term's descendants under it as children. limit and cursor then page the top-level "
        "terms (or the children of parentId), each with its whole subtree.",
    )


# pydantic orders inherited fields from the last base to the first: the taxonomy comes first.
class TermListIn(TermListQuery, TaxonomyNameIn):
    pass


class TermIn(Input):
    label: Str = Field(max_length=200)
    slug: Str = Field(
        None, max_length=200, description="URL slug, free in the taxonomy; made from the label when omitted."
    )
    parentId: TermId | None = Field(None, description="The parent term's id (hierarchical taxonomies only).")
    description: Text = Field(None, max_length=5000)


class TermCreateIn(TermIn, TaxonomyNameIn):
    pass


class TermUpdateIn(TermIn):
    """Only the keys sent change; ``parentId: null`` makes the term a top-level one."""

    label: Str = Field(None, max_length=200)


class TermRefIn(TaxonomyNameIn):
    termSlug: Str = Field(max_length=200, description="The term's current slug.")


class TermDeleteIn(TermRefIn):
    pass


# pydantic orders inherited fields from the last base to the first: the identity comes first.
class TermChangeIn(TermUpdateIn, TermRefIn):
    """The tool's update: taxonomy and termSlug name the term; the other keys are the REST PATCH body (slug renames
    it)."""


class EntryTermsIn(Input):
    termIds: list[TermId] = Field(
        description="The entry's terms of this taxonomy, replacing the current ones; [] removes them all."
    )


WIRE_TO_MODEL = {"labelSingular": "label_singular", "parentId": "parent_id"}


def to_model_names(values: dict) -> dict:
    """Wire names to the services' names."""
    return {WIRE_TO_MODEL.get(key, key): value for key, value in values.items()}
