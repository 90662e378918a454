"""MCP tools for entries and their revisions (SPEC §4.11), over the same inputs, selectors, services and presenters as
the REST API in ``apps/content/api/views.py``, so a tool answers exactly what the matching endpoint answers.

Beyond REST, writes take Markdown for ``portableText`` fields and the entry's terms by slug, and reads can answer
Portable Text as Markdown: agents write and read Markdown far more reliably than Portable Text JSON.
"""

from __future__ import annotations

from typing import Any

import orjson
from django.conf import settings
from django.db import transaction

from apps.content import overviews, selectors, services
from apps.content.inputs import (
    ContentCreateIn,
    ContentGetIn,
    ContentListIn,
    ContentPublishIn,
    ContentScheduleIn,
    ContentUpdateIn,
    EntryIn,
    MediaUsagesIn,
    RevisionIdIn,
    RevisionListIn,
    RevisionRestoreIn,
    TrashListIn,
)
from apps.content.presenters import (
    CompareOut,
    EntryListOut,
    EntryOut,
    EntryWithRevOut,
    MediaUsagesOut,
    RevisionOut,
    RevisionSummaryPageOut,
    TranslationsOut,
    compact_fields,
    portable_text_as_markdown,
    present_compact_page,
    present_comparison,
    present_entry_page,
    present_entry_with_rev,
    present_media_usages,
    present_revision,
    present_revision_summaries,
    present_translations,
)
from apps.core.errors import ValidationError
from apps.core.portabletext_markdown import markdown_to_portable_text
from apps.core.presenters import SUCCESS, SuccessFlagOut
from apps.core.shapes import paged
from apps.delivery.links import links_resolved
from apps.mcp.registry import tool
from apps.schema import selectors as schema_selectors
from apps.taxonomy import selectors as taxonomy_selectors
from apps.taxonomy import services as taxonomy_services
from apps.taxonomy.models import Term

# --- shared parts ----------------------------------------------------------------------------------------------------


def _collection(slug: str):
    return schema_selectors.collection_for_read(slug=slug)


def _from_markdown(data: dict[str, Any] | None, collection) -> dict[str, Any] | None:
    """Markdown strings given for portableText fields, as Portable Text (other values untouched)."""
    if not data:
        return data
    converted = dict(data)
    for field in collection.fields.all():
        if field.type == "portableText" and isinstance(converted.get(field.slug), str):
            converted[field.slug] = markdown_to_portable_text(converted[field.slug])
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


def _written(entry) -> EntryWithRevOut:
    """The answer to a write: the entry as the service left it, with its new _rev (as REST's ``_written``)."""
    return present_entry_with_rev(selectors.entry_as_written(entry))


def _address(args: EntryIn) -> dict:
    collection = _collection(args.collection)
    return {"entry": selectors.entry_address(collection=collection, ref=args.id), "collection": collection}


def _as_asked(answer: dict, collection, format: str) -> dict:
    return portable_text_as_markdown(answer, collection) if format == "markdown" else answer


def _projected(answer: EntryWithRevOut, collection, fields: list[str] | None) -> EntryWithRevOut:
    """One entry with only ``fields`` in data and liveData (the system fields stay), as lists project them."""
    if fields is None:
        return answer
    kept = selectors.checked_fields(collection, fields)
    item = orjson.loads(orjson.dumps(answer["item"]))  # stored JSON may be spliced in unparsed
    for key in ("data", "liveData"):
        if isinstance(item.get(key), dict):
            item[key] = {slug: value for slug, value in item[key].items() if slug in kept}
    return {**answer, "item": item}


# --- reads -----------------------------------------------------------------------------------------------------------


