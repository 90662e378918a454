"""Taxonomy and term shapes on the wire (SPEC §2.7, §4.8), their presenters and OpenAPI documentation."""

from __future__ import annotations

from rest_framework import serializers

from apps.core.api.serializers import cursor_field, limit_field
from apps.core.timefmt import iso
from apps.taxonomy.models import Taxonomy, Term

# --- input -----------------------------------------------------------------------------------------------------------


class TaxonomyIn(serializers.Serializer):
    name = serializers.CharField(
        max_length=63, help_text="Identity: ^[a-z][a-z0-9_]*$, e.g. category, post_tag."
    )
    label = serializers.CharField(max_length=200)
    labelSingular = serializers.CharField(required=False, allow_blank=True, max_length=200)
    hierarchical = serializers.BooleanField(required=False, default=False)
    collections = serializers.ListField(
        child=serializers.CharField(max_length=63),
        required=False,
        default=list,
        help_text="Slugs of the collections whose entries take terms of this taxonomy.",
    )


class TaxonomyUpdateIn(serializers.Serializer):
    """Only the keys sent change. A collection removed from ``collections`` loses this taxonomy's terms."""

    label = serializers.CharField(required=False, max_length=200)
    labelSingular = serializers.CharField(required=False, allow_blank=True, max_length=200)
    hierarchical = serializers.BooleanField(required=False)
    collections = serializers.ListField(child=serializers.CharField(max_length=63), required=False)


class TermListQuery(serializers.Serializer):
    cursor = cursor_field()
    limit = limit_field(default=50)
    parentId = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=26,
        help_text="Children of this term; empty for root terms.",
    )


class TermIn(serializers.Serializer):
    label = serializers.CharField(max_length=200)
    slug = serializers.CharField(
        required=False, max_length=200, help_text="Made from the label when omitted."
    )
    parentId = serializers.CharField(
        required=False, allow_null=True, max_length=26, help_text="Hierarchical taxonomies only."
    )
    description = serializers.CharField(required=False, allow_blank=True, max_length=5000)


class TermUpdateIn(serializers.Serializer):
    """Only the keys sent change; ``parentId: null`` makes the term a root."""

    label = serializers.CharField(required=False, max_length=200)
    slug = serializers.CharField(required=False, max_length=200)
    parentId = serializers.CharField(required=False, allow_null=True, max_length=26)
    description = serializers.CharField(required=False, allow_blank=True, max_length=5000)


class EntryTermsIn(serializers.Serializer):
    termIds = serializers.ListField(
        child=serializers.CharField(max_length=26),
        help_text="The entry's terms of this taxonomy, replacing the current ones; [] removes them all.",
    )


# --- output ----------------------------------------------------------------------------------------------------------


class TaxonomyOut(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField()
    label = serializers.CharField()
    labelSingular = serializers.CharField(allow_blank=True)
    hierarchical = serializers.BooleanField()
    collections = serializers.ListField(child=serializers.CharField())
    createdAt = serializers.DateTimeField()
    updatedAt = serializers.DateTimeField()


class TaxonomyListOut(serializers.Serializer):
    items = TaxonomyOut(many=True)


class TermOut(serializers.Serializer):
    id = serializers.CharField()
    taxonomy = serializers.CharField(help_text="The taxonomy's name.")
    slug = serializers.CharField()
    label = serializers.CharField()
    parentId = serializers.CharField(allow_null=True)
    description = serializers.CharField(allow_blank=True)
    createdAt = serializers.DateTimeField()
    updatedAt = serializers.DateTimeField()


class TermListOut(serializers.Serializer):
    items = TermOut(many=True)


class TermRefOut(serializers.Serializer):
    """A term as entries show it."""

    id = serializers.CharField()
    slug = serializers.CharField()
    label = serializers.CharField()
    parentId = serializers.CharField(allow_null=True)


def present_taxonomy(taxonomy: Taxonomy) -> dict:
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


def present_term(term: Term, *, taxonomy_name: str) -> dict:
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


UPDATE_NAMES = {"labelSingular": "label_singular", "parentId": "parent_id"}


def to_model_names(body: dict) -> dict:
    return {UPDATE_NAMES.get(key, key): value for key, value in body.items()}
