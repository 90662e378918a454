"""The terms phase, and the terms items name later: the export's taxonomies become taxonomies of the CMS, attached
to the collections that use them, and its categories, tags and other terms become terms, parents before
children. A term of the same slug that exists already (made by hand, or by an import of another site) is used."""

from __future__ import annotations

from urllib.parse import unquote

from django.db import transaction

from apps.core.slugs import slugify
from apps.importer.analysis import is_content_taxonomy
from apps.importer.items import Author, ImportItem, Term
from apps.importer.pipeline.state import RunState
from apps.schema.models import Collection
from apps.taxonomy import services as taxonomy_services
from apps.taxonomy.models import Taxonomy
from apps.taxonomy.models import Term as TaxonomyTerm

TERMS_PER_COMMIT = 200


def parents_first(terms: list[Term]) -> list[Term]:
    """The terms with each parent before its children (of those listed), so that a chunk of them never holds a
    child whose parent comes in a later chunk."""
    by_key = {(term.taxonomy, term.slug): term for term in terms}
    ordered: list[Term] = []
    done: set[tuple[str, str]] = set()

    def place(term: Term, trail: tuple = ()) -> None:
        key = (term.taxonomy, term.slug)
        if key in done:
            return
        done.add(key)
        parent_key = (term.taxonomy, term.parent) if term.parent else None
        if parent_key and parent_key in by_key and parent_key not in trail:
            place(by_key[parent_key], (*trail, key))
        ordered.append(term)

    for term in terms:
        place(term)
    return ordered


def taxonomy_name(wp_name: str) -> str:
    name = "".join(ch if ch.isalnum() else "_" for ch in wp_name.lower()).strip("_")
    if not name or not name[0].isalpha():
        name = f"wp_{name}"
    return name[:63]


