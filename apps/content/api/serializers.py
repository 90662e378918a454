"""Entry shapes on the wire (SPEC §2.1, §4.2, §4.4), their presenters and OpenAPI documentation."""

from __future__ import annotations

import orjson
from rest_framework import serializers

from apps.content.models import Byline, Entry, Revision, Status
from apps.core.api.serializers import cursor_field, limit_field
from apps.core.timefmt import iso

# --- input -----------------------------------------------------------------------------------------------------------


class CreditIn(serializers.Serializer):
    bylineId = serializers.CharField(max_length=26)
    roleLabel = serializers.CharField(max_length=100, required=False, allow_blank=True)


class EntryListQuery(serializers.Serializer):
    cursor = cursor_field()
    limit = limit_field(default=50)
    status = serializers.ChoiceField(choices=Status.values, required=False)
    orderBy = serializers.CharField(
        required=False,
        default="createdAt",
        max_length=64,
        help_text="createdAt, updatedAt, publishedAt, slug, or a sortable field of the collection.",
    )
    order = serializers.ChoiceField(choices=["asc", "desc"], required=False, default="desc")
    locale = serializers.CharField(required=False, max_length=16)


class EntryGetQuery(serializers.Serializer):
    locale = serializers.CharField(
        required=False, max_length=16, help_text="The locale of a slug lookup; ids are unique across locales."
    )


class EntryCreateIn(serializers.Serializer):
    data = serializers.DictField(help_text="Field values keyed by field slug.")
    slug = serializers.CharField(
        required=False, max_length=200, help_text="Generated from the title when omitted."
    )
    status = serializers.ChoiceField(choices=["draft", "published"], required=False, default="draft")
    locale = serializers.CharField(required=False, max_length=16)
    translationOf = serializers.CharField(
        required=False, max_length=26, help_text="Id of the entry this translates."
    )
    bylines = CreditIn(
        many=True, required=False, help_text="Ordered credits; the first is the primary byline."
    )


class EntryUpdateIn(serializers.Serializer):
    """PATCH and PUT both change only what is sent; fields not in ``data`` keep their values (null clears one)."""

    data = serializers.DictField(required=False)
    slug = serializers.CharField(required=False, max_length=200)
    status = serializers.ChoiceField(choices=["draft", "published"], required=False)
    _rev = serializers.CharField(
        required=False, max_length=64, help_text="The _rev you read; stale → 409 CONFLICT."
    )
    bylines = CreditIn(many=True, required=False)


class PublishIn(serializers.Serializer):
    publishedAt = serializers.DateTimeField(
        required=False, help_text="Backdate the publication (not in the future)."
    )


class ScheduleIn(serializers.Serializer):
    scheduledAt = serializers.DateTimeField(help_text="When to publish; must be in the future.")


class PageQuery(serializers.Serializer):
    cursor = cursor_field()
    limit = limit_field(default=50)


class BylineIn(serializers.Serializer):
    displayName = serializers.CharField(max_length=200, allow_blank=True)
    userId = serializers.CharField(required=False, allow_null=True, max_length=26)
    isGuest = serializers.BooleanField(required=False)
    bio = serializers.CharField(required=False, allow_blank=True)
    email = serializers.EmailField(required=False, allow_blank=True)


class BylineUpdateIn(BylineIn):
    displayName = serializers.CharField(max_length=200, allow_blank=True, required=False)


# --- output ----------------------------------------------------------------------------------------------------------


class CreditOut(serializers.Serializer):
    bylineId = serializers.CharField()
    displayName = serializers.CharField()
    roleLabel = serializers.CharField(allow_blank=True)
    userId = serializers.CharField(allow_null=True)
    isGuest = serializers.BooleanField()


class EntryOut(serializers.Serializer):
    id = serializers.CharField()
    type = serializers.CharField(help_text="The collection's slug.")
    slug = serializers.CharField()
    status = serializers.ChoiceField(choices=Status.values)
    locale = serializers.CharField()
    translationGroup = serializers.CharField()
    data = serializers.DictField(
        help_text="Field values: the working copy, or the published version for readers "
        "without drafts access."
    )
    liveData = serializers.DictField(
        required=False, help_text="The published version, present when it differs from data."
    )
    authorId = serializers.CharField(allow_null=True)
    primaryBylineId = serializers.CharField(allow_null=True)
    bylines = CreditOut(many=True)
    createdAt = serializers.DateTimeField()
    updatedAt = serializers.DateTimeField()
    publishedAt = serializers.DateTimeField(allow_null=True)
    scheduledAt = serializers.DateTimeField(allow_null=True)
    deletedAt = serializers.DateTimeField(allow_null=True)
    version = serializers.IntegerField()


