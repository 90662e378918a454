"""``/_cms/api/content/…``, ``/revisions/…`` and ``/bylines/…``: entries and their lifecycle over REST (SPEC §4.2, §4.4).

Entries are addressed by id or by slug (in the default locale, or ``?locale=`` on GET). Writes answer
``{item, _rev}``; deletes answer ``{success: true}``.
"""

from __future__ import annotations

from apps.accounts.permissions import actor_from_request
from apps.content import overviews, selectors, services
from apps.content.inputs import (
    BylineIn,
    BylineListQuery,
    EntryCreateIn,
    EntryGetQuery,
    EntryListQuery,
    EntryPreviewQuery,
    EntryUpdateIn,
    MediaUsagesQuery,
    PageQuery,
    PortableTextFromHtmlIn,
    PublishIn,
    RevisionPageQuery,
    ScheduleIn,
)
from apps.content.models import Entry
from apps.content.presenters import (
    BylineOut,
    CompareOut,
    EntryOut,
    EntryWithRevOut,
    MediaUsagesOut,
    PortableTextOut,
    RevisionOut,
    RevisionPageOut,
    TranslationsOut,
    entry_freshness,
    page_freshness,
    present_byline,
    present_comparison,
    present_entry_page,
    present_entry_with_rev,
    present_media_usages,
    present_portable_text,
    present_revision,
    present_revision_page,
    present_translations,
)
from apps.core.api.views import CmsAPIView, CmsViewSet, endpoint, ok
from apps.core.httpcache import NOT_MODIFIED, public_answer, small_answer
from apps.core.presenters import SUCCESS, SuccessFlagOut
from apps.core.shapes import paged
from apps.delivery import selectors as delivery_selectors
from apps.delivery.links import links_resolved
from apps.schema import selectors as schema_selectors
from apps.taxonomy import selectors as taxonomy_selectors


def _collection(slug: str):
    return schema_selectors.collection_for_read(slug=slug)


def _readable(request, slug: str):
    """The collection a read names (an anonymous reader gets 401 for an unknown one, see ``collection_for_reader``)."""
    return selectors.collection_for_reader(actor=actor_from_request(request), slug=slug)


def _written(entry: Entry, status: int = 200):
    """The answer to a write: the entry as the service left it (no second read), with its new _rev."""
    return ok(present_entry_with_rev(selectors.entry_as_written(entry)), status=status)


def _field_list(text: str | None) -> list[str] | None:
    return None if text is None else [name.strip() for name in text.split(",") if name.strip()]


def _addressed(collection_slug: str, ref: str) -> dict:
    """What a write addresses: an id goes straight to the service, which checks it belongs to the collection under its
    row lock; a slug is looked up first."""
    collection = _collection(collection_slug)
    return {"entry": selectors.entry_address(collection=collection, ref=ref), "collection": collection}


def _linked(answer: dict, collection, resolve: bool) -> dict:
    """``?resolveLinks=true``: internal links in Portable Text with their targets' addresses (docs/delivery.md)."""
    return {**answer, "item": links_resolved([answer["item"]], collection)[0]} if resolve else answer


PREVIEW_HEADER = "HTTP_X_CMS_PREVIEW"


