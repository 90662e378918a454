"""Taxonomies and their terms: the list, a taxonomy's form, its terms as a tree (hierarchical) or a list with the count
of entries using each, and a term's form and delete confirmation.

Reads go through apps.taxonomy.selectors, writes through apps.taxonomy.services; forms are parsed with the REST
inputs (apps.taxonomy.inputs), so a form refuses what the API refuses, with the same messages next to the fields."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib import messages
from django.shortcuts import redirect
from django.urls import reverse

from apps.accounts.permissions import authorize, can
from apps.core import shapes
from apps.core.errors import CmsError
from apps.schema.selectors import collections_for_read
from apps.studio.access import studio_page
from apps.studio.rendering import render_studio
from apps.taxonomy import selectors, services
from apps.taxonomy.inputs import TaxonomyCreateIn, TaxonomyUpdateIn, TermIn, TermUpdateIn, to_model_names
from apps.taxonomy.models import Taxonomy, Term

SECTION = "taxonomies"
# Error keys of the services and of the inputs (wire names) → the form field they belong next to.
FIELD_OF = {"labelSingular": "label_singular", "parentId": "parent"}


def _errors(exc: CmsError) -> dict[str, str]:
    details = exc.details if isinstance(exc.details, dict) else {}
    errors = {FIELD_OF.get(key, key): str(message) for key, message in details.items()}
    if not errors:
        errors["form"] = exc.message
    return errors


def _invalid(request, template: str, context: dict, exc: CmsError):
    """The form again with the service's messages next to its fields; a refusal is the error page instead."""
    if exc.status not in (400, 409):
        raise exc
    return render_studio(
        request, template, {**context, "errors": _errors(exc)}, section=SECTION, status=exc.status
    )


# --- taxonomies -------------------------------------------------------------------------------------------------------


@studio_page
def taxonomy_list_page(request):
    taxonomies = selectors.taxonomy_list(actor=request.actor)
    return render_studio(
        request,
        "studio/taxonomies/list.html",
        {"taxonomies": taxonomies, "may_define": can(request.actor, "taxonomies.write")},
        section=SECTION,
    )


def _taxonomy_form(request, taxonomy: Taxonomy | None) -> dict:
    post = request.POST
    chosen = (
        post.getlist("collections")
        if request.method == "POST"
        else [collection.slug for collection in taxonomy.collections.all()]
        if taxonomy
        else []
    )
    return {
        "taxonomy": taxonomy,
        "values": {
            "name": post.get("name", "") if taxonomy is None else taxonomy.name,
            "label": post.get("label", taxonomy.label if taxonomy else ""),
            "label_singular": post.get("label_singular", taxonomy.label_singular if taxonomy else ""),
            "hierarchical": (
                post.get("hierarchical") == "on"
                if request.method == "POST"
                else bool(taxonomy and taxonomy.hierarchical)
            ),
        },
        "collections": [
            {"slug": item.slug, "label": item.label or item.slug, "checked": item.slug in chosen}
            for item in collections_for_read()
        ],
        "errors": {},
    }


def _taxonomy_body(request, *, creating: bool) -> dict:
    post = request.POST
    body = {
        "label": post.get("label", ""),
        "labelSingular": post.get("label_singular", ""),
        "hierarchical": post.get("hierarchical") == "on",
        "collections": post.getlist("collections"),
    }
    if creating:
        body["name"] = post.get("name", "").strip()
    model = TaxonomyCreateIn if creating else TaxonomyUpdateIn
    return to_model_names(shapes.validate(model, body).model_dump(exclude_unset=True))


@studio_page
def taxonomy_new(request):
    authorize(request.actor, "taxonomies.write")
    template = "studio/taxonomies/form.html"
    context = _taxonomy_form(request, None)
    if request.method == "POST":
        try:
            taxonomy = services.taxonomy_create(actor=request.actor, **_taxonomy_body(request, creating=True))
        except CmsError as exc:
            return _invalid(request, template, context, exc)
        messages.success(request, f"Created the taxonomy “{taxonomy.label}”.")
        return redirect("studio:taxonomy", taxonomy.name)
    return render_studio(request, template, context, section=SECTION)


@studio_page
def taxonomy_edit(request, name: str):
    taxonomy = selectors.taxonomy_read(actor=request.actor, name=name)
    authorize(request.actor, "taxonomies.write")
    template = "studio/taxonomies/form.html"
    context = _taxonomy_form(request, taxonomy)
    if request.method == "POST":
        try:
            services.taxonomy_update(
                actor=request.actor, taxonomy=taxonomy, changes=_taxonomy_body(request, creating=False)
            )
        except CmsError as exc:
            return _invalid(request, template, context, exc)
        messages.success(request, "Saved the taxonomy.")
        return redirect("studio:taxonomy", taxonomy.name)
    return render_studio(request, template, context, section=SECTION)


# --- terms ------------------------------------------------------------------------------------------------------------


@dataclass
class TermNode:
    term: Term
    count: int
    depth: int = 0
    children: list[TermNode] = field(default_factory=list)