@tool(
    "content_list",
    title="List entries",
    operation="content.read",
    input=ContentListIn,
    read_only=True,
    output=EntryListOut,
    example={"collection": "posts", "status": "published", "limit": 5},
)
def content_list(actor, args: ContentListIn) -> EntryListOut:
    """List the entries of a collection, newest first by default, one page at a time.

    Returns {items, nextCursor, compact}: each item has id, slug, status, data (field values), timestamps, bylines
    and terms; pass nextCursor back as cursor for the next page (null on the last page). By default the answer is
    compact: data holds the title and the portableText fields as Markdown cut short, and `compact` says what was
    cut; pass fields and format ('markdown' or 'portableText') for more. Use content_get for one entry in full with
    its _rev, schema_get_collection to learn a collection's fields, and search for full-text queries.
    """
    collection = _collection(args.collection)
    compact = args.format == "compact"
    fields = args.fields
    if compact and fields is None:
        fields = compact_fields(collection)
    filters = {name: ",".join(slugs) for name, slugs in args.terms.items()} if args.terms else None
    seen = selectors.entry_list(
        collection=collection,
        actor=actor,
        where=taxonomy_selectors.entry_filter(collection=collection, filters=filters),
        status=args.status,
        order_by=args.orderBy,
        order=args.order,
        locale=args.locale,
        cursor=args.cursor,
        limit=args.limit,
        fields=fields,
    )
    if compact:
        return present_compact_page(
            seen,
            fields=selectors.checked_fields(collection, fields),
            max_chars=settings.CMS_MCP_COMPACT_TEXT_CHARS,
        )
    return _as_asked(present_entry_page(seen), collection, args.format)


@tool(
    "content_get",
    title="Get an entry",
    operation="content.read",
    input=ContentGetIn,
    read_only=True,
    output=EntryWithRevOut,
)
def content_get(actor, args: ContentGetIn) -> EntryWithRevOut:
    """Get one entry by id or slug: all its field values, metadata, bylines, terms and its _rev.

    Returns {item, _rev}. Send _rev back with content_update so that a change made by someone else in the meantime is
    detected ([CONFLICT]) instead of overwritten. liveData is present when the published version differs from the
    working copy (see content_compare). For readers with drafts access, item.meta is the entry's read-only metadata:
    meta.import is what an import kept of the source (sourceId, originalStatus, parentId, menuOrder, sticky,
    passwordProtected, customFields, comments …) and meta._importError {message, content, excerpt} the original of
    an item that could not be imported faithfully.
    """
    collection = _collection(args.collection)
    seen = selectors.entry_read(actor=actor, collection=collection, ref=args.id, locale=args.locale)
    answer = _projected(present_entry_with_rev(seen), collection, args.fields)
    if args.resolveLinks:
        answer = {**answer, "item": links_resolved([answer["item"]], collection)[0]}
    return _as_asked(answer, collection, args.format)


@tool(
    "content_compare",
    title="Compare live and draft",
    operation="content.read_drafts",
    input=EntryIn,
    read_only=True,
    output=CompareOut,
)
def content_compare(actor, args: EntryIn) -> CompareOut:
    """Compare an entry's published version with its working copy (draft).

    Returns {hasChanges, live, draft}: live is null when the entry was never published. Use content_publish to
    publish the draft or content_discard_draft to drop it.
    """
    comparison = selectors.entry_compare(actor=actor, collection=_collection(args.collection), ref=args.id)
    return present_comparison(comparison)


@tool(
    "content_list_trashed",
    title="List the trash",
    operation="content.read_drafts",
    input=TrashListIn,
    read_only=True,
    output=paged(EntryOut),
)
def content_list_trashed(actor, args: TrashListIn) -> dict:
    """List the entries of a collection that are in the trash, most recently deleted first.

    Returns {items, nextCursor}. content_restore brings an entry back; content_permanent_delete removes it for good.
    """
    seen = selectors.trash_list(
        actor=actor, collection=_collection(args.collection), cursor=args.cursor, limit=args.limit
    )
    return present_entry_page(seen)


@tool(
    "content_translations",
    title="List translations",
    operation="content.read",
    input=EntryIn,
    read_only=True,
    output=TranslationsOut,
)
def content_translations(actor, args: EntryIn) -> TranslationsOut:
    """List an entry's translations: every entry of its translation group (one per locale), this one included.

    Returns {translationGroup, items}. Create a translation with content_create and translationOf.
    """
    group, seen = selectors.translations_read(
        actor=actor, collection=_collection(args.collection), ref=args.id
    )
    return present_translations(group, seen)


@tool(
    "revision_list",
    title="List revisions",
    operation="content.read_drafts",
    input=RevisionListIn,
    read_only=True,
    output=RevisionSummaryPageOut,
)
def revision_list(actor, args: RevisionListIn) -> RevisionSummaryPageOut:
    """List an entry's revisions, newest first (only collections that support revisions record them).

    Returns {items, nextCursor, total}; each revision is a summary: id, action, status, authorId, createdAt and
    changedFields (the field slugs it changed from the revision before). revision_get gives one revision's saved
    field values; revision_restore writes one back into the working copy.
    """
    page, total = selectors.revision_list(
        actor=actor,
        collection=_collection(args.collection),
        ref=args.id,
        cursor=args.cursor,
        limit=args.limit,
    )
    older = selectors.revision_before(page.items[-1]) if page.items else None
    return present_revision_summaries(page, total, older=older)