class EntryViewSet(CmsViewSet):
    def initialize_request(self, request, *args, **kwargs):
        request = super().initialize_request(request, *args, **kwargs)
        # A preview token (?preview= or the X-CMS-Preview header) makes the GET of one entry a preview read, whose
        # credential is the token itself (docs/delivery.md): another operation, decided before authentication.
        if self.action == "retrieve" and (
            "preview" in request.query_params or PREVIEW_HEADER in request.META
        ):
            self.action, self.get = "preview", self.preview
        return request

    @endpoint(
        "content.read",
        query=EntryListQuery,
        response=paged(EntryOut),
        bodiless=NOT_MODIFIED,
        error_code="CONTENT_LIST_ERROR",
        summary="List entries",
    )
    def list(self, request, collection: str):
        """Entries of the collection, newest first by default. Readers below contributor see published entries only;
        without a token, published entries of a public collection, with public caching headers (docs/delivery.md)."""
        target = _readable(request, collection)
        actor = actor_from_request(request)
        seen = selectors.entry_list(
            collection=target,
            actor=actor,
            where=taxonomy_selectors.entry_filter(collection=target, filters=self.query.get("terms")),
            status=self.query.get("status"),
            order_by=self.query["orderBy"],
            order=self.query["order"],
            locale=self.query.get("locale"),
            cursor=self.query.get("cursor"),
            limit=self.query["limit"],
            fields=_field_list(self.query.get("fields")),
        )
        if actor.anonymous:
            fresh = page_freshness(seen, query=self.query)
            return public_answer(request, fresh, lambda: present_entry_page(seen))
        return ok(present_entry_page(seen))

    @endpoint(
        "content.create",
        body=EntryCreateIn,
        response=EntryWithRevOut,
        status=201,
        errors=(409,),
        error_code="CONTENT_CREATE_ERROR",
        summary="Create an entry",
    )
    def create(self, request, collection: str):
        entry = services.entry_create(
            actor=actor_from_request(request),
            collection=_collection(collection),
            data=self.body["data"],
            slug=self.body.get("slug"),
            status=self.body["status"],
            locale=self.body.get("locale"),
            translation_of=self.body.get("translationOf"),
            bylines=self.body.get("bylines"),
        )
        return _written(entry, status=201)

    @endpoint(
        "content.read",
        query=EntryGetQuery,
        response=EntryWithRevOut,
        bodiless=NOT_MODIFIED,
        summary="Get an entry by id or slug",
    )
    def retrieve(self, request, collection: str, ref: str):
        """Without a token: a published entry of a public collection, with public caching headers; a conditional
        request whose copy is current is answered 304 (docs/delivery.md). With ``?preview=<token>`` or the header
        ``X-CMS-Preview: <token>`` (from ``POST …/preview``), the working copy of the entry the token was minted for,
        without any other credential (``private, no-store``: see ``preview``)."""
        actor = actor_from_request(request)
        seen = selectors.entry_read(
            actor=actor,
            collection=_readable(request, collection),
            ref=ref,
            locale=self.query.get("locale"),
        )
        resolve_links = self.query["resolveLinks"]
        if actor.anonymous:
            fresh = entry_freshness(seen, query=self.query)
            return public_answer(
                request, fresh, lambda: _linked(present_entry_with_rev(seen), seen.collection, resolve_links)
            )
        return ok(_linked(present_entry_with_rev(seen), seen.collection, resolve_links))

    @endpoint("content.preview_read", query=EntryPreviewQuery, response=EntryWithRevOut)
    def preview(self, request, collection: str, ref: str):
        """The working copy of one entry for whoever holds its preview token, with no other credential."""
        seen = delivery_selectors.entry_preview_read(
            token=self.query.get("preview") or request.META.get(PREVIEW_HEADER, ""),
            collection=_collection(collection),
            ref=ref,
            locale=self.query.get("locale"),
        )
        answer = _linked(present_entry_with_rev(seen), seen.collection, self.query["resolveLinks"])
        return ok(answer, headers={"Cache-Control": "private, no-store"})

    @endpoint(
        "content.update",
        body=EntryUpdateIn,
        response=EntryWithRevOut,
        errors=(409,),
        error_code="CONTENT_UPDATE_ERROR",
        summary="Update an entry",
    )
    def partial_update(self, request, collection: str, ref: str):
        entry = services.entry_update(
            actor=actor_from_request(request),
            **_addressed(collection, ref),
            data=self.body.get("data"),
            slug=self.body.get("slug"),
            status=self.body.get("status"),
            rev=self.body.get("_rev"),
            bylines=self.body.get("bylines"),
            published_at=self.body.get("publishedAt"),
        )
        return _written(entry)

    @endpoint(
        "content.update",
        body=EntryUpdateIn,
        response=EntryWithRevOut,
        errors=(409,),
        error_code="CONTENT_UPDATE_ERROR",
        summary="Update an entry (as PATCH)",
    )
    def update(self, request, collection: str, ref: str):
        return self.partial_update(request, collection, ref)

    @endpoint(
        "content.delete",
        response=SuccessFlagOut,
        error_code="CONTENT_DELETE_ERROR",
        summary="Move an entry to the trash",
    )
    def destroy(self, request, collection: str, ref: str):
        services.entry_trash(actor=actor_from_request(request), **_addressed(collection, ref))
        return ok(SUCCESS)

    @endpoint("content.publish", body=PublishIn, response=EntryWithRevOut, summary="Publish an entry")
    def publish(self, request, collection: str, ref: str):
        entry = services.entry_publish(
            actor=actor_from_request(request),
            **_addressed(collection, ref),
            published_at=self.body.get("publishedAt"),
        )
        return _written(entry)

    @endpoint("content.publish", response=EntryWithRevOut, summary="Unpublish an entry")
    def unpublish(self, request, collection: str, ref: str):
        return _written(
            services.entry_unpublish(actor=actor_from_request(request), **_addressed(collection, ref))
        )

    @endpoint("content.publish", body=ScheduleIn, response=EntryWithRevOut, summary="Schedule publication")
    def schedule(self, request, collection: str, ref: str):
        entry = services.entry_schedule(
            actor=actor_from_request(request),
            **_addressed(collection, ref),
            scheduled_at=self.body["scheduledAt"],
        )
        return _written(entry)

    @endpoint("content.publish", response=EntryWithRevOut, summary="Cancel a scheduled publication")
    def unschedule(self, request, collection: str, ref: str):
        return _written(
            services.entry_unschedule(actor=actor_from_request(request), **_addressed(collection, ref))
        )

    @endpoint("content.update", response=EntryWithRevOut, summary="Discard unpublished changes")
    def discard_draft(self, request, collection: str, ref: str):
        entry = services.entry_discard_draft(actor=actor_from_request(request), **_addressed(collection, ref))
        return _written(entry)

    @endpoint(
        "content.read_drafts", response=CompareOut, summary="Compare the published version and the draft"
    )
    def compare(self, request, collection: str, ref: str):
        comparison = selectors.entry_compare(
            actor=actor_from_request(request), collection=_collection(collection), ref=ref
        )
        return ok(present_comparison(comparison))

    @endpoint("content.read_drafts", query=PageQuery, response=paged(EntryOut), summary="List the trash")
    def trash(self, request, collection: str):
        seen = selectors.trash_list(
            actor=actor_from_request(request),
            collection=_collection(collection),
            cursor=self.query.get("cursor"),
            limit=self.query["limit"],
        )
        return ok(present_entry_page(seen))

    @endpoint(
        "content.delete", response=EntryWithRevOut, errors=(409,), summary="Restore an entry from the trash"
    )
    def restore(self, request, collection: str, ref: str):
        return _written(
            services.entry_restore(actor=actor_from_request(request), **_addressed(collection, ref))
        )

    @endpoint(
        "content.delete_permanent",
        response=SuccessFlagOut,
        error_code="CONTENT_DELETE_ERROR",
        summary="Delete an entry in the trash for good",
    )
    def permanent(self, request, collection: str, ref: str):
        services.entry_delete_permanently(actor=actor_from_request(request), **_addressed(collection, ref))
        return ok(SUCCESS)

    @endpoint(
        "content.create", response=EntryWithRevOut, status=201, summary="Duplicate an entry as a new draft"
    )
    def duplicate(self, request, collection: str, ref: str):
        source = selectors.entry_get(collection=_collection(collection), actor=None, ref=ref, for_update=True)
        return _written(services.entry_duplicate(actor=actor_from_request(request), entry=source), status=201)

    @endpoint(
        "content.read",
        response=TranslationsOut,
        bodiless=NOT_MODIFIED,
        summary="List an entry's translations",
    )
    def translations(self, request, collection: str, ref: str):
        actor = actor_from_request(request)
        group, seen = selectors.translations_read(
            actor=actor, collection=_readable(request, collection), ref=ref
        )
        keys = (f"collection:{collection}", *(f"entry:{entry.pk}" for entry in seen.items))
        return small_answer(request, present_translations(group, seen), public=actor.anonymous, keys=keys)

    @endpoint(
        "content.read_drafts",
        query=RevisionPageQuery,
        response=RevisionPageOut,
        summary="List an entry's revisions",
    )
    def revisions(self, request, collection: str, ref: str):
        """Newest first. Only collections that support revisions record them."""
        page, total = selectors.revision_list(
            actor=actor_from_request(request),
            collection=_collection(collection),
            ref=ref,
            cursor=self.query.get("cursor"),
            limit=self.query["limit"],
        )
        return ok(present_revision_page(page, total, collection_slug=collection))