class Terms:
    def __init__(self, state: RunState) -> None:
        self.state = state

    def run(self) -> None:
        """The records before the first item: its authors, its menus (``nav_menu`` terms) and its terms."""
        state = self.state
        header_terms: list[Term] = []
        menus: list[Term] = []
        for record in state.read_source():
            if isinstance(record, ImportItem):
                break
            if isinstance(record, Author):
                state.authors[record.login] = record
            elif isinstance(record, Term):
                if record.taxonomy == "nav_menu":
                    menus.append(record)
                elif is_content_taxonomy(record.taxonomy):
                    header_terms.append(record)
        with transaction.atomic():
            for menu in menus:
                state.put("menu_term", menu.slug, payload={"name": menu.name or menu.slug})
            state.flush()
        if not state.options.get("includeTaxonomies", True):
            return
        # Committed a chunk at a time with the job (its counters, and its lease renewed): a site's thousands of
        # terms in one transaction outlasted the lease, and another worker took the job for a dead one's and ran
        # it too. A kill loses the chunk under way only; a resumed phase finds the terms made by their records.
        ordered = parents_first(header_terms)
        for start in range(0, len(ordered), TERMS_PER_COMMIT):
            with transaction.atomic():
                self.create(ordered[start : start + TERMS_PER_COMMIT])
                state.save()

    def taxonomy(self, wp_name: str, collection: Collection | None = None) -> Taxonomy:
        state = self.state
        taxonomy = state.taxonomies.get(wp_name)
        if taxonomy is None:
            name = taxonomy_name(wp_name)
            taxonomy = Taxonomy.objects.filter(name=name).first()
            if taxonomy is None:
                labels = {"category": ("Categories", "Category"), "post_tag": ("Tags", "Tag")}
                label, singular = labels.get(wp_name, (wp_name.replace("_", " ").title(),) * 2)
                analysis = state.job.analysis.result if state.job.analysis else {}
                hierarchical = (
                    any(
                        item["name"] == wp_name and item["hierarchical"]
                        for item in analysis.get("taxonomies", [])
                    )
                    or wp_name == "category"
                )
                users = [
                    state.mappings[post_type]["collection"]
                    for item in analysis.get("taxonomies", [])
                    if item["name"] == wp_name
                    for post_type in item["postTypes"]
                    if state.mappings.get(post_type, {}).get("enabled", True) and post_type in state.mappings
                ]
                taxonomy = taxonomy_services.taxonomy_create(
                    actor=state.system,
                    name=name,
                    label=label,
                    label_singular=singular,
                    hierarchical=hierarchical,
                    collections=sorted(set(users)),
                )
                state.counters["taxonomies"] += 1
            state.taxonomies[wp_name] = taxonomy
            for slug in taxonomy.collections.values_list("slug", flat=True):
                state.attached.add((wp_name, slug))
        if collection is not None and (wp_name, collection.slug) not in state.attached:
            current = list(taxonomy.collections.values_list("slug", flat=True))
            taxonomy = taxonomy_services.taxonomy_update(
                actor=state.system,
                taxonomy=taxonomy,
                changes={"collections": sorted({*current, collection.slug})},
            )
            state.taxonomies[wp_name] = taxonomy
            state.attached.add((wp_name, collection.slug))
        return taxonomy

    def create(self, terms: list[Term]) -> None:
        """Parents before children, whatever order the file lists them in; a parent the file lacks makes a root."""
        for term in parents_first(terms):
            term_id = self.term(term.taxonomy, term.slug, term.name, term.parent, term.description)
            if term.source_id is not None:
                self.state.put(
                    "term_id",
                    f"{term.taxonomy}:{term.source_id}",
                    target_id=term_id,
                    target_type=self.taxonomy(term.taxonomy).name,
                )

    def term(
        self, wp_taxonomy: str, slug: str, name: str = "", parent: str = "", description: str = ""
    ) -> str:
        state = self.state
        key = (wp_taxonomy, slug)
        if key in state.terms:
            return state.terms[key]
        source_id = f"{wp_taxonomy}:{slug}"
        record = state.get("term", source_id)
        if record and TaxonomyTerm.objects.filter(pk=record.target_id).exists():
            state.terms[key] = record.target_id
            return record.target_id
        taxonomy = self.taxonomy(wp_taxonomy)
        parent_id = state.terms.get((wp_taxonomy, parent)) if parent else None
        if parent and parent_id is None:
            parent_record = state.get("term", f"{wp_taxonomy}:{parent}")
            parent_id = parent_record.target_id if parent_record else None
        if parent_id and not taxonomy.hierarchical:
            parent_id = None
        clean = slugify(unquote(slug)) or slugify(name)
        existing = TaxonomyTerm.objects.filter(taxonomy=taxonomy, slug=clean).first() if clean else None
        if existing is not None:
            # A term of that slug exists (made by hand or by an import of another site): use it.
            term_id = existing.pk
        else:
            term = taxonomy_services.term_create(
                actor=state.system,
                taxonomy=taxonomy,
                label=name or unquote(slug),
                slug=clean or None,
                parent_id=parent_id,
                description=description,
            )
            term_id = term.pk
            state.counters["terms"] += 1
        state.put("term", source_id, target_id=term_id, target_type=taxonomy.name)
        state.terms[key] = term_id
        return term_id

    def of_item(self, item: ImportItem, collection: Collection) -> dict[Taxonomy, list[str]]:
        """The terms an item names, made where missing, by taxonomy (attached to the item's collection)."""
        if not self.state.options.get("includeTaxonomies", True):
            return {}
        wanted: dict[str, list[str]] = {}
        for ref in item.terms:
            if not is_content_taxonomy(ref.taxonomy):
                continue
            term_id = self.term(ref.taxonomy, ref.slug, ref.name)
            ids = wanted.setdefault(ref.taxonomy, [])
            if term_id not in ids:
                ids.append(term_id)
        return {self.taxonomy(wp_name, collection): term_ids for wp_name, term_ids in wanted.items()}
