"""``/_cms/api/content/…``, ``/revisions/…`` and ``/bylines/…``: entries and their lifecycle over REST (SPEC §4.2, §4.4).

Entries are addressed by id or by slug (in the default locale, or ``?locale=`` on GET). Writes answer
``{item, _rev}``; deletes answer ``{success: true}``.
"""

from __future__ import annotations

from apps.accounts import selectors as account_selectors
from apps.accounts.permissions import actor_from_request
from apps.content import selectors, services
from apps.content.api.serializers import (
    BylineIn,
    BylineOut,
    BylineUpdateIn,
    CompareOut,
    EntryCreateIn,
    EntryGetQuery,
    EntryListQuery,
    EntryOut,
    EntryUpdateIn,
    EntryWithRevOut,
    PageQuery,
    PublishIn,
    RevisionOut,
    RevisionPageOut,
    ScheduleIn,
    TranslationsOut,
    present_byline,
    present_entries,
    present_revision,
)
from apps.content.models import Byline, Entry
from apps.core.api.serializers import paged
from apps.core.api.views import CmsViewSet, endpoint, ok
from apps.core.errors import NotFound, ValidationError
from apps.core.pagination import SortKey, keyset_page
from apps.core.presenters import SuccessFlagOut
from apps.schema import selectors as schema_selectors
from apps.taxonomy import selectors as taxonomy_selectors


