"""Entries, revisions and bylines as every face shows them (SPEC §2.1, §4.2, §4.4): each shape once, with the function
that builds it.

Entries are presented a page at a time (``present_entries``) so that what they refer to is loaded once per page, not
once per entry: the media items named by ``image`` and ``file`` fields (one query) and the entries' terms grouped by
taxonomy (one query, none when no taxonomy applies to the collection). Stored JSON is spliced into answers unparsed
(an ``orjson.Fragment`` where the shapes say object, see ``RAW_JSON`` in selectors.py), except the data that holds
a value in one of the collection's image or file fields, which is parsed so that the value can be resolved. Rows
that say whether they hold one (``data_media``/``live_media``, see ``media_held`` in selectors.py) are parsed only
when they do; entries read without that knowledge are parsed whenever the collection has such fields.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, NotRequired

import orjson
from pydantic import Field, RootModel

from apps.content.companions import companion_texts
from apps.content.models import Byline, Entry, Revision, Status
from apps.content.overviews import MediaUsages
from apps.content.selectors import Comparison, Entries
from apps.core.httpcache import Freshness, strong_etag
from apps.core.pagination import Page
from apps.core.portabletext_markdown import portable_text_to_markdown
from apps.core.shapes import Timestamp, TypedDict
from apps.core.timefmt import iso
from apps.media import selectors as media_selectors
from apps.media.presenters import present_file_ref, present_image_ref
from apps.schema.addresses import entry_path
from apps.schema.models import Collection
from apps.schema.selectors import current_schema_token
from apps.taxonomy import selectors as taxonomy_selectors
from apps.taxonomy.presenters import TermRefOut

MEDIA_FIELD_TYPES = ("image", "file")

StatusName = Literal[tuple(Status.values)]  # type: ignore[valid-type]
# Stored JSON: at run time often the column's text spliced in unparsed (an orjson.Fragment), on the wire an object.
JsonObject = dict[str, Any]


class PortableTextOut(RootModel[list[JsonObject]]):
    """Portable Text as a portableText field takes it: a list of blocks {_type, _key, …} (see the field type)."""


def present_portable_text(blocks: list[dict]) -> PortableTextOut:
    """Converted rich text (pasted HTML) exactly as a portableText field would store it."""
    return blocks


class CreditOut(TypedDict):
    bylineId: str
    displayName: str
    roleLabel: str
    userId: str | None
    isGuest: bool


class EntryOut(TypedDict):
    id: str
    type: Annotated[str, Field(description="The collection's slug.")]
    slug: str
    status: StatusName
    locale: str
    translationGroup: str
    data: Annotated[
        JsonObject,
        Field(
            description="Field values: the working copy, or the published version for readers without drafts access."
        ),
    ]
    liveData: NotRequired[
        Annotated[JsonObject, Field(description="The published version, present when it differs from data.")]
    ]
    authorId: str | None
    primaryBylineId: str | None
    bylines: list[CreditOut]
    createdAt: Timestamp
    updatedAt: Timestamp
    publishedAt: Timestamp | None
    scheduledAt: Timestamp | None
    deletedAt: Timestamp | None
    version: int
    url: NotRequired[
        Annotated[
            str,
            Field(
                description="The entry's path on the front end (the collection's urlPattern filled in); present when "
                "the collection has a URL pattern."
            ),
        ]
    ]
    terms: NotRequired[
        Annotated[
            dict[str, list[TermRefOut]],
            Field(
                description="The entry's terms by taxonomy name; present when taxonomies apply to the collection."
            ),
        ]
    ]
    meta: NotRequired[
        Annotated[
            JsonObject,
            Field(
                description="The entry's metadata, read-only (no write takes it): what an import kept of the source "
                "(meta.import: source, sourceId, originalStatus, parentId, menuOrder, sticky, commentStatus, "
                "passwordProtected, customFields, comments …) and, for an item that could not be imported "
                "faithfully, meta._importError {message, content, excerpt}. Only in single-entry reads (GET one) "
                "by readers with drafts access; never in lists."
            ),
        ]
    ]


class EntryWithRevOut(TypedDict):
    item: EntryOut
    _rev: Annotated[str, Field(description="Send it back with an update to detect conflicting writes.")]


class CompactEntryOut(TypedDict):
    """An entry in a compact list: what tells entries apart and what to address them by."""

    id: str
    slug: str
    status: StatusName
    locale: str
    data: Annotated[
        JsonObject,
        Field(
            description="The title field and the portableText fields (as Markdown, cut), or the fields asked for."
        ),
    ]
    updatedAt: Timestamp
    publishedAt: Timestamp | None
    scheduledAt: NotRequired[
        Annotated[Timestamp, Field(description="Present when a publication is planned.")]
    ]
    bylines: Annotated[list[str], Field(description="The display names of the entry's bylines, in order.")]
    terms: NotRequired[
        Annotated[
            dict[str, list[str]],
            Field(description="Term slugs by taxonomy name, as content_create and content_update take them."),
        ]
    ]
    url: NotRequired[str]


class CompactNoteOut(TypedDict):
    fields: Annotated[list[str], Field(description="The fields of data answered.")]
    maxTextChars: Annotated[
        int, Field(description="Each portableText value, as Markdown, is cut to this length.")
    ]
    truncated: Annotated[int, Field(description="How many entries had text cut (it ends with …).")]
    more: Annotated[str, Field(description="How to ask for more.")]


class EntryListOut(TypedDict):
    """A page of entries as the tool server lists them: compact unless asked otherwise."""

    items: Annotated[
        list[EntryOut] | list[CompactEntryOut],
        Field(description="Compact entries unless a full format was asked for."),
    ]
    nextCursor: Annotated[
        str | None, Field(description="Pass as `cursor` for the next page; null on the last page.")
    ]
    compact: NotRequired[
        Annotated[
            CompactNoteOut,
            Field(
                description="Present when the answer is compact: what was left out or cut, and how to get it."
            ),
        ]
    ]


class CompareOut(TypedDict):
    hasChanges: bool
    live: Annotated[JsonObject | None, Field(description="The published version; null if never published.")]
    draft: Annotated[JsonObject, Field(description="The working copy.")]


class TranslationsOut(TypedDict):
    translationGroup: str
    items: list[EntryOut]


class RevisionOut(TypedDict):
    id: str
    collection: str
    entryId: str
    data: JsonObject
    action: Annotated[str, Field(description="What produced it: create, update, publish, restore, …")]
    status: Annotated[str, Field(description="The entry's status after that write.")]
    authorId: str | None
    createdAt: Timestamp


class RevisionPageOut(TypedDict):
    items: list[RevisionOut]
    nextCursor: str | None
    total: int


class RevisionSummaryOut(TypedDict):
    id: str
    action: Annotated[str, Field(description="What produced it: create, update, publish, restore, …")]
    status: Annotated[str, Field(description="The entry's status after that write.")]
    authorId: Annotated[str | None, Field(description="Who wrote it; null for the system or a deleted user.")]
    createdAt: Timestamp
    changedFields: Annotated[
        list[str],
        Field(
            description="Slugs of the fields whose value differs from the previous revision (every field with a "
            "value for the first one); [] when only the status changed."
        ),
    ]


class RevisionSummaryPageOut(TypedDict):
    items: list[RevisionSummaryOut]
    nextCursor: str | None
    total: int


class BylineOut(TypedDict):
    id: str
    displayName: str
    slug: str
    userId: str | None
    isGuest: bool
    bio: str
    email: str
    createdAt: Timestamp
    updatedAt: Timestamp


# --- entries ---------------------------------------------------------------------------------------------------------


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
    # Parsed data of the entries that may hold media values: (entry id, column) → dict. The others are spliced.
    parsed: dict[tuple[str, str], dict | None] = field(default_factory=dict)

    def values(self, entry: Entry, column: str):
        """The column's values for the answer: spliced unparsed, or parsed with media references resolved."""
        raw_name = "data_raw" if column == "data" else "live_raw"
        key = (entry.pk, column)
        if key not in self.parsed:
            return _stored_json(entry, raw_name, column)
        values = self.parsed[key]
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


