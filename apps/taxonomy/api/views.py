"""``/_cms/api/taxonomies…`` and ``/_cms/api/content/:collection/:id/terms/:taxonomy`` (SPEC §4.2, §4.8)."""

from __future__ import annotations

from apps.accounts.permissions import actor_from_request
from apps.content import selectors as content_selectors
from apps.core.api.views import CmsViewSet, endpoint, ok
from apps.core.httpcache import NOT_MODIFIED, small_answer
from apps.core.presenters import SUCCESS, SuccessFlagOut
from apps.schema import selectors as schema_selectors
from apps.taxonomy import selectors, services
from apps.taxonomy.inputs import (
    EntryTermsIn,
    TaxonomyCreateIn,
    TaxonomyUpdateIn,
    TermIn,
    TermListQuery,
    TermUpdateIn,
    to_model_names,
)
from apps.taxonomy.presenters import (
    TaxonomyListOut,
    TaxonomyOut,
    TermCountedOut,
    TermListOut,
    TermOut,
    TermPageOut,
    present_counted_term,
    present_taxonomies,
    present_taxonomy,
    present_term,
    present_term_listing,
    present_terms,
)


class TaxonomyViewSet(CmsViewSet):
    @endpoint("taxonomies.read", bodiless=NOT_MODIFIED, response=TaxonomyListOut, summary="List taxonomies")
    def list(self, request):
        actor = actor_from_request(request)
        taxonomies = present_taxonomies(selectors.taxonomy_list(actor=actor))
        return small_answer(request, taxonomies, public=actor.anonymous, keys=("taxonomies",))

    @endpoint(
        "taxonomies.write",
        body=TaxonomyCreateIn,
        response=TaxonomyOut,
        status=201,
        errors=(409,),
        summary="Create a taxonomy",
    )
    def create(self, request):
        taxonomy = services.taxonomy_create(actor=actor_from_request(request), **to_model_names(self.body))
        return ok(present_taxonomy(selectors.taxonomy_get(name=taxonomy.name)), status=201)

    @endpoint("taxonomies.read", bodiless=NOT_MODIFIED, response=TaxonomyOut, summary="Get a taxonomy")
    def retrieve(self, request, name: str):
        actor = actor_from_request(request)
        taxonomy = present_taxonomy(selectors.taxonomy_read(actor=actor, name=name))
        return small_answer(
            request, taxonomy, public=actor.anonymous, keys=("taxonomies", f"taxonomy:{name}")
        )

    @endpoint("taxonomies.write", body=TaxonomyUpdateIn, response=TaxonomyOut, summary="Update a taxonomy")
    def update(self, request, name: str):
        services.taxonomy_update(
            actor=actor_from_request(request),
            taxonomy=selectors.taxonomy_get(name=name),
            changes=to_model_names(self.body),
        )
        return ok(present_taxonomy(selectors.taxonomy_get(name=name)))

    @endpoint(
        "taxonomies.write", body=TaxonomyUpdateIn, response=TaxonomyOut, summary="Update a taxonomy (as PUT)"
    )
    def partial_update(self, request, name: str):
        return self.update(request, name)

    @endpoint("taxonomies.write", response=SuccessFlagOut, summary="Delete a taxonomy and its terms")
    def destroy(self, request, name: str):
        services.taxonomy_delete(
            actor=actor_from_request(request), taxonomy=selectors.taxonomy_get(name=name)
        )
        return ok(SUCCESS)