class EntryViewSet(CmsViewSet):
    def _collection(self, slug: str):
        return schema_selectors.collection_for_read(slug=slug)

    def _present(self, entry: Entry, collection, *, drafts: bool = True) -> dict:
        return present_entries([entry], collection=collection, drafts=drafts)[0]

    def _written(self, entry: Entry, collection_slug: str, status: int = 200):
        """The answer to a write: the entry as the service left it (no second read), with its new _rev. The services
        leave the entry's collection (with its fields) on it."""
        selectors.attach_credits([entry])
        return ok({"item": self._present(entry, entry.collection), "_rev": entry.rev}, status=status)

    def _target(self, collection_slug: str, ref: str) -> Entry:
        """The entry a read-for-editing addresses (drafts and trash included)."""
        collection = self._collection(collection_slug)
        return selectors.entry_get(collection=collection, actor=None, ref=ref, for_update=True)

    def _addressed(self, collection_slug: str, ref: str) -> dict:
        """What a write addresses: an id goes straight to the service, which checks it belongs to the collection
        under its row lock; a slug is looked up first."""
        collection = self._collection(collection_slug)
        return {"entry": selectors.entry_address(collection=collection, ref=ref), "collection": collection}

    @endpoint(
        "content.read",
        query=EntryListQuery,
        response=paged(EntryOut),
        error_code="CONTENT_LIST_ERROR",
        summary="List entries",
    )
    def list(self, request, collection: str):
        """Entries of the collection, newest first by default. Readers below contributor see published entries only."""
        target = self._collection(collection)
        actor = actor_from_request(request)
        page = selectors.entry_list(
            collection=target,
            actor=actor,
            where=taxonomy_selectors.entry_filter(collection=target, filters=self.query.get("terms")),
            status=self.query.get("status"),
            order_by=self.query["orderBy"],
            order=self.query["order"],
            locale=self.query.get("locale"),
            cursor=self.query.get("cursor"),
            limit=self.query["limit"],
        )
        drafts = selectors.can_read_drafts(actor)
        items = present_entries(page.items, collection=target, drafts=drafts)
        return ok({"items": items, "nextCursor": page.next_cursor})

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
        target = self._collection(collection)
        entry = services.entry_create(
            actor=actor_from_request(request),
            collection=target,
            data=self.body["data"],
            slug=self.body.get("slug"),
            status=self.body["status"],
            locale=self.body.get("locale"),
            translation_of=self.body.get("translationOf"),
            bylines=self.body.get("bylines"),
        )
        return self._written(entry, collection, status=201)

    @endpoint(
        "content.read", query=EntryGetQuery, response=EntryWithRevOut, summary="Get an entry by id or slug"
    )
    def retrieve(self, request, collection: str, ref: str):
        target = self._collection(collection)
        actor = actor_from_request(request)
        drafts = selectors.can_read_drafts(actor)
        # Metadata (import bookkeeping, commenters' addresses, _importError) is for readers who may edit.
        entry = selectors.entry_get(
            collection=target, actor=actor, ref=ref, locale=self.query.get("locale"), with_meta=drafts
        )
        item = present_entries([entry], collection=target, drafts=drafts, meta=drafts)[0]
        return ok({"item": item, "_rev": entry.rev})

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
            **self._addressed(collection, ref),
            data=self.body.get("data"),
            slug=self.body.get("slug"),
            status=self.body.get("status"),
            rev=self.body.get("_rev"),
            bylines=self.body.get("bylines"),
        )
        return self._written(entry, collection)

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
        services.entry_trash(actor=actor_from_request(request), **self._addressed(collection, ref))
        return ok({"success": True})

    @endpoint("content.publish", body=PublishIn, response=EntryWithRevOut, summary="Publish an entry")
    def publish(self, request, collection: str, ref: str):
        entry = services.entry_publish(
            actor=actor_from_request(request),
            **self._addressed(collection, ref),
            published_at=self.body.get("publishedAt"),
        )
        return self._written(entry, collection)

    @endpoint("content.publish", response=EntryWithRevOut, summary="Unpublish an entry")
    def unpublish(self, request, collection: str, ref: str):
        entry = services.entry_unpublish(
            actor=actor_from_request(request), **self._addressed(collection, ref)
        )
        return self._written(entry, collection)

    @endpoint("content.publish", body=ScheduleIn, response=EntryWithRevOut, summary="Schedule publication")
    def schedule(self, request, collection: str, ref: str):
        entry = services.entry_schedule(
            actor=actor_from_request(request),
            **self._addressed(collection, ref),
            scheduled_at=self.body["scheduledAt"],
        )
        return self._written(entry, collection)

    @endpoint("content.publish", response=EntryWithRevOut, summary="Cancel a scheduled publication")
    def unschedule(self, request, collection: str, ref: str):
        entry = services.entry_unschedule(
            actor=actor_from_request(request), **self._addressed(collection, ref)
        )
        return self._written(entry, collection)

    @endpoint("content.update", response=EntryWithRevOut, summary="Discard unpublished changes")
    def discard_draft(self, request, collection: str, ref: str):
        entry = services.entry_discard_draft(
            actor=actor_from_request(request), **self._addressed(collection, ref)
        )
        return self._written(entry, collection)

    @endpoint(
        "content.read_drafts", response=CompareOut, summary="Compare the published version and the draft"
    )
    def compare(self, request, collection: str, ref: str):
        return ok(selectors.entry_compare(entry=self._target(collection, ref)))

    @endpoint("content.read_drafts", query=PageQuery, response=paged(EntryOut), summary="List the trash")
    def trash(self, request, collection: str):
        target = self._collection(collection)
        page = selectors.trash_list(
            collection=target, cursor=self.query.get("cursor"), limit=self.query["limit"]
        )
        return ok(
            {
                "items": present_entries(page.items, collection=target, drafts=True),
                "nextCursor": page.next_cursor,
            }
        )

    @endpoint(
        "content.delete", response=EntryWithRevOut, errors=(409,), summary="Restore an entry from the trash"
    )
    def restore(self, request, collection: str, ref: str):
        entry = services.entry_restore(actor=actor_from_request(request), **self._addressed(collection, ref))
        return self._written(entry, collection)

    @endpoint(
        "content.delete_permanent",
        response=SuccessFlagOut,
        error_code="CONTENT_DELETE_ERROR",
        summary="Delete an entry in the trash for good",
    )
    def permanent(self, request, collection: str, ref: str):
        services.entry_delete_permanently(
            actor=actor_from_request(request), **self._addressed(collection, ref)
        )
        return ok({"success": True})

    @endpoint(
        "content.create", response=EntryWithRevOut, status=201, summary="Duplicate an entry as a new draft"
    )
    def duplicate(self, request, collection: str, ref: str):
        copy = services.entry_duplicate(
            actor=actor_from_request(request), entry=self._target(collection, ref)
        )
        return self._written(copy, collection, status=201)

    @endpoint("content.read", response=TranslationsOut, summary="List an entry's translations")
    def translations(self, request, collection: str, ref: str):
        target = self._collection(collection)
        actor = actor_from_request(request)
        entry = selectors.entry_get(collection=target, actor=actor, ref=ref)
        drafts = selectors.can_read_drafts(actor)
        siblings = selectors.visible_translations(entry=entry, actor=actor)
        return ok(
            {
                "translationGroup": entry.translation_group,
                "items": present_entries(siblings, collection=target, drafts=drafts),
            }
        )

    @endpoint(
        "content.read_drafts", query=PageQuery, response=RevisionPageOut, summary="List an entry's revisions"
    )
    def revisions(self, request, collection: str, ref: str):
        """Newest first. Only collections that support revisions record them."""
        entry = self._target(collection, ref)
        page, total = selectors.revision_list(
            entry=entry, cursor=self.query.get("cursor"), limit=self.query["limit"]
        )
        return ok(
            {
                **page.to_data(lambda revision: present_revision(revision, collection_slug=collection)),
                "total": total,
            }
        )


