"""MCP tools for entries and their revisions (SPEC §4.11), over the same selectors, services and presenters as the
REST API in ``apps/content/api/views.py``, so a tool answers exactly what the matching endpoint answers.

Beyond REST, writes take Markdown for ``portableText`` fields and the entry's terms by slug, and reads can answer
Portable Text as Markdown: agents write and read Markdown far more reliably than Portable Text JSON.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

import orjson
from django.db import transaction
from pydantic import Field, StringConstraints

from apps.accounts.permissions import authorize
from apps.content import selectors, services
from apps.content.api.serializers import present_entries, present_revision
from apps.core.errors import ValidationError
from apps.core.portabletext_markdown import markdown_to_portable_text, portable_text_to_markdown
from apps.mcp.registry import ToolInput, tool
from apps.schema import selectors as schema_selectors
from apps.taxonomy import selectors as taxonomy_selectors
from apps.taxonomy import services as taxonomy_services
from apps.taxonomy.models import Term

Slug = Annotated[str, StringConstraints(min_length=1, max_length=200)]
CollectionSlug = Annotated[str, Field(min_length=1, max_length=64, description="The collection's slug.")]
EntryRef = Annotated[
    str, Field(min_length=1, max_length=200, description="The entry's id (a ULID) or its slug.")
]
Format = Annotated[
    Literal["json", "markdown"],
    Field(
        description="'markdown' answers portableText fields as Markdown strings instead of Portable Text JSON."
    ),
]


class Credit(ToolInput):
    bylineId: str = Field(min_length=1, max_length=26, description="A byline's id.")
    roleLabel: str = Field(None, max_length=100, description="How this byline contributed, e.g. 'Photos'.")


# --- shared parts ----------------------------------------------------------------------------------------------------


def _collection(slug: str):
    return schema_selectors.collection_for_read(slug=slug)


def _portable_fields(collection) -> list[str]:
    return [field.slug for field in collection.fields.all() if field.type == "portableText"]


def _as_markdown(items: list[dict], collection) -> list[dict]:
    """Portable Text values of ``items`` (presented entries) as Markdown."""
    fields = _portable_fields(collection)
    if not fields:
        return items
    items = orjson.loads(orjson.dumps(items))  # presented data may be stored JSON spliced in unparsed
    for item in items:
        for key in ("data", "liveData"):
            values = item.get(key)
            if not isinstance(values, dict):
                continue
            for slug in fields:
                if isinstance(values.get(slug), list):
                    values[slug] = portable_text_to_markdown(values[slug])
    return items


def _present(entries: list, collection, *, drafts: bool, format: str, meta: bool = False) -> list[dict]:
    items = present_entries(entries, collection=collection, drafts=drafts, meta=meta)
    return _as_markdown(items, collection) if format == "markdown" else items


def _from_markdown(data: dict[str, Any] | None, collection) -> dict[str, Any] | None:
    """Markdown strings given for portableText fields, as Portable Text (other values untouched)."""
    if not data:
        return data
    converted = dict(data)
    for slug in _portable_fields(collection):
        if isinstance(converted.get(slug), str):
            converted[slug] = markdown_to_portable_text(converted[slug])
    return converted


def _term_ids(taxonomies: dict[str, list[str]]) -> list[tuple[Any, list[str]]]:
    """Each named taxonomy with the ids of the named term slugs; unknown slugs are refused, never dropped."""
    resolved = []
    problems: dict[str, str] = {}
    for name, slugs in taxonomies.items():
        taxonomy = taxonomy_selectors.taxonomy_get(name=name)
        ids = dict(Term.objects.filter(taxonomy=taxonomy, slug__in=slugs).values_list("slug", "id"))
        for index, slug in enumerate(slugs):
            if slug not in ids:
                problems[f"taxonomies.{name}.{index}"] = (
                    f"No term '{slug}' in '{name}'; create it with taxonomy_create_term or list them with "
                    "taxonomy_list_terms."
                )
        resolved.append((taxonomy, [ids[slug] for slug in slugs if slug in ids]))
    if problems:
        raise ValidationError(details=problems)
    return resolved


def _set_terms(actor, entry, taxonomies: dict[str, list[str]] | None) -> None:
    if not taxonomies:
        return
    for taxonomy, ids in _term_ids(taxonomies):
        taxonomy_services.entry_terms_set(actor=actor, entry=entry, taxonomy=taxonomy, term_ids=ids)


def _written(entry, *, format: str = "json") -> dict:
    """The answer to a write: the entry as the service left it, with its new _rev (as REST's ``_written``)."""
    selectors.attach_credits([entry])
    item = _present([entry], entry.collection, drafts=True, format=format)[0]
    return {"item": item, "_rev": entry.rev}


def _address(collection_slug: str, ref: str) -> dict:
    collection = _collection(collection_slug)
    return {"entry": selectors.entry_address(collection=collection, ref=ref), "collection": collection}


def _target(collection_slug: str, ref: str):
    return selectors.entry_get(collection=_collection(collection_slug), actor=None, ref=ref, for_update=True)


def _credits(bylines: list[Credit] | None) -> list[dict] | None:
    if bylines is None:
        return None
    return [credit.model_dump(exclude_none=True) for credit in bylines]


# --- reads -----------------------------------------------------------------------------------------------------------


class ContentListIn(ToolInput):
    collection: CollectionSlug
    status: Literal["draft", "published", "scheduled"] = Field(
        None, description="Only entries in this state (readers below contributor see published entries only)."
    )
    limit: int = Field(50, ge=1, le=100, description="Entries per page.")
    cursor: str = Field(None, max_length=1000, description="nextCursor of the previous page.")
    orderBy: str = Field(
        "created_at",
        max_length=64,
        description="created_at, updated_at, published_at, slug, or a sortable field of the collection.",
    )
    order: Literal["asc", "desc"] = "desc"
    locale: str = Field(None, max_length=16, description="Only entries in this locale.")
    terms: dict[str, list[Slug]] = Field(
        None,
        description="Only entries with one of these terms (or a descendant) in each taxonomy named, by term slug: "
        '{"category": ["news", "sport"]}.',
    )
    format: Format = "json"


@tool("content_list", title="List entries", scope="content:read", input=ContentListIn, read_only=True)
def content_list(actor, args: ContentListIn) -> dict:
    """List the entries of a collection, newest first by default, one page at a time.

    Returns {items, nextCursor}: each item has id, slug, status, data (field values), timestamps, bylines and terms;
    pass nextCursor back as cursor for the next page (null on the last page). Use content_get for one entry with its
    _rev, schema_get_collection to learn a collection's fields, and search for full-text queries.
    """
    collection = _collection(args.collection)
    filters = {name: ",".join(slugs) for name, slugs in args.terms.items()} if args.terms else None
    page = selectors.entry_list(
        collection=collection,
        actor=actor,
        where=taxonomy_selectors.entry_filter(collection=collection, filters=filters),
        status=args.status,
        order_by=args.orderBy,
        order=args.order,
        locale=args.locale,
        cursor=args.cursor,
        limit=args.limit,
    )
    drafts = selectors.can_read_drafts(actor)
    return {
        "items": _present(page.items, collection, drafts=drafts, format=args.format),
        "nextCursor": page.next_cursor,
    }


class ContentGetIn(ToolInput):
    collection: CollectionSlug
    id: EntryRef
    locale: str = Field(
        None, max_length=16, description="The locale of a slug lookup; ids are unique anyway."
    )
    format: Format = "json"


@tool("content_get", title="Get an entry", scope="content:read", input=ContentGetIn, read_only=True)
def content_get(actor, args: ContentGetIn) -> dict:
    """Get one entry by id or slug: all its field values, metadata, bylines, terms and its _rev.

    Returns {item, _rev}. Send _rev back with content_update so that a change made by someone else in the meantime is
    detected ([CONFLICT]) instead of overwritten. liveData is present when the published version differs from the
    working copy (see content_compare). For readers with drafts access, item.meta is the entry's read-only metadata:
    meta.import is what an import kept of the source (sourceId, originalStatus, parentId, menuOrder, sticky,
    passwordProtected, customFields, comments …) and meta._importError {message, content, excerpt} the original of
    an item that could not be imported faithfully.
    """
    collection = _collection(args.collection)
    drafts = selectors.can_read_drafts(actor)
    entry = selectors.entry_get(
        collection=collection, actor=actor, ref=args.id, locale=args.locale, with_meta=drafts
    )
    item = _present([entry], collection, drafts=drafts, format=args.format, meta=drafts)[0]
    return {"item": item, "_rev": entry.rev}


class EntryIn(ToolInput):
    collection: CollectionSlug
    id: EntryRef


@tool("content_compare", title="Compare live and draft", scope="content:read", input=EntryIn, read_only=True)
def content_compare(actor, args: EntryIn) -> dict:
    """Compare an entry's published version with its working copy (draft).

    Returns {hasChanges, live, draft}: live is null when the entry was never published. Use content_publish to
    publish the draft or content_discard_draft to drop it.
    """
    authorize(actor, "content.read_drafts")
    return selectors.entry_compare(entry=_target(args.collection, args.id))


class TrashListIn(ToolInput):
    collection: CollectionSlug
    limit: int = Field(50, ge=1, le=100)
    cursor: str = Field(None, max_length=1000, description="nextCursor of the previous page.")


@tool("content_list_trashed", title="List the trash", scope="content:read", input=TrashListIn, read_only=True)
def content_list_trashed(actor, args: TrashListIn) -> dict:
    """List the entries of a collection that are in the trash, most recently deleted first.

    Returns {items, nextCursor}. content_restore brings an entry back; content_permanent_delete removes it for good.
    """
    authorize(actor, "content.read_drafts")
    collection = _collection(args.collection)
    page = selectors.trash_list(collection=collection, cursor=args.cursor, limit=args.limit)
    return {
        "items": present_entries(page.items, collection=collection, drafts=True),
        "nextCursor": page.next_cursor,
    }


@tool("content_translations", title="List translations", scope="content:read", input=EntryIn, read_only=True)
def content_translations(actor, args: EntryIn) -> dict:
    """List an entry's translations: every entry of its translation group (one per locale), this one included.

    Returns {translationGroup, items}. Create a translation with content_create and translationOf.
    """
    collection = _collection(args.collection)
    entry = selectors.entry_get(collection=collection, actor=actor, ref=args.id)
    siblings = selectors.visible_translations(entry=entry, actor=actor)
    drafts = selectors.can_read_drafts(actor)
    return {
        "translationGroup": entry.translation_group,
        "items": present_entries(siblings, collection=collection, drafts=drafts),
    }


class RevisionListIn(ToolInput):
    collection: CollectionSlug
    id: EntryRef
    limit: int = Field(20, ge=1, le=50)
    cursor: str = Field(None, max_length=1000, description="nextCursor of the previous page.")


@tool("revision_list", title="List revisions", scope="content:read", input=RevisionListIn, read_only=True)
def revision_list(actor, args: RevisionListIn) -> dict:
    """List an entry's revisions, newest first (only collections that support revisions record them).

    Returns {items, nextCursor, total}; each revision has id, data (the field values saved), action and createdAt.
    revision_restore writes one back into the working copy.
    """
    authorize(actor, "content.read_drafts")
    entry = _target(args.collection, args.id)
    page, total = selectors.revision_list(entry=entry, cursor=args.cursor, limit=args.limit)
    return {
        **page.to_data(lambda revision: present_revision(revision, collection_slug=args.collection)),
        "total": total,
    }


# --- writes ----------------------------------------------------------------------------------------------------------

DATA_HELP = (
    "Field values keyed by field slug (schema_get_collection lists them). portableText fields take a Markdown "
    "string (headings, lists, emphasis, links, code, quotes) or Portable Text blocks."
)
TAXONOMIES_HELP = 'Terms by taxonomy name, as term slugs: {"category": ["news"]}. Replaces the entry\'s terms of each taxonomy named.'
BYLINES_HELP = "Ordered credits; the first is the primary byline."


class ContentCreateIn(ToolInput):
    collection: CollectionSlug
    data: dict[str, Any] = Field(description=DATA_HELP)
    slug: Slug = Field(None, description="URL slug; generated from the title when omitted.")
    status: Literal["draft", "published"] = "draft"
    locale: str = Field(None, max_length=16)
    translationOf: str = Field(None, max_length=26, description="Id of the entry this one translates.")
    taxonomies: dict[str, list[Slug]] = Field(None, description=TAXONOMIES_HELP)
    bylines: list[Credit] = Field(None, description=BYLINES_HELP)


@tool("content_create", title="Create an entry", scope="content:write", input=ContentCreateIn)
def content_create(actor, args: ContentCreateIn) -> dict:
    """Create an entry in a collection, as a draft unless status is 'published'.

    Returns {item, _rev}. Unknown fields, missing required fields and invalid values are refused with
    [VALIDATION_ERROR] naming each field; a taken slug is [DUPLICATE_SLUG].
    """
    collection = _collection(args.collection)
    with transaction.atomic():
        entry = services.entry_create(
            actor=actor,
            collection=collection,
            data=_from_markdown(args.data, collection),
            slug=args.slug,
            status=args.status,
            locale=args.locale,
            translation_of=args.translationOf,
            bylines=_credits(args.bylines),
        )
        _set_terms(actor, entry, args.taxonomies)
    return _written(entry)


class ContentUpdateIn(ToolInput):
    collection: CollectionSlug
    id: EntryRef
    data: dict[str, Any] = Field(
        None, description=DATA_HELP + " Fields not sent keep their values; null clears one."
    )
    slug: Slug = None
    status: Literal["draft", "published"] = Field(None, description="'published' publishes the result.")
    rev: str = Field(
        None, alias="_rev", max_length=64, description="The _rev content_get returned; stale → [CONFLICT]."
    )
    taxonomies: dict[str, list[Slug]] = Field(None, description=TAXONOMIES_HELP)
    bylines: list[Credit] = Field(None, description=BYLINES_HELP)


@tool(
    "content_update", title="Update an entry", scope="content:write", input=ContentUpdateIn, idempotent=True
)
def content_update(actor, args: ContentUpdateIn) -> dict:
    """Change an entry's fields, slug, status, terms or bylines; what is not sent stays as it is.

    Returns {item, _rev}. Editing a published entry changes its working copy; the published version stays until
    content_publish (or status 'published'). With _rev, a change made since you read the entry is [CONFLICT].
    """
    target = _address(args.collection, args.id)
    with transaction.atomic():
        entry = services.entry_update(
            actor=actor,
            **target,
            data=_from_markdown(args.data, target["collection"]),
            slug=args.slug,
            status=args.status,
            rev=args.rev,
            bylines=_credits(args.bylines),
        )
        _set_terms(actor, entry, args.taxonomies)
    return _written(entry)


@tool(
    "content_delete",
    title="Move an entry to the trash",
    scope="content:write",
    input=EntryIn,
    destructive=True,
)
def content_delete(actor, args: EntryIn) -> dict:
    """Move an entry to the trash (soft delete); content_restore undoes it.

    Returns {success: true}.
    """
    services.entry_trash(actor=actor, **_address(args.collection, args.id))
    return {"success": True}


@tool("content_restore", title="Restore an entry from the trash", scope="content:write", input=EntryIn)
def content_restore(actor, args: EntryIn) -> dict:
    """Bring an entry back from the trash (see content_list_trashed) into the live listing, in the state it had.

    Returns {item, _rev}.
    """
    return _written(services.entry_restore(actor=actor, **_address(args.collection, args.id)))


@tool(
    "content_permanent_delete",
    title="Delete an entry for good",
    scope="content:write",
    input=EntryIn,
    destructive=True,
)
def content_permanent_delete(actor, args: EntryIn) -> dict:
    """Delete an entry that is in the trash, irreversibly (move it there first with content_delete).

    Returns {success: true}.
    """
    services.entry_delete_permanently(actor=actor, **_address(args.collection, args.id))
    return {"success": True}


@tool("content_publish", title="Publish an entry", scope="content:write", input=EntryIn, idempotent=True)
def content_publish(actor, args: EntryIn) -> dict:
    """Publish an entry's working copy: it becomes the live version that readers see.

    Returns {item, _rev}. Later edits (content_update) change the working copy only, until published again;
    content_unpublish takes it offline, content_schedule publishes later instead.
    """
    return _written(services.entry_publish(actor=actor, **_address(args.collection, args.id)))


@tool("content_unpublish", title="Unpublish an entry", scope="content:write", input=EntryIn, idempotent=True)
def content_unpublish(actor, args: EntryIn) -> dict:
    """Take a published entry offline: it becomes a draft and keeps its content; content_publish brings it back.

    Returns {item, _rev}.
    """
    return _written(services.entry_unpublish(actor=actor, **_address(args.collection, args.id)))


class ScheduleIn(EntryIn):
    scheduledAt: datetime = Field(description="When to publish: an ISO 8601 datetime in the future.")


@tool("content_schedule", title="Schedule publication", scope="content:write", input=ScheduleIn)
def content_schedule(actor, args: ScheduleIn) -> dict:
    """Schedule an entry to be published automatically at scheduledAt (status becomes 'scheduled').

    Returns {item, _rev}. content_unschedule cancels it.
    """
    entry = services.entry_schedule(
        actor=actor, **_address(args.collection, args.id), scheduled_at=args.scheduledAt
    )
    return _written(entry)


@tool("content_unschedule", title="Cancel a scheduled publication", scope="content:write", input=EntryIn)
def content_unschedule(actor, args: EntryIn) -> dict:
    """Cancel a publication planned with content_schedule; the entry goes back to draft, its content unchanged.

    Returns {item, _rev}.
    """
    return _written(services.entry_unschedule(actor=actor, **_address(args.collection, args.id)))


@tool(
    "content_discard_draft",
    title="Discard unpublished changes",
    scope="content:write",
    input=EntryIn,
    destructive=True,
)
def content_discard_draft(actor, args: EntryIn) -> dict:
    """Drop the unpublished changes of a published entry: the working copy becomes the live version again.

    Returns {item, _rev}.
    """
    return _written(services.entry_discard_draft(actor=actor, **_address(args.collection, args.id)))


@tool("content_duplicate", title="Duplicate an entry", scope="content:write", input=EntryIn)
def content_duplicate(actor, args: EntryIn) -> dict:
    """Copy an entry into a new draft with the same fields and bylines: the title gets ' (Copy)', the slug is
    generated, values of unique fields are left out. Returns the copy as {item, _rev}.
    """
    return _written(services.entry_duplicate(actor=actor, entry=_target(args.collection, args.id)))


class RevisionRestoreIn(ToolInput):
    revisionId: str = Field(min_length=1, max_length=26, description="A revision id from revision_list.")


@tool("revision_restore", title="Restore a revision", scope="content:write", input=RevisionRestoreIn)
def revision_restore(actor, args: RevisionRestoreIn) -> dict:
    """Replace an entry's working copy with a revision's data (recorded as a new revision). Nothing is published:
    use content_publish afterwards to make it live.

    Returns {item, _rev}.
    """
    revision = selectors.revision_get(revision_id=args.revisionId)
    return _written(services.revision_restore(actor=actor, revision=revision))