class EntryWithRevOut(serializers.Serializer):
    item = EntryOut()
    _rev = serializers.CharField(help_text="Send it back with an update to detect conflicting writes.")


class CompareOut(serializers.Serializer):
    hasChanges = serializers.BooleanField()
    live = serializers.DictField(allow_null=True, help_text="The published version; null if never published.")
    draft = serializers.DictField(help_text="The working copy.")


class TranslationsOut(serializers.Serializer):
    translationGroup = serializers.CharField()
    items = EntryOut(many=True)


class RevisionOut(serializers.Serializer):
    id = serializers.CharField()
    collection = serializers.CharField()
    entryId = serializers.CharField()
    data = serializers.DictField()
    action = serializers.CharField(help_text="What produced it: create, update, publish, restore, …")
    status = serializers.CharField(help_text="The entry's status after that write.")
    authorId = serializers.CharField(allow_null=True)
    createdAt = serializers.DateTimeField()


class RevisionPageOut(serializers.Serializer):
    items = RevisionOut(many=True)
    nextCursor = serializers.CharField(allow_null=True)
    total = serializers.IntegerField()


class BylineOut(serializers.Serializer):
    id = serializers.CharField()
    displayName = serializers.CharField()
    slug = serializers.CharField()
    userId = serializers.CharField(allow_null=True)
    isGuest = serializers.BooleanField()
    bio = serializers.CharField(allow_blank=True)
    email = serializers.CharField(allow_blank=True)
    createdAt = serializers.DateTimeField()
    updatedAt = serializers.DateTimeField()


def _stored_json(entry: Entry, raw_name: str, field_name: str):
    """A stored JSON column for the answer: its raw text spliced in unparsed when the selector read it as text."""
    raw = getattr(entry, raw_name, _MISSING)
    if raw is _MISSING:
        return getattr(entry, field_name)
    return None if raw is None else orjson.Fragment(raw)


_MISSING = object()


def present_entry(entry: Entry, *, collection_slug: str, drafts: bool) -> dict:
    live = _stored_json(entry, "live_raw", "live_data")
    data = _stored_json(entry, "data_raw", "data") if drafts else live
    credits = entry.credit_list if hasattr(entry, "credit_list") else entry.credits.select_related("byline")
    item = {
        "id": entry.pk,
        "type": collection_slug,
        "slug": entry.slug,
        "status": entry.status,
        "locale": entry.locale,
        "translationGroup": entry.translation_group,
        "data": data if data is not None else {},
        "authorId": entry.author_id,
        "primaryBylineId": entry.primary_byline_id,
        "bylines": [
            {
                "bylineId": credit.byline_id,
                "displayName": credit.byline.display_name,
                "roleLabel": credit.role_label,
                "userId": credit.byline.user_id,
                "isGuest": credit.byline.is_guest,
            }
            for credit in credits
        ],
        "createdAt": iso(entry.created_at),
        "updatedAt": iso(entry.updated_at),
        "publishedAt": iso(entry.published_at),
        "scheduledAt": iso(entry.scheduled_at),
        "deletedAt": iso(entry.deleted_at),
        "version": entry.version,
    }
    if drafts and live is not None:
        differs = (
            entry.live_raw != entry.data_raw if hasattr(entry, "live_raw") else entry.live_data != entry.data
        )
        if differs:
            item["liveData"] = live
    return item


def present_revision(revision: Revision, *, collection_slug: str) -> dict:
    return {
        "id": revision.pk,
        "collection": collection_slug,
        "entryId": revision.entry_id,
        "data": revision.data,
        "action": revision.action,
        "status": revision.status,
        "authorId": revision.author_id,
        "createdAt": iso(revision.created_at),
    }


def present_byline(byline: Byline) -> dict:
    return {
        "id": byline.pk,
        "displayName": byline.display_name,
        "slug": byline.slug,
        "userId": byline.user_id,
        "isGuest": byline.is_guest,
        "bio": byline.bio,
        "email": byline.email,
        "createdAt": iso(byline.created_at),
        "updatedAt": iso(byline.updated_at),
    }