# Each stored JSON column: its name, its text as read for output, and whether it holds media values (when read).
_COLUMNS = (("data", "data_raw", "data_media"), ("live_data", "live_raw", "live_media"))


def load_extras(entries: Sequence[Entry], *, collection: Collection, drafts: bool) -> EntryExtras:
    extras = EntryExtras(
        media_fields={f.slug: f.type for f in collection.fields.all() if f.type in MEDIA_FIELD_TYPES}
    )
    if extras.media_fields:
        wanted: set[str] = set()
        for entry in entries:
            for column, raw_name, held in _COLUMNS:
                if (column == "data" and not drafts) or getattr(entry, held, None) is False:
                    continue
                values = _parsed_json(entry, raw_name, column)
                extras.parsed[(entry.pk, column)] = values
                for slug in extras.media_fields:
                    value = values.get(slug) if isinstance(values, dict) else None
                    if isinstance(value, dict) and isinstance(value.get("id"), str):
                        wanted.add(value["id"])
        extras.media = media_selectors.media_by_ids(wanted)
    extras.terms = taxonomy_selectors.terms_for_entries(
        collection=collection, entry_ids=[entry.pk for entry in entries], entries=entries
    )
    return extras


def present_entries(seen: Entries) -> list[EntryOut]:
    """Present entries as their reader may see them, with a constant number of queries whatever their number."""
    extras = load_extras(seen.items, collection=seen.collection, drafts=seen.drafts)
    slug, pattern = seen.collection.slug, seen.collection.url_pattern
    return [
        present_entry(
            entry,
            collection_slug=slug,
            drafts=seen.drafts,
            extras=extras,
            meta=seen.meta,
            url_pattern=pattern,
        )
        for entry in seen.items
    ]