@tool(
    "revision_get",
    title="Get a revision",
    operation="content.read_drafts",
    input=RevisionIdIn,
    read_only=True,
    output=RevisionOut,
)
def revision_get(actor, args: RevisionIdIn) -> RevisionOut:
    """Get one revision of an entry (ids from revision_list) with everything it saved: data (the field values),
    action, status, authorId and createdAt. revision_restore writes it back into the working copy.
    """
    revision = selectors.revision_read(actor=actor, revision_id=args.revisionId)
    return present_revision(revision, collection_slug=revision.collection.slug)


# --- writes ----------------------------------------------------------------------------------------------------------


@tool(
    "content_create",
    title="Create an entry",
    operation="content.create",
    input=ContentCreateIn,
    output=EntryWithRevOut,
)
def content_create(actor, args: ContentCreateIn) -> EntryWithRevOut:
    """Create an entry in a collection, as a draft unless status is 'published'.

    Returns {item, _rev}. Unknown fields, missing required fields and invalid values are refused with
    [VALIDATION_ERROR] naming each field; a taken slug is [DUPLICATE_SLUG].
    """
    collection = _collection(args.collection)
    values = args.values()
    with transaction.atomic():
        entry = services.entry_create(
            actor=actor,
            collection=collection,
            data=_from_markdown(args.data, collection),
            slug=args.slug,
            status=args.status,
            locale=args.locale,
            translation_of=args.translationOf,
            bylines=values.get("bylines"),
        )
        _set_terms(actor, entry, args.taxonomies)
    return _written(entry)


@tool(
    "content_update",
    title="Update an entry",
    operation="content.update",
    input=ContentUpdateIn,
    # Not idempotent: every call writes a revision, and a retry with the same _rev is a [CONFLICT].
    idempotent=False,
    output=EntryWithRevOut,
)
def content_update(actor, args: ContentUpdateIn) -> EntryWithRevOut:
    """Change an entry's fields, slug, status, terms, bylines or publication date; what is not sent stays as it is.

    Returns {item, _rev}. Editing a published entry changes its working copy; the published version stays until
    content_publish (or status 'published'). With _rev, a change made since you read the entry is [CONFLICT].
    publishedAt (not in the future) sets the date of a published entry, or of one published by this call.
    """
    target = _address(args)
    with transaction.atomic():
        entry = services.entry_update(
            actor=actor,
            **target,
            data=_from_markdown(args.data, target["collection"]),
            slug=args.slug,
            status=args.status,
            rev=args.rev,
            bylines=args.values().get("bylines"),
            published_at=args.publishedAt,
        )
        _set_terms(actor, entry, args.taxonomies)
    return _written(entry)


@tool(
    "content_delete",
    title="Move an entry to the trash",
    operation="content.delete",
    input=EntryIn,
    destructive=True,
    output=SuccessFlagOut,
)
def content_delete(actor, args: EntryIn) -> SuccessFlagOut:
    """Move an entry to the trash (soft delete); content_restore undoes it.

    Returns {success: true}.
    """
    services.entry_trash(actor=actor, **_address(args))
    return SUCCESS


@tool(
    "content_restore",
    title="Restore an entry from the trash",
    operation="content.delete",
    input=EntryIn,
    output=EntryWithRevOut,
)
def content_restore(actor, args: EntryIn) -> EntryWithRevOut:
    """Bring an entry back from the trash (see content_list_trashed) into the live listing, in the state it had.

    Returns {item, _rev}.
    """
    return _written(services.entry_restore(actor=actor, **_address(args)))


@tool(
    "content_permanent_delete",
    title="Delete an entry for good",
    operation="content.delete_permanent",
    input=EntryIn,
    destructive=True,
    output=SuccessFlagOut,
)
def content_permanent_delete(actor, args: EntryIn) -> SuccessFlagOut:
    """Delete an entry that is in the trash, irreversibly (move it there first with content_delete).

    Returns {success: true}.
    """
    services.entry_delete_permanently(actor=actor, **_address(args))
    return SUCCESS