class RevisionViewSet(CmsViewSet):
    @endpoint("content.read_drafts", response=RevisionOut, summary="Get a revision")
    def retrieve(self, request, pk: str):
        revision = selectors.revision_read(actor=actor_from_request(request), revision_id=pk)
        return ok(present_revision(revision, collection_slug=revision.collection.slug))

    @endpoint(
        "content.update",
        response=EntryWithRevOut,
        errors=(409,),
        summary="Restore a revision into the working copy",
    )
    def restore(self, request, pk: str):
        """The entry's working copy becomes the revision's data, recorded as a new revision. Nothing is published."""
        revision = selectors.revision_get(revision_id=pk)
        return _written(services.revision_restore(actor=actor_from_request(request), revision=revision))


class BylineViewSet(CmsViewSet):
    @endpoint("content.read", query=BylineListQuery, response=paged(BylineOut), summary="List bylines")
    def list(self, request):
        """By name; ``search`` matches names and slugs, ``kind`` keeps guests or bylines linked to a user."""
        page = selectors.byline_list(
            actor=actor_from_request(request),
            search=self.query.get("search"),
            kind=self.query.get("kind"),
            cursor=self.query.get("cursor"),
            limit=self.query["limit"],
        )
        return ok(page.to_data(present_byline))

    @endpoint("bylines.manage", body=BylineIn, response=BylineOut, status=201, summary="Create a byline")
    def create(self, request):
        byline = services.byline_create(
            actor=actor_from_request(request), **services.byline_values(self.body)
        )
        return ok(present_byline(byline), status=201)

    @endpoint("content.read", response=BylineOut, summary="Get a byline")
    def retrieve(self, request, pk: str):
        return ok(present_byline(selectors.byline_read(actor=actor_from_request(request), byline_id=pk)))

    @endpoint("bylines.manage", body=BylineIn, response=BylineOut, summary="Update a byline")
    def partial_update(self, request, pk: str):
        byline = services.byline_update(
            actor=actor_from_request(request),
            byline=selectors.byline_get(byline_id=pk),
            changes=services.byline_values(self.body),
        )
        return ok(present_byline(byline))

    @endpoint("bylines.manage", response=SuccessFlagOut, summary="Delete a byline")
    def destroy(self, request, pk: str):
        services.byline_delete(actor=actor_from_request(request), byline=selectors.byline_get(byline_id=pk))
        return ok(SUCCESS)


