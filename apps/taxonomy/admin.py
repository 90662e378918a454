"""Django admin for taxonomies and terms. Terms are listed as a tree (children indented under their parent); every
write goes through the taxonomy services, so slugs, parents and cycles are checked as on the API."""

from __future__ import annotations

from collections import defaultdict

from django import forms
from django.contrib import admin
from django.contrib.admin.views.main import ChangeList

from apps.accounts.permissions import Actor
from apps.core.admin import ServiceAdminMixin, ServiceForm
from apps.taxonomy import services
from apps.taxonomy.models import Taxonomy, Term


class TaxonomyForm(ServiceForm):
    class Meta:
        model = Taxonomy
        fields = ("name", "label", "label_singular", "hierarchical", "collections")

    def perform(self, data):
        actor = Actor.for_session(self.request.user)
        slugs = [collection.slug for collection in data.get("collections") or []]
        if not self.instance._state.adding:
            return services.taxonomy_update(
                actor=actor,
                taxonomy=self.instance,
                changes={
                    "label": data["label"],
                    "label_singular": data.get("label_singular", ""),
                    "hierarchical": data["hierarchical"],
                    "collections": slugs,
                },
            )
        return services.taxonomy_create(
            actor=actor,
            name=data["name"],
            label=data["label"],
            label_singular=data.get("label_singular", ""),
            hierarchical=data["hierarchical"],
            collections=slugs,
        )


@admin.register(Taxonomy)
class TaxonomyAdmin(ServiceAdminMixin, admin.ModelAdmin):
    form = TaxonomyForm
    list_display = ("name", "label", "hierarchical", "applies_to")
    search_fields = ("name", "label")
    filter_horizontal = ("collections",)

    def get_readonly_fields(self, request, obj=None):
        return ("name",) if obj else ()

    @admin.display(description="Collections")
    def applies_to(self, taxonomy: Taxonomy) -> str:
        return ", ".join(collection.slug for collection in taxonomy.collections.all())

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("collections")

    def delete_with(self, request, obj):
        services.taxonomy_delete(actor=Actor.for_session(request.user), taxonomy=obj)


class TermForm(ServiceForm):
    slug = forms.CharField(required=False, help_text="Made from the label when left empty.")

    class Meta:
        model = Term
        fields = ("taxonomy", "label", "slug", "parent", "description")

    def perform(self, data):
        actor = Actor.for_session(self.request.user)
        parent = data.get("parent")
        if not self.instance._state.adding:
            changes = {
                "label": data["label"],
                "parent_id": parent.pk if parent else None,
                "description": data.get("description", ""),
            }
            if data.get("slug"):
                changes["slug"] = data["slug"]
            return services.term_update(actor=actor, term=self.instance, changes=changes)
        return services.term_create(
            actor=actor,
            taxonomy=data["taxonomy"],
            label=data["label"],
            slug=data.get("slug") or None,
            parent_id=parent.pk if parent else None,
            description=data.get("description", ""),
        )


def tree_order(terms: list[Term]) -> list[Term]:
    """Terms in depth-first order, each child after its parent, with ``tree_depth`` set. Terms whose parent is not in
    the list count as roots."""
    present = {term.pk for term in terms}
    children: dict[str | None, list[Term]] = defaultdict(list)
    for term in terms:
        children[term.parent_id if term.parent_id in present else None].append(term)
    ordered: list[Term] = []
    stack = [(term, 0) for term in reversed(sorted(children[None], key=lambda t: (t.taxonomy_id, t.label)))]
    while stack:
        term, depth = stack.pop()
        term.tree_depth = depth
        ordered.append(term)
        stack.extend(
            (child, depth + 1) for child in reversed(sorted(children[term.pk], key=lambda t: t.label))
        )
    return ordered


class TermTreeChangeList(ChangeList):
    def get_results(self, request):
        super().get_results(request)
        self.result_list = tree_order(list(self.result_list))


@admin.register(Term)
class TermAdmin(ServiceAdminMixin, admin.ModelAdmin):
    form = TermForm
    list_display = ("tree_label", "slug", "taxonomy")
    list_filter = ("taxonomy",)
    search_fields = ("label", "slug")
    list_select_related = ("taxonomy",)
    # The tree is built per page; a large page keeps most subtrees together.
    list_per_page = 500

    def get_changelist(self, request, **kwargs):
        return TermTreeChangeList

    @admin.display(description="Term")
    def tree_label(self, term: Term) -> str:
        return "— " * getattr(term, "tree_depth", 0) + term.label

    def delete_with(self, request, obj):
        services.term_delete(actor=Actor.for_session(request.user), term=obj)