def _tree(terms: list[Term], counts: dict[str, int]) -> list[TermNode]:
    """Terms (by label) as a forest: a term whose parent is unknown is shown as a root rather than lost."""
    nodes = {term.pk: TermNode(term, counts.get(term.pk, 0)) for term in terms}
    roots = []
    for node in nodes.values():
        parent = nodes.get(node.term.parent_id)
        (parent.children if parent else roots).append(node)

    def place(level: list[TermNode], depth: int) -> None:
        for node in level:
            node.depth = depth
            place(node.children, depth + 1)

    place(roots, 0)
    return roots


def _flat(nodes: list[TermNode]) -> list[TermNode]:
    out = []
    for node in nodes:
        out.append(node)
        out.extend(_flat(node.children))
    return out


def _parent_choices(nodes: list[TermNode], exclude: str | None = None) -> list[dict]:
    """Every other term, indented by depth; a term's own descendants stay listed: the service says why they can't be
    its parent."""
    return [
        {"id": node.term.pk, "label": f"{'— ' * node.depth}{node.term.label}"}
        for node in _flat(nodes)
        if node.term.pk != exclude
    ]


def _term_body(request, *, creating: bool) -> dict:
    post = request.POST
    body = {
        "label": post.get("label", ""),
        "description": post.get("description", ""),
    }
    slug = post.get("slug", "").strip()
    if slug or not creating:
        body["slug"] = slug
    if "parent" in post:
        body["parentId"] = post.get("parent") or None
    model = TermIn if creating else TermUpdateIn
    return to_model_names(shapes.validate(model, body).model_dump(exclude_unset=True))


def _terms_page(request, taxonomy: Taxonomy, *, values=None, errors=None, status: int = 200):
    terms = selectors.taxonomy_terms(actor=request.actor, taxonomy=taxonomy.name)
    tree = _tree(terms, selectors.term_counts(actor=request.actor, taxonomy=taxonomy))
    return render_studio(
        request,
        "studio/taxonomies/terms.html",
        {
            "taxonomy": taxonomy,
            "tree": tree,
            "count": len(terms),
            "parents": _parent_choices(tree),
            "values": values or {},
            "errors": errors or {},
            "may_create": can(request.actor, "terms.create"),
            "may_manage": can(request.actor, "terms.manage"),
            "may_define": can(request.actor, "taxonomies.write"),
        },
        section=SECTION,
        status=status,
    )


@studio_page
def taxonomy_page(request, name: str):
    """The terms, and the form that adds one (POST)."""
    taxonomy = selectors.taxonomy_read(actor=request.actor, name=name)
    if request.method != "POST":
        return _terms_page(request, taxonomy)
    try:
        term = services.term_create(
            actor=request.actor, taxonomy=taxonomy, **_term_body(request, creating=True)
        )
    except CmsError as exc:
        if exc.status not in (400, 409):
            raise
        return _terms_page(request, taxonomy, values=request.POST, errors=_errors(exc), status=exc.status)
    messages.success(request, f"Added the term “{term.label}”.")
    return redirect("studio:taxonomy", taxonomy.name)


@studio_page
def term_edit(request, name: str, slug: str):
    term = selectors.term_read(actor=request.actor, taxonomy=name, slug=slug)
    authorize(request.actor, "terms.manage")
    taxonomy = selectors.taxonomy_get(name=name)
    post = request.POST if request.method == "POST" else {}
    tree = _tree(selectors.taxonomy_terms(actor=request.actor, taxonomy=name), {})
    context = {
        "taxonomy": taxonomy,
        "term": term,
        "parents": _parent_choices(tree, exclude=term.pk),
        "values": {
            "label": post.get("label", term.label),
            "slug": post.get("slug", term.slug),
            "parent": post.get("parent", term.parent_id or ""),
            "description": post.get("description", term.description),
        },
        "errors": {},
        "may_manage": can(request.actor, "terms.manage"),
    }
    template = "studio/taxonomies/term.html"
    if request.method == "POST":
        try:
            term = services.term_update(
                actor=request.actor, term=term, changes=_term_body(request, creating=False)
            )
        except CmsError as exc:
            return _invalid(request, template, context, exc)
        messages.success(request, f"Saved the term “{term.label}”.")
        return redirect("studio:taxonomy", taxonomy.name)
    return render_studio(request, template, context, section=SECTION)


@studio_page
def term_delete(request, name: str, slug: str):
    """GET: what deleting does (how many entries lose the term, where its children go); POST: delete."""
    term = selectors.term_read(actor=request.actor, taxonomy=name, slug=slug)
    authorize(request.actor, "terms.manage")
    taxonomy = selectors.taxonomy_get(name=name)
    if request.method == "POST":
        services.term_delete(actor=request.actor, term=term)
        messages.success(request, f"Deleted the term “{term.label}”.")
        return redirect("studio:taxonomy", taxonomy.name)
    count = selectors.term_counts(actor=request.actor, taxonomy=taxonomy, term_ids=[term.pk]).get(term.pk, 0)
    terms = selectors.taxonomy_terms(actor=request.actor, taxonomy=name)
    return render_studio(
        request,
        "studio/taxonomies/term_delete.html",
        {
            "taxonomy": taxonomy,
            "term": term,
            "count": count,
            "children": [item.label for item in terms if item.parent_id == term.pk],
            "parent": next((item for item in terms if item.pk == term.parent_id), None),
            "back": reverse("studio:taxonomy", args=[taxonomy.name]),
        },
        section=SECTION,
    )