def present_entry(
    entry: Entry,
    *,
    collection_slug: str,
    drafts: bool,
    extras: EntryExtras | None = None,
    meta: bool = False,
    url_pattern: str = "",
) -> EntryOut:
    """One entry; ``extras`` (from ``load_extras``) resolves media references and adds terms. Without it, stored
    values are shown as they are and terms are left out: use ``present_entries`` for answers. ``meta`` adds the
    entry's metadata (entries read with ``entry_get(with_meta=True)``). ``url_pattern`` (the collection's, from the
    cached schema) adds ``url`` from the row's own columns: no query and no parse per entry."""
    if extras is None:
        live = _stored_json(entry, "live_raw", "live_data")
        data = _stored_json(entry, "data_raw", "data") if drafts else live
    else:
        live = extras.values(entry, "live_data")
        data = extras.values(entry, "data") if drafts else live
    credits = entry.credit_list if hasattr(entry, "credit_list") else entry.credits.select_related("byline")
    item: EntryOut = {
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
    if url_pattern:
        item["url"] = entry_path(url_pattern, slug=entry.slug, locale=entry.locale, id=entry.pk)
    if extras is not None and extras.terms is not None:
        item["terms"] = extras.terms.get(entry.pk, {})
    if meta:
        item["meta"] = _stored_json(entry, "meta_raw", "meta") or {}
    return item


def present_entry_page(seen: Entries) -> dict[str, Any]:
    """``paged(EntryOut)``: one page of entries and the cursor of the next."""
    return {"items": present_entries(seen), "nextCursor": seen.next_cursor}


def present_entry_with_rev(seen: Entries) -> EntryWithRevOut:
    """One entry (a read, or the answer to a write) with its _rev."""
    entry = seen.items[0]
    return {"item": present_entries(seen)[0], "_rev": entry.rev}


# --- validators of public answers (issue 22) ---------------------------------------------------------------------------


def _row_state(entry) -> tuple:
    """What an entry's answer depends on that its row says: its version (every write), the time of the last write,
    its byline credits as shown (a byline's rename changes the answer, not the entry), and the rows of other tables read
    with it (its terms: a term renamed changes the answer too)."""
    return entry.pk, entry.version, entry.updated_at, tuple(entry.credit_list), companion_texts(entry)


def entry_freshness(seen: Entries, *, query: dict) -> Freshness:
    """Validators of one entry's public answer, from what ``entry_read`` read: no presenting needed."""
    entry = seen.items[0]
    slug = seen.collection.slug
    return Freshness(
        etag=strong_etag(_row_state(entry), sorted(query.items()), current_schema_token()),
        last_modified=entry.updated_at,
        keys=(f"collection:{slug}", f"entry:{entry.pk}"),
    )


def page_freshness(seen: Entries, *, query: dict) -> Freshness:
    """Validators of a page's public answer: the ids and versions of its rows, the next cursor and the query. Its
    Last-Modified (the newest row's) is informative only: an entry leaving the page moves no time forward, so
    ``If-Modified-Since`` is not answered 304 for pages (``by_date``)."""
    slug = seen.collection.slug
    return Freshness(
        etag=strong_etag(
            [_row_state(entry) for entry in seen.items],
            seen.next_cursor,
            sorted(query.items()),
            current_schema_token(),
        ),
        last_modified=max((entry.updated_at for entry in seen.items), default=None),
        keys=(f"collection:{slug}", *(f"entry:{entry.pk}" for entry in seen.items)),
        by_date=False,
    )


def present_translations(group: str, seen: Entries) -> TranslationsOut:
    return {"translationGroup": group, "items": present_entries(seen)}


def present_comparison(comparison: Comparison) -> CompareOut:
    return {"hasChanges": comparison.has_changes, "live": comparison.live, "draft": comparison.draft}


def portable_text_as_markdown(answer: Any, collection: Collection, *, max_chars: int | None = None) -> Any:
    """An answer holding presented entries (``item`` or ``items``) with their Portable Text values as Markdown: the
    tool server's ``format: markdown``. With ``max_chars``, each Markdown text longer than that is cut to that length
    (ending with …) and ``answer["truncated"]`` lists the ids of the entries cut."""
    fields = [field.slug for field in collection.fields.all() if field.type == "portableText"]
    if not fields and max_chars is None:
        return answer
    answer = orjson.loads(orjson.dumps(answer))  # presented data may be stored JSON spliced in unparsed
    items = answer["items"] if "items" in answer else [answer["item"]]
    cut: list[str] = []
    for item in items:
        for key in ("data", "liveData"):
            values = item.get(key)
            if not isinstance(values, dict):
                continue
            for slug in fields:
                if isinstance(values.get(slug), list):
                    text = portable_text_to_markdown(values[slug])
                    if max_chars is not None and len(text) > max_chars:
                        text = (
                            text[: max_chars - 1].rstrip() + "…"
                        )  # at most max_chars, the ellipsis included
                        if item["id"] not in cut:
                            cut.append(item["id"])
                    values[slug] = text
    if max_chars is not None:
        answer["truncated"] = cut
    return answer


def compact_fields(collection: Collection) -> list[str]:
    """What a compact list shows of each entry's data: its title field and its portableText fields."""
    from apps.schema.selectors import title_field

    title = title_field(collection)
    return [
        field.slug for field in collection.fields.all() if field.slug == title or field.type == "portableText"
    ]


def present_compact_page(seen: Entries, *, fields: list[str], max_chars: int) -> EntryListOut:
    """A page of entries (read with ``fields``) in the compact form: Portable Text as Markdown cut to ``max_chars``,
    and a note saying what was left out and how to get it."""
    answer = portable_text_as_markdown(present_entry_page(seen), seen.collection, max_chars=max_chars)
    truncated = answer.pop("truncated")
    answer["items"] = [_compact_entry(item) for item in answer["items"]]
    answer["compact"] = {
        "fields": fields,
        "maxTextChars": max_chars,
        "truncated": len(truncated),
        "more": "fields and format (markdown, portableText) answer more; content_get one entry in full.",
    }
    return answer


def _compact_entry(item: EntryOut) -> CompactEntryOut:
    compact: CompactEntryOut = {
        "id": item["id"],
        "slug": item["slug"],
        "status": item["status"],
        "locale": item["locale"],
        "data": item["data"],
        "updatedAt": item["updatedAt"],
        "publishedAt": item["publishedAt"],
        "bylines": [credit["displayName"] for credit in item["bylines"]],
    }
    if item["scheduledAt"] is not None:
        compact["scheduledAt"] = item["scheduledAt"]
    if "terms" in item:
        compact["terms"] = {name: [term["slug"] for term in terms] for name, terms in item["terms"].items()}
    if "url" in item:
        compact["url"] = item["url"]
    return compact


# --- revisions and bylines -------------------------------------------------------------------------------------------


def present_revision(revision: Revision, *, collection_slug: str) -> RevisionOut:
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


def present_revision_page(page: Page[Revision], total: int, *, collection_slug: str) -> RevisionPageOut:
    return {
        **page.to_data(lambda revision: present_revision(revision, collection_slug=collection_slug)),
        "total": total,
    }


def changed_fields(data: dict, previous: dict | None) -> list[str]:
    """The field slugs whose value differs between two revisions' data (a field absent from one counts)."""
    previous = previous or {}
    return sorted(key for key in data.keys() | previous.keys() if data.get(key) != previous.get(key))


def present_revision_summaries(
    page: Page[Revision], total: int, *, older: dict | None
) -> RevisionSummaryPageOut:
    """A page of revisions without their data, each naming the fields it changed: newest first, each is compared
    with the next one on the page, and the oldest with ``older`` (the revision before the page, ``revision_before``)."""
    revisions = page.items
    return {
        "items": [
            {
                "id": revision.pk,
                "action": revision.action,
                "status": revision.status,
                "authorId": revision.author_id,
                "createdAt": iso(revision.created_at),
                "changedFields": changed_fields(
                    revision.data, revisions[index + 1].data if index + 1 < len(revisions) else older
                ),
            }
            for index, revision in enumerate(revisions)
        ],
        "nextCursor": page.next_cursor,
        "total": total,
    }


def present_byline(byline: Byline) -> BylineOut:
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


class MediaUsageOut(TypedDict):
    entryId: str
    collection: Annotated[str, Field(description="The collection's slug.")]
    collectionLabel: str
    slug: str
    locale: str
    title: Annotated[str, Field(description="The entry's title field (its working copy), else its slug.")]
    status: StatusName
    trashed: bool
    fields: Annotated[list[str], Field(description="Slugs of the fields that reference the media item.")]
    versions: Annotated[
        list[Literal["draft", "live"]],
        Field(
            description="Where the reference is: the working copy (draft), the published version (live), or both."
        ),
    ]


class MediaUsagesOut(TypedDict):
    items: list[MediaUsageOut]
    truncated: Annotated[bool, Field(description="More entries use it than the limit allowed to list.")]


def present_media_usages(usages: MediaUsages) -> MediaUsagesOut:
    return {
        "items": [
            {
                "entryId": usage.id,
                "collection": usage.collection,
                "collectionLabel": usage.collection_label,
                "slug": usage.slug,
                "locale": usage.locale,
                "title": usage.title,
                "status": usage.status,
                "trashed": usage.trashed,
                "fields": usage.fields,
                "versions": usage.versions,
            }
            for usage in usages.items
        ],
        "truncated": usages.truncated,
    }
