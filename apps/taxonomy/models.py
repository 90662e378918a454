"""Taxonomies (category, tag, …), their terms, and which terms an entry carries (docs/architecture.md §3).

A taxonomy applies to a set of collections; entries of those collections get terms of it. Hierarchical taxonomies
let a term have a parent in the same taxonomy (no cycles: the services check); flat ones do not.
"""

from __future__ import annotations

from django.db import models

from apps.content.models import Entry
from apps.core.models import TimestampedModel
from apps.schema.models import Collection


class Taxonomy(TimestampedModel):
    name = models.CharField(max_length=63, unique=True)
    label = models.CharField(max_length=200)
    label_singular = models.CharField(max_length=200, blank=True)
    hierarchical = models.BooleanField(default=False)
    collections = models.ManyToManyField(Collection, related_name="taxonomies", blank=True)

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "taxonomies"

    def __str__(self) -> str:
        return self.name


class Term(TimestampedModel):
    taxonomy = models.ForeignKey(Taxonomy, on_delete=models.CASCADE, related_name="terms")
    slug = models.CharField(max_length=200)
    label = models.CharField(max_length=200)
    # Deleting a parent re-parents its children first (services); SET_NULL only guards rows changed outside them.
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="children"
    )
    description = models.TextField(blank=True)

    class Meta:
        ordering = ["taxonomy", "slug"]
        constraints = [models.UniqueConstraint(fields=["taxonomy", "slug"], name="taxonomy_term_slug_unique")]

    def __str__(self) -> str:
        # How operators pick a parent in the console: by its label, the slug telling same-named terms apart.
        return f"{self.label} ({self.slug})"


class EntryTerm(models.Model):
    """One term on one entry. ``taxonomy`` repeats the term's, so replacing one taxonomy's terms is one DELETE."""

    # No single-column indexes: the unique (entry, term) and the (term, entry) index lead with each of them.
    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="+", db_index=False)
    term = models.ForeignKey(Term, on_delete=models.CASCADE, related_name="assignments", db_index=False)
    taxonomy = models.ForeignKey(Taxonomy, on_delete=models.CASCADE, related_name="+")
    sort_order = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["entry", "taxonomy", "sort_order"]
        constraints = [models.UniqueConstraint(fields=["entry", "term"], name="taxonomy_entry_term_unique")]
        indexes = [models.Index(fields=["term", "entry"], name="taxonomy_term_entries")]

    def __str__(self) -> str:
        return f"{self.entry_id} → {self.term_id}"
