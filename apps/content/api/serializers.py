"""Entry shapes on the wire (SPEC §2.1, §4.2, §4.4), their presenters and OpenAPI documentation.

Entries are presented a page at a time (``present_entries``) so that what they refer to is loaded once per page, not
once per entry: the media items named by ``image`` and ``file`` fields (one query) and the entries' terms grouped by
taxonomy (one query, none when no taxonomy applies to the collection). Stored JSON is spliced into answers unparsed
unless the collection has image or file fields, whose values must be resolved.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import orjson
from rest_framework import serializers

from apps.content.models import Byline, Entry, Revision, Status
from apps.core.api.serializers import DeepObjectField, cursor_field, limit_field
from apps.core.timefmt import iso
from apps.media import selectors as media_selectors
from apps.media.presenters import present_file_ref, present_image_ref
from apps.schema.models import Collection
from apps.taxonomy import selectors as taxonomy_selectors
from apps.taxonomy.api.serializers import TermRefOut

MEDIA_FIELD_TYPES = ("image", "file")

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
    terms = DeepObjectField(
        required=False,
        help_text="Entries with given terms: terms[category]=news,sport keeps entries in news or sport (or a "
        "descendant of either); several taxonomies must all match.",
    )


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
    terms = serializers.DictField(
        child=serializers.ListField(child=TermRefOut()),
        required=False,
        help_text="The entry's terms by taxonomy name; present when taxonomies apply to the collection.",
    )
    meta = serializers.DictField(
        required=False,
        help_text="The entry's metadata, read-only (no write takes it): what an import kept of the source (meta.import: source, "
        "sourceId, originalStatus, parentId, menuOrder, sticky, commentStatus, passwordProtected, customFields, "
        "comments …) and, for an item that could not be imported faithfully, meta._importError {message, content, "
        "excerpt}. Only in single-entry reads (GET one) by readers with drafts access; never in lists.",
    )


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


def _parsed_json(entry: Entry, raw_name: str, field_name: str):
    raw = getattr(entry, raw_name, _MISSING)
    if raw is _MISSING:
        return getattr(entry, field_name)
    return None if raw is None else orjson.loads(raw)


@dataclass
class EntryExtras:
    """What a page of entries refers to, loaded in bulk: media items for image/file fields, terms by taxonomy."""

    media_fields: dict[str, str] = field(default_factory=dict)
    media: dict = field(default_factory=dict)
    terms: dict[str, dict[str, list[dict]]] | None = None
    # Parsed data of entries with media fields: (entry id, column) → dict.
    parsed: dict[tuple[str, str], dict | None] = field(default_factory=dict)

    def values(self, entry: Entry, column: str):
        """The column's values for the answer: spliced unparsed, or parsed with media references resolved."""
        raw_name = "data_raw" if column == "data" else "live_raw"
        if not self.media_fields:
            return _stored_json(entry, raw_name, column)
        values = self.parsed.get((entry.pk, column))
        if not isinstance(values, dict):
            return values
        resolved = dict(values)
        for slug, kind in self.media_fields.items():
            value = values.get(slug)
            item = self.media.get(value.get("id")) if isinstance(value, dict) else None
            if item is not None:
                resolved[slug] = (
                    present_image_ref(item, value) if kind == "image" else present_file_ref(item, value)
                )
        return resolved


def load_extras(entries: Sequence[Entry], *, collection: Collection, drafts: bool) -> EntryExtras:
    extras = EntryExtras(
        media_fields={f.slug: f.type for f in collection.fields.all() if f.type in MEDIA_FIELD_TYPES}
    )
    if extras.media_fields:
        wanted: set[str] = set()
        for entry in entries:
            for column, raw_name in (("data", "data_raw"), ("live_data", "live_raw")):
                if column == "data" and not drafts:
                    continue
                values = _parsed_json(entry, raw_name, column)
                extras.parsed[(entry.pk, column)] = values
                for slug in extras.media_fields:
                    value = values.get(slug) if isinstance(values, dict) else None
                    if isinstance(value, dict) and isinstance(value.get("id"), str):
                        wanted.add(value["id"])
        extras.media = media_selectors.media_by_ids(wanted)
    extras.terms = taxonomy_selectors.terms_for_entries(
        collection=collection, entry_ids=[entry.pk for entry in entries]
    )
    return extras


def present_entries(
    entries: Sequence[Entry], *, collection: Collection, drafts: bool, meta: bool = False
) -> list[dict]:
    """Present a page of entries of ``collection`` with a constant number of queries, whatever the page size.
    ``meta`` adds each entry's metadata (entries read with ``entry_get(with_meta=True)``)."""
    extras = load_extras(entries, collection=collection, drafts=drafts)
    return [
        present_entry(entry, collection_slug=collection.slug, drafts=drafts, extras=extras, meta=meta)
        for entry in entries
    ]


def present_entry(
    entry: Entry,
    *,
    collection_slug: str,
    drafts: bool,
    extras: EntryExtras | None = None,
    meta: bool = False,
) -> dict:
    """One entry; ``extras`` (from ``load_extras``) resolves media references and adds terms. Without it, stored
    values are shown as they are and terms are left out: use ``present_entries`` for answers."""
    if extras is None:
        live = _stored_json(entry, "live_raw", "live_data")
        data = _stored_json(entry, "data_raw", "data") if drafts else live
    else:
        live = extras.values(entry, "live_data")
        data = extras.values(entry, "data") if drafts else live
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
    if extras is not None and extras.terms is not None:
        item["terms"] = extras.terms.get(entry.pk, {})
    if meta:
        item["meta"] = _stored_json(entry, "meta_raw", "meta") or {}
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