class TermViewSet(CmsViewSet):
    @endpoint(
        "taxonomies.read",
        bodiless=NOT_MODIFIED,
        query=TermListQuery,
        response=TermPageOut,
        summary="List a taxonomy's terms",
    )
    def list(self, request, name: str):
        """Ordered by slug. Hierarchical taxonomies: ``tree=true`` nests each term's descendants under it as
        ``children`` (pages then count top-level terms), or page through one level with ``parentId`` (empty for the
        roots). ``count``: the entries carrying each term."""
        actor = actor_from_request(request)
        listing = selectors.term_listing(
            actor=actor,
            taxonomy=name,
            parent_id=self.query.get("parentId"),
            cursor=self.query.get("cursor"),
            limit=self.query["limit"],
            tree=self.query["tree"],
        )
        terms = present_term_listing(listing, taxonomy_name=name)
        return small_answer(request, terms, public=actor.anonymous, keys=("taxonomies", f"taxonomy:{name}"))

    @endpoint(
        "terms.create", body=TermIn, response=TermOut, status=201, errors=(409,), summary="Create a term"
    )
    def create(self, request, name: str):
        term = services.term_create(
            actor=actor_from_request(request),
            taxonomy=selectors.taxonomy_get(name=name),
            label=self.body["label"],
            slug=self.body.get("slug"),
            parent_id=self.body.get("parentId"),
            description=self.body.get("description", ""),
        )
        return ok(present_term(term, taxonomy_name=name), status=201)

    @endpoint("taxonomies.read", bodiless=NOT_MODIFIED, response=TermCountedOut, summary="Get a term")
    def retrieve(self, request, name: str, slug: str):
        actor = actor_from_request(request)
        term = selectors.term_read(actor=actor, taxonomy=name, slug=slug)
        counts = selectors.term_counts(actor=actor, taxonomy=term.taxonomy, term_ids=[term.pk])
        counted = present_counted_term(term, taxonomy_name=name, counts=counts)
        return small_answer(request, counted, public=actor.anonymous, keys=("taxonomies", f"taxonomy:{name}"))

    @endpoint("terms.manage", body=TermUpdateIn, response=TermOut, errors=(409,), summary="Update a term")
    def update(self, request, name: str, slug: str):
        term = services.term_update(
            actor=actor_from_request(request),
            term=selectors.term_get(taxonomy=selectors.taxonomy_get(name=name), slug=slug),
            changes=to_model_names(self.body),
        )
        return ok(present_term(term, taxonomy_name=name))

    @endpoint(
        "terms.manage", body=TermUpdateIn, response=TermOut, errors=(409,), summary="Update a term (as PUT)"
    )
    def partial_update(self, request, name: str, slug: str):
        return self.update(request, name, slug)

    @endpoint("terms.manage", response=SuccessFlagOut, summary="Delete a term")
    def destroy(self, request, name: str, slug: str):
        """Entries lose the term; its children move up to its parent."""
        services.term_delete(
            actor=actor_from_request(request),
            term=selectors.term_get(taxonomy=selectors.taxonomy_get(name=name), slug=slug),
        )
        return ok(SUCCESS)


class EntryTermsViewSet(CmsViewSet):
    def _entry(self, request, collection: str, ref: str, *, for_update: bool):
        target = schema_selectors.collection_for_read(slug=collection)
        actor = None if for_update else actor_from_request(request)
        return content_selectors.entry_get(collection=target, actor=actor, ref=ref, for_update=for_update)

    @endpoint("content.read", response=TermListOut, summary="List an entry's terms of a taxonomy")
    def list(self, request, collection: str, ref: str, taxonomy: str):
        entry = self._entry(request, collection, ref, for_update=False)
        terms = selectors.entry_terms(actor=actor_from_request(request), entry=entry, taxonomy=taxonomy)
        return ok(present_terms(terms, taxonomy_name=taxonomy))

    @endpoint(
        "content.update",
        body=EntryTermsIn,
        response=TermListOut,
        summary="Set an entry's terms of a taxonomy",
    )
    def create(self, request, collection: str, ref: str, taxonomy: str):
        """Replaces the entry's terms of this taxonomy. Refused when the taxonomy does not apply to the collection or
        a term belongs to another taxonomy."""
        terms = services.entry_terms_set(
            actor=actor_from_request(request),
            entry=self._entry(request, collection, ref, for_update=True),
            taxonomy=selectors.taxonomy_get(name=taxonomy),
            term_ids=self.body["termIds"],
        )
        return ok(present_terms(terms, taxonomy_name=taxonomy))