@tool(
    "content_publish",
    title="Publish an entry",
    operation="content.publish",
    input=ContentPublishIn,
    idempotent=True,
    output=EntryWithRevOut,
)
def content_publish(actor, args: ContentPublishIn) -> EntryWithRevOut:
    """Publish an entry's working copy: it becomes the live version that readers see.

    Returns {item, _rev}. Later edits (content_update) change the working copy only, until published again;
    content_unpublish takes it offline, content_schedule publishes later instead. publishedAt backdates the
    publication; re-publishing otherwise keeps the first publication's date.
    """
    entry = services.entry_publish(actor=actor, **_address(args), published_at=args.publishedAt)
    return _written(entry)


@tool(
    "content_unpublish",
    title="Unpublish an entry",
    operation="content.publish",
    input=EntryIn,
    idempotent=True,
    output=EntryWithRevOut,
)
def content_unpublish(actor, args: EntryIn) -> EntryWithRevOut:
    """Take a published entry offline: it becomes a draft and keeps its content; content_publish brings it back.

    Returns {item, _rev}.
    """
    return _written(services.entry_unpublish(actor=actor, **_address(args)))


@tool(
    "content_schedule",
    title="Schedule publication",
    operation="content.publish",
    input=ContentScheduleIn,
    output=EntryWithRevOut,
)
def content_schedule(actor, args: ContentScheduleIn) -> EntryWithRevOut:
    """Schedule an entry to be published automatically at scheduledAt (status becomes 'scheduled').

    Returns {item, _rev}. content_unschedule cancels it.
    """
    return _written(services.entry_schedule(actor=actor, **_address(args), scheduled_at=args.scheduledAt))


@tool(
    "content_unschedule",
    title="Cancel a scheduled publication",
    operation="content.publish",
    input=EntryIn,
    output=EntryWithRevOut,
)
def content_unschedule(actor, args: EntryIn) -> EntryWithRevOut:
    """Cancel a publication planned with content_schedule; the entry goes back to draft, its content unchanged.

    Returns {item, _rev}.
    """
    return _written(services.entry_unschedule(actor=actor, **_address(args)))


@tool(
    "content_discard_draft",
    title="Discard unpublished changes",
    operation="content.update",
    input=EntryIn,
    destructive=True,
    output=EntryWithRevOut,
)
def content_discard_draft(actor, args: EntryIn) -> EntryWithRevOut:
    """Drop the unpublished changes of a published entry: the working copy becomes the live version again.

    Returns {item, _rev}.
    """
    return _written(services.entry_discard_draft(actor=actor, **_address(args)))


@tool(
    "content_duplicate",
    title="Duplicate an entry",
    operation="content.create",
    input=EntryIn,
    output=EntryWithRevOut,
)
def content_duplicate(actor, args: EntryIn) -> EntryWithRevOut:
    """Copy an entry into a new draft with the same fields and bylines: the title gets ' (Copy)', the slug is
    generated, values of unique fields are left out. Returns the copy as {item, _rev}.
    """
    source = selectors.entry_get(
        collection=_collection(args.collection), actor=None, ref=args.id, for_update=True
    )
    return _written(services.entry_duplicate(actor=actor, entry=source))


@tool(
    "revision_restore",
    title="Restore a revision",
    operation="content.update",
    input=RevisionRestoreIn,
    output=EntryWithRevOut,
)
def revision_restore(actor, args: RevisionRestoreIn) -> EntryWithRevOut:
    """Replace an entry's working copy with a revision's data (recorded as a new revision). Nothing is published:
    use content_publish afterwards to make it live.

    Returns {item, _rev}.
    """
    revision = selectors.revision_get(revision_id=args.revisionId)
    return _written(services.revision_restore(actor=actor, revision=revision))


@tool(
    "media_usages",
    title="Where a media item is used",
    operation="media.usages",
    input=MediaUsagesIn,
    read_only=True,
    output=MediaUsagesOut,
)
def media_usages(actor, args: MediaUsagesIn) -> MediaUsagesOut:
    """List the entries (live or trashed) whose image or file fields or Portable Text reference a media item: check
    this before media_delete, which leaves those references pointing at nothing.

    Returns {items: [{entryId, collection, title, status, trashed, fields, versions}], truncated}.
    """
    return present_media_usages(overviews.media_usages(actor=actor, media_id=args.id, limit=args.limit))


# The per-collection faces of content_create and content_update (off unless CMS_MCP_COLLECTION_TOOLS), and the
# byline tools: one module per concern; importing registers them.
from apps.content import collection_tools, tools_bylines  # noqa: E402, F401