class MediaUsagesView(CmsAPIView):
    @endpoint(
        "media.usages",
        query=MediaUsagesQuery,
        response=MediaUsagesOut,
        summary="Entries that use a media item",
    )
    def get(self, request, pk: str):
        """The entries, live or trashed, whose image or file fields or Portable Text (image, gallery, cover, video,
        audio and file blocks) reference the media item, latest edited first: what deleting it would leave
        pointing at nothing. 404 for an unknown media item."""
        usages = overviews.media_usages(
            actor=actor_from_request(request), media_id=pk, limit=self.query["limit"]
        )
        return ok(present_media_usages(usages))


class PortableTextViewSet(CmsViewSet):
    @endpoint(
        "content.convert",
        body=PortableTextFromHtmlIn,
        response=PortableTextOut,
        summary="Convert pasted HTML to Portable Text",
    )
    def from_html(self, request):
        """What the studio's editor inserts when HTML is pasted (a web page, Google Docs, Word): headings, lists,
        links, bold, italic and the other marks are kept; classes, inline styles and empty paragraphs are dropped;
        tables, images and markup without a Portable Text equivalent become their own blocks. Nothing is stored."""
        blocks = services.portable_text_from_html(actor=actor_from_request(request), html=self.body["html"])
        return ok(present_portable_text(blocks))