class RevisionViewSet(CmsViewSet):
    @endpoint("content.read_drafts", response=RevisionOut, summary="Get a revision")
    def retrieve(self, request, pk: str):
        revision = selectors.revision_get(revision_id=pk)
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
        entry = services.revision_restore(actor=actor_from_request(request), revision=revision)
        selectors.attach_credits([entry])
        item = present_entries([entry], collection=entry.collection, drafts=True)[0]
        return ok({"item": item, "_rev": entry.rev})


class BylineViewSet(CmsViewSet):
    def _user(self, user_id):
        if not user_id:
            return None
        try:
            return account_selectors.user_get(user_id=user_id)
        except NotFound as exc:
            raise ValidationError(details={"userId": exc.message}) from exc

    def _get(self, pk: str) -> Byline:
        byline = Byline.objects.filter(pk=pk).first()
        if byline is None:
            raise NotFound(f"No byline {pk}.")
        return byline

    @endpoint("content.read", query=PageQuery, response=paged(BylineOut), summary="List bylines")
    def list(self, request):
        keys = [SortKey("display_name"), SortKey("id")]
        page = keyset_page(
            Byline.objects.all(),
            keys=keys,
            cursor=self.query.get("cursor"),
            limit=self.query["limit"],
            scope="bylines",
        )
        return ok(page.to_data(present_byline))

    @endpoint("bylines.manage", body=BylineIn, response=BylineOut, status=201, summary="Create a byline")
    def create(self, request):
        byline = services.byline_create(
            actor=actor_from_request(request),
            display_name=self.body["displayName"],
            user=self._user(self.body.get("userId")),
            is_guest=self.body.get("isGuest"),
            bio=self.body.get("bio", ""),
            email=self.body.get("email", ""),
        )
        return ok(present_byline(byline), status=201)

    @endpoint("content.read", response=BylineOut, summary="Get a byline")
    def retrieve(self, request, pk: str):
        return ok(present_byline(self._get(pk)))

    @endpoint("bylines.manage", body=BylineUpdateIn, response=BylineOut, summary="Update a byline")
    def partial_update(self, request, pk: str):
        changes = {}
        mapping = {"displayName": "display_name", "isGuest": "is_guest", "bio": "bio", "email": "email"}
        for wire, name in mapping.items():
            if wire in self.body:
                changes[name] = self.body[wire]
        if "userId" in self.body:
            changes["user"] = self._user(self.body["userId"])
        byline = services.byline_update(
            actor=actor_from_request(request), byline=self._get(pk), changes=changes
        )
        return ok(present_byline(byline))

    @endpoint("bylines.manage", response=SuccessFlagOut, summary="Delete a byline")
    def destroy(self, request, pk: str):
        services.byline_delete(actor=actor_from_request(request), byline=self._get(pk))
        return ok({"success": True})
