"""Reads of entries, their revisions and bylines. Who sees what: readers with drafts access (contributor role and up)
see working copies and every status; everyone else sees published entries only, as published (``live_data``).

The reads the faces call (``entry_list``, ``entry_read``, ``trash_list`` …) take the ``actor`` and check its permission
themselves, so REST and MCP cannot disagree on who may read what; they answer ``Entries``, which carries what the
presenters need to know about the reader. ``entry_get`` and ``entry_address`` find the target of a write without a
read check (the write checks its own permission), and ``entry_as_written`` is the answer to a write."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

import orjson
from django.conf import settings
from django.db.models import BooleanField, Case, Q, QuerySet, TextField, Value, When
from django.db.models.functions import Cast
from django.db.models.lookups import IsNull

from apps.accounts.permissions import Actor, authorize, can, require_credentials
from apps.content.companions import PREFIX as COMPANION
from apps.content.companions import attach_credits, companion_annotations
from apps.content.models import Byline, Entry, EntryByline, Revision, Status
from apps.core.db.jsonkeys import JsonKey, JsonPick, SameJson
from apps.core.db.prepared import PreparedQuery
from apps.core.errors import Forbidden, NotFound, ValidationError
from apps.core.ids import is_ulid
from apps.core.pagination import Page, SortKey, finish_page, keyset_page, ordering_tag
from apps.schema.field_types import FIELD_TYPES
from apps.schema.models import Collection

SYSTEM_ORDERS = {
    "createdAt": SortKey("created_at", kind="datetime"),
    "updatedAt": SortKey("updated_at", kind="datetime"),
    "publishedAt": SortKey("published_at", nullable=True, kind="datetime"),
    "slug": SortKey("slug"),
}
# The tool server's spelling (SPEC §4.11: "created_at, updated_at").
ORDER_ALIASES = {"created_at": "createdAt", "updated_at": "updatedAt", "published_at": "publishedAt"}


def can_read_drafts(actor: Actor | None) -> bool:
    return can(actor, "content.read_drafts")


@dataclass(frozen=True, slots=True)
class Entries:
    """Entries of one collection as one reader may see them. ``drafts``: the reader sees working copies (and the
    published version beside them where it differs); otherwise the published version only. ``meta``: the entries'
    metadata was read (single-entry reads by readers with drafts access)."""

    collection: Collection
    items: list
    drafts: bool
    next_cursor: str | None = None
    meta: bool = False


@dataclass(frozen=True, slots=True)
class Comparison:
    live: dict | None
    draft: dict

    @property
    def has_changes(self) -> bool:
        return self.live != self.draft


# Entry data is read as the stored JSON text and spliced into answers unparsed (apps/core/api/renderers.py): parsing
# and re-serialising every field of every row is most of the cost of a list page otherwise.
RAW_JSON = {"data_raw": Cast("data", TextField()), "live_raw": Cast("live_data", TextField())}


def _for_output(queryset: QuerySet, *, meta: bool = False) -> QuerySet:
    """``meta`` adds the entry's metadata as text (``meta_raw``): only single-entry answers to readers with drafts
    access show it, so no other read pays for a column that can hold an import's comments."""
    queryset = queryset.defer("data", "live_data", "meta").annotate(**RAW_JSON, **companion_annotations())
    return queryset.annotate(meta_raw=Cast("meta", TextField())) if meta else queryset


@dataclass(slots=True)
class EntryRow:
    """An entry as list pages need it: plain values, built without instantiating models (a third of a page's cost)."""

    id: str
    slug: str
    status: str
    locale: str
    translation_group: str
    author_id: str | None
    primary_byline_id: str | None
    version: int
    created_at: datetime
    updated_at: datetime
    published_at: datetime | None
    scheduled_at: datetime | None
    deleted_at: datetime | None
    # The stored JSON texts: the working copy (readers with drafts access only) and the published version, which
    # for readers with drafts access is None where it is the same as the working copy: most entries' versions are,
    # and the database compares them so that a list reads half the text (see ``_row_query``).
    data_raw: str | None = None
    live_raw: str | None = None
    sort_value: object = None
    credit_list: list = field(default_factory=list)
    # Rows read with a projection (``project=``): the named data keys instead of the data, and whether the working
    # copy differs from the published version (what an answer's ``liveData`` says).
    projected: dict | None = None
    has_changes: bool | None = None
    # Whether the working copy / the published version holds a value in one of the collection's image or file fields
    # (see ``media_held``); None when not read, and the presenters then parse the data to find out.
    data_media: bool | None = None
    live_media: bool | None = None
    # Rows of other tables read with the entry, as JSON text by name (see apps/content/companions.py).
    companions: dict | None = None

    @property
    def pk(self) -> str:
        return self.id


# The row's columns read as they are; the others are computed by the query (annotations) or after it.
_NOT_COLUMNS = {"sort_value", "credit_list", "projected", "has_changes", "companions"}
_NOT_COLUMNS |= {"data_raw", "live_raw", "data_media", "live_media"}
ROW_FIELDS = tuple(name for name in EntryRow.__slots__ if name not in _NOT_COLUMNS)
# The comparison ``present_entry`` makes between the stored texts, made by the database, so that the data itself need
# not be read.
HAS_CHANGES = Case(
    When(live_data__isnull=True, then=Value(False)),
    When(SameJson("data", "live_data"), then=Value(False)),
    default=Value(True),
    output_field=BooleanField(),
)


MEDIA_REFERENCE_TYPES = ("image", "file")


def media_held(collection: Collection, *, drafts: bool) -> dict:
    """Annotations saying, per row, whether the data holds a value (present and not JSON null) in one of the
    collection's image or file fields: ``data_media`` for the working copy (readers with drafts access only) and
    ``live_media`` for the published version. Only such values are resolved into media references, so the presenters
    parse and rebuild the data of those rows alone and splice the others' stored text unparsed. Asked of the
    database beside the row: no extra query, and the JSON is read by the same key expression as filters and sorts."""
    slugs = [field.slug for field in collection.fields.all() if field.type in MEDIA_REFERENCE_TYPES]
    if not slugs:
        return {}
    columns = {"data_media": "data", "live_media": "live_data"} if drafts else {"live_media": "live_data"}
    return {name: _holds_any(column, slugs) for name, column in columns.items()}


def _holds_any(column: str, slugs: list[str]) -> Case:
    held = Q(IsNull(JsonKey(column, slugs[0]), False))
    for slug in slugs[1:]:
        held |= Q(IsNull(JsonKey(column, slug), False))
    return Case(When(held, then=Value(True)), default=Value(False), output_field=BooleanField())


def _row_query(
    queryset: QuerySet,
    *,
    sorted_by_value: bool,
    project: Sequence[str] | None = None,
    drafts: bool = True,
    collection: Collection | None = None,
    fields: Sequence[str] | None = None,
) -> tuple[QuerySet, tuple[str, ...]]:
    """The rows' columns as annotations of ``queryset``, and their names: the stored data as text (``data_raw``, for
    readers with drafts access, and ``live_raw``: for them only where it differs from ``data_raw``, else None) and
    with ``collection`` whether it holds media values (see ``media_held``); or with ``project`` only the named keys of
    the data (the working copy for readers with drafts access, else the published version) and ``has_changes``.
    ``fields`` keeps only those keys of the stored texts (an answer's ``fields=``)."""
    names = (*ROW_FIELDS, "sort_value") if sorted_by_value else ROW_FIELDS
    companions = companion_annotations()
    if project is None:
        held = media_held(collection, drafts=drafts) if collection is not None else {}
        if fields is None:
            data, live = RAW_JSON["data_raw"], RAW_JSON["live_raw"]
        else:
            data, live = JsonPick("data", fields), JsonPick("live_data", fields)
        changed = Case(
            When(SameJson("data", "live_data"), then=Value(None)), default=live, output_field=TextField()
        )
        raw = {"data_raw": data, "live_raw": changed} if drafts else {"live_raw": live}
        return queryset.annotate(**raw, **held, **companions), (*names, *raw, *held, *companions)
    column = "data" if drafts else "live_data"
    keys = {f"projected_{index}": JsonKey(column, key) for index, key in enumerate(project)}
    annotated = queryset.annotate(**keys, has_changes=HAS_CHANGES, **companions)
    return annotated, (*names, *keys, "has_changes", *companions)


def _rows(queryset: QuerySet, **options) -> QuerySet:
    """Rows as ``.values()`` dicts (see ``_row_query``)."""
    annotated, columns = _row_query(queryset, **options)
    return annotated.values(*columns)


def _row_builder(project: Sequence[str] | None):
    def build(values: dict) -> EntryRow:
        companions = {
            name[len(COMPANION) :]: values.pop(name) for name in list(values) if name.startswith(COMPANION)
        }
        if project is None:
            return EntryRow(**values, companions=companions)
        projected = {key: values.pop(f"projected_{index}") for index, key in enumerate(project)}
        return EntryRow(**values, projected=projected, companions=companions)

    return build


def sortable_fields(collection: Collection) -> list[str]:
    return [field.slug for field in collection.fields.all() if FIELD_TYPES[field.type].sortable]


def _order_keys(
    collection: Collection, order_by: str, descending: bool, drafts: bool
) -> tuple[list[SortKey], dict]:
    name = ORDER_ALIASES.get(order_by, order_by)
    if name in SYSTEM_ORDERS:
        key = SYSTEM_ORDERS[name]
        return [SortKey(key.name, descending, key.nullable, key.kind), SortKey("id", descending)], {}
    field = next((field for field in collection.fields.all() if field.slug == name), None)
    if field is None or not FIELD_TYPES[field.type].sortable:
        options = ", ".join([*SYSTEM_ORDERS, *sortable_fields(collection)])
        raise ValidationError(details={"orderBy": f"Cannot order by '{order_by}'; choose one of: {options}."})
    column = "data" if drafts else "live_data"
    annotation = {"sort_value": JsonKey(column, field.slug, numeric=FIELD_TYPES[field.type].numeric)}
    return [SortKey("sort_value", descending, nullable=True), SortKey("id", descending)], annotation


def collection_for_reader(*, actor: Actor | None, slug: str) -> Collection:
    """The collection a read names, from the schema cache. An anonymous reader is answered 401 for an unknown collection
    as for one that is not public: NOT_FOUND would tell whether it exists, and name the others."""
    from apps.schema.selectors import collection_for_read

    try:
        return collection_for_read(slug=slug)
    except NotFound:
        require_credentials(actor)
        raise


def entry_list(
    *,
    collection: Collection,
    actor: Actor | None,
    where: Q | None = None,
    status: str | None = None,
    order_by: str = "createdAt",
    order: str = "desc",
    locale: str | None = None,
    byline_id: str | None = None,
    cursor: str | None = None,
    limit: int = 50,
    project: Sequence[str] | None = None,
    fields: Sequence[str] | None = None,
) -> Entries:
    """One page of the collection's live (not trashed) entries. ``collection`` must have its fields loaded. ``where``
    narrows the entries further (higher apps' filters, such as terms, built by their selectors); ``byline_id`` keeps
    the entries that credit that byline. ``project`` names the data keys to read instead of the whole data (see
    ``EntryRow.projected``): for lists that show a title, not the entries. ``fields`` keeps only the named fields in
    the entries' data (an answer's ``fields=``: the system fields beside the data are always there)."""
    authorize(actor, "content.read", public=collection.public)
    if fields is not None:
        fields = checked_fields(collection, fields)
    drafts = can_read_drafts(actor)
    if not drafts:
        if status not in (None, Status.PUBLISHED):
            require_credentials(actor)
            raise Forbidden(
                "Only published entries are visible to you: reading drafts needs the contributor role or higher.",
                details={"status": "Only 'published' is available to you."},
            )
        status = Status.PUBLISHED
    keys, annotation = _order_keys(collection, order_by, order == "desc", drafts)
    # The ordering's name is part of the scope a cursor is bound to, so a cursor of one field's ordering is refused
    # by another's instead of being compared with the wrong values.
    scope = f"entries:{collection.pk}:{int(drafts)}:{ORDER_ALIASES.get(order_by, order_by)}"
    shape = dict(
        sorted_by_value=bool(annotation), project=project, drafts=drafts, collection=collection, fields=fields
    )
    if where is None and not cursor:
        page = _first_page(
            collection, status=status, locale=locale, byline_id=byline_id, keys=keys, annotation=annotation,
            limit=limit, scope=scope, shape=shape,
        )  # fmt: skip
    else:
        entries = _entries_of(collection.pk, status=status, locale=locale, byline_id=byline_id)
        if where is not None:
            entries = entries.filter(where)
        if annotation:
            entries = entries.annotate(**annotation)
        page = keyset_page(
            _rows(entries, **shape),
            keys=keys,
            cursor=cursor,
            limit=limit,
            scope=scope,
            row=_row_builder(project),
        )
    attach_credits(page.items)
    return Entries(collection, page.items, drafts, page.next_cursor)


def checked_fields(collection: Collection, names: Sequence[str]) -> list[str]:
    """``names`` as the fields of ``collection`` to answer, in its order, or ValidationError naming the unknown ones."""
    known = [field.slug for field in collection.fields.all()]
    unknown = [name for name in names if name not in known]
    if unknown:
        listed = ", ".join(map(repr, unknown))
        raise ValidationError(
            details={
                "fields": f"No field {listed} in '{collection.slug}'; its fields are: {', '.join(known)}."
            }
        )
    return [name for name in known if name in set(names)]


def _entries_of(
    collection_id: str, *, status: str | None, locale: str | None, byline_id: str | None
) -> QuerySet:
    entries = Entry.objects.filter(collection_id=collection_id, deleted_at__isnull=True)
    if status:
        entries = entries.filter(status=status)
    if locale:
        entries = entries.filter(locale=locale)
    if byline_id:
        entries = entries.filter(pk__in=EntryByline.objects.filter(byline_id=byline_id).values("entry_id"))
    return entries


# First pages with no higher app's filter (what front ends and the studio ask for most) run a query compiled once per
# shape: building and compiling the queryset took 40% of a list of 50 imported posts (issue 21). The shape is all
# that decides the SQL; the values (collection, status, locale, byline) are its parameters. Bounded: past the limit
# the oldest shape is compiled again when next asked for.
_FIRST_PAGES: dict[tuple, tuple[PreparedQuery, tuple[str, ...]]] = {}
FIRST_PAGE_SHAPES = 512


def _first_page(
    collection: Collection,
    *,
    status: str | None,
    locale: str | None,
    byline_id: str | None,
    keys: list[SortKey],
    annotation: dict,
    limit: int,
    scope: str,
    shape: dict,
) -> Page:
    values = {"status": status, "locale": locale, "byline_id": byline_id}
    given = tuple(name for name, value in values.items() if value)
    fields = tuple((field.slug, field.type) for field in collection.fields.all())
    project = shape["project"]
    order = tuple((sort_key.name, sort_key.descending) for sort_key in keys)
    picked = tuple(shape["fields"]) if shape["fields"] is not None else None
    key = (scope, order, fields, given, tuple(project) if project is not None else None, picked, limit)
    found = _FIRST_PAGES.get(key)
    if found is None:
        _, columns = _row_query(Entry.objects.none(), **shape)

        def build(collection_id, **placeholders):
            entries = _entries_of(collection_id, **{**dict.fromkeys(values), **placeholders})
            if annotation:
                entries = entries.annotate(**annotation)
            annotated, _ = _row_query(entries, **shape)
            return annotated.values_list(*columns).order_by(*(k.order_expression() for k in keys))[
                : limit + 1
            ]

        if len(_FIRST_PAGES) >= FIRST_PAGE_SHAPES:
            del _FIRST_PAGES[next(iter(_FIRST_PAGES))]
        found = _FIRST_PAGES[key] = (PreparedQuery(build, "collection_id", *given), columns)
    prepared, columns = found
    fetched = prepared.fetch(collection_id=collection.pk, **{name: values[name] for name in given})
    build_row = _row_builder(project)
    rows = [build_row(dict(zip(columns, row, strict=True))) for row in fetched]
    return finish_page(rows, keys=keys, limit=limit, tag=ordering_tag(keys, scope))


def title_filter(collection: Collection, text: str, *, drafts: bool) -> Q | None:
    """Entries whose title (the collection's title field, in the working copy for ``drafts`` readers) or slug
    contains ``text``, ignoring case: a ``where`` for ``entry_list`` that pickers search as people type. None when
    there is nothing to look for."""
    from apps.schema.selectors import title_field

    text = text.strip()
    if not text:
        return None
    found = Q(slug__icontains=text)
    key = title_field(collection)
    if key:
        found |= Q(**{f"{'data' if drafts else 'live_data'}__{key}__icontains": text})
    return found


# The single-entry reads behind every GET, PATCH and lifecycle call, compiled once (see PreparedQuery).
_ENTRY_BY_ID = PreparedQuery(
    lambda collection_id, pk: _for_output(Entry.objects.filter(collection_id=collection_id, pk=pk))[:1],
    "collection_id",
    "pk",
)
_ENTRY_BY_SLUG = PreparedQuery(
    lambda collection_id, slug, locale: _for_output(
        Entry.objects.filter(collection_id=collection_id, slug=slug, locale=locale, deleted_at__isnull=True)
    )[:1],
    "collection_id",
    "slug",
    "locale",
)
_ENTRY_WITH_META_BY_ID = PreparedQuery(
    lambda collection_id, pk: _for_output(
        Entry.objects.filter(collection_id=collection_id, pk=pk), meta=True
    )[:1],
    "collection_id",
    "pk",
)
_ENTRY_WITH_META_BY_SLUG = PreparedQuery(
    lambda collection_id, slug, locale: _for_output(
        Entry.objects.filter(collection_id=collection_id, slug=slug, locale=locale, deleted_at__isnull=True),
        meta=True,
    )[:1],
    "collection_id",
    "slug",
    "locale",
)


def entry_get(
    *,
    collection: Collection,
    actor: Actor | None,
    ref: str,
    locale: str | None = None,
    for_update: bool = False,
    with_meta: bool = False,
) -> Entry:
    """The entry with id ``ref``, else with slug ``ref`` in ``locale`` (the default locale when omitted).

    Readers without drafts access find published entries only; by id, readers with drafts access also find entries in
    the trash. ``for_update`` resolves the target of a write (drafts access is then checked by the write itself).
    ``with_meta`` also reads the entry's metadata as text (``entry.meta_raw``)."""
    drafts = for_update or can_read_drafts(actor)
    by_id, by_slug = (
        (_ENTRY_WITH_META_BY_ID, _ENTRY_WITH_META_BY_SLUG) if with_meta else (_ENTRY_BY_ID, _ENTRY_BY_SLUG)
    )
    entry = None
    if is_ulid(ref):
        entry = by_id.first(collection_id=collection.pk, pk=ref.upper())
        if entry is not None and entry.is_trashed and not drafts:
            entry = None
    if entry is None:
        entry = by_slug.first(
            collection_id=collection.pk, slug=ref, locale=locale or settings.CMS_DEFAULT_LOCALE
        )
    if entry is None or (not drafts and entry.status != Status.PUBLISHED):
        raise NotFound(f"No entry '{ref}' in '{collection.slug}'.")
    entry.collection = collection
    attach_credits([entry])
    return entry


def entry_read(
    *, actor: Actor | None, collection: Collection, ref: str, locale: str | None = None
) -> Entries:
    """One entry as ``actor`` may read it (see ``entry_get``); readers with drafts access also get its metadata
    (import bookkeeping, commenters' addresses, ``_importError``), which is for those who may edit."""
    authorize(actor, "content.read", public=collection.public)
    drafts = can_read_drafts(actor)
    entry = entry_get(collection=collection, actor=actor, ref=ref, locale=locale, with_meta=drafts)
    return Entries(collection, [entry], drafts, meta=drafts)


def entry_as_written(entry: Entry) -> Entries:
    """The answer to a write, without a read check: the entry as the service left it (no second read), its byline
    credits loaded. The services leave the entry's collection (with its fields) on it."""
    attach_credits([entry])
    return Entries(entry.collection, [entry], drafts=True)


def entry_address(*, collection: Collection, ref: str) -> Entry | str:
    """What a write addresses (REST and MCP): an id goes straight to the service, which checks it belongs to the
    collection under its row lock; a slug is looked up first (drafts included)."""
    if is_ulid(ref):
        return ref.upper()
    return entry_get(collection=collection, actor=None, ref=ref, for_update=True)


def entry_compare(*, actor: Actor | None, collection: Collection, ref: str) -> Comparison:
    """The published version and the working copy (compared as values, not as text)."""
    authorize(actor, "content.read_drafts")
    entry = entry_get(collection=collection, actor=None, ref=ref, for_update=True)
    live = orjson.loads(entry.live_raw) if entry.live_raw is not None else None
    draft = orjson.loads(entry.data_raw) if entry.data_raw is not None else {}
    return Comparison(live=live, draft=draft)


def translations_read(*, actor: Actor | None, collection: Collection, ref: str) -> tuple[str, Entries]:
    """The entry's translation group and its live entries as ``actor`` may see them: published siblings only without
    drafts access."""
    authorize(actor, "content.read", public=collection.public)
    entry = entry_get(collection=collection, actor=actor, ref=ref)
    drafts = can_read_drafts(actor)
    siblings = [
        sibling for sibling in entry_translations(entry=entry) if drafts or sibling.status == Status.PUBLISHED
    ]
    return entry.translation_group, Entries(collection, siblings, drafts)


def trash_list(
    *,
    actor: Actor | None,
    collection: Collection,
    cursor: str | None = None,
    limit: int = 50,
    project: Sequence[str] | None = None,
) -> Entries:
    """One page of the collection's trash, the most recently deleted first (``project`` as in ``entry_list``)."""
    authorize(actor, "content.read_drafts")
    entries = _rows(
        Entry.objects.filter(collection=collection, deleted_at__isnull=False),
        sorted_by_value=False,
        project=project,
        collection=collection,
    )
    keys = [SortKey("deleted_at", descending=True, kind="datetime"), SortKey("id", descending=True)]
    page = keyset_page(
        entries,
        keys=keys,
        cursor=cursor,
        limit=limit,
        scope=f"trash:{collection.pk}",
        row=_row_builder(project),
    )
    attach_credits(page.items)
    return Entries(collection, page.items, drafts=True, next_cursor=page.next_cursor)


def entries_chosen(
    *, actor: Actor | None, collection: Collection, ids: Sequence[str], project: Sequence[str] | None = None
) -> Entries:
    """The entries of ``collection`` among ``ids``, live or in the trash, in the order of ``ids`` (unknown ids left
    out): what someone picked for a bulk action, to show before and after it."""
    authorize(actor, "content.read_drafts")
    wanted = [ref.upper() for ref in dict.fromkeys(ids) if isinstance(ref, str) and is_ulid(ref)]
    rows = _rows(
        Entry.objects.filter(collection=collection, pk__in=wanted),
        sorted_by_value=False,
        project=project,
        collection=collection,
    )
    found = {row.id: row for row in map(_row_builder(project), rows)}
    items = attach_credits([found[pk] for pk in wanted if pk in found])
    return Entries(collection, items, drafts=True)


def entry_translations(*, entry: Entry) -> list[Entry]:
    """Every live entry of the translation group, this one included, by locale."""
    siblings = Entry.objects.filter(translation_group=entry.translation_group, deleted_at__isnull=True)
    return attach_credits(list(_for_output(siblings).order_by("locale", "id")))


def revision_list(
    *, actor: Actor | None, collection: Collection, ref: str, cursor: str | None = None, limit: int = 50
) -> tuple[Page[Revision], int]:
    """One page of the entry's revisions, newest first, and how many it has."""
    authorize(actor, "content.read_drafts")
    entry = entry_get(collection=collection, actor=None, ref=ref, for_update=True)
    revisions = Revision.objects.filter(entry_id=entry.pk)
    keys = [SortKey("created_at", descending=True, kind="datetime"), SortKey("id", descending=True)]
    # Who wrote each revision is shown beside it (the studio): one join instead of a query per row.
    page = keyset_page(
        revisions.select_related("author"),
        keys=keys,
        cursor=cursor,
        limit=limit,
        scope=f"revisions:{entry.pk}",
    )
    return page, revisions.count()


def revision_before(revision: Revision) -> dict | None:
    """The data of the entry's revision just older than ``revision`` (None for its first): what the oldest revision
    of a page is compared with to name the fields it changed."""
    older = Revision.objects.filter(entry_id=revision.entry_id).filter(
        Q(created_at__lt=revision.created_at) | Q(created_at=revision.created_at, id__lt=revision.pk)
    )
    return older.order_by("-created_at", "-id").values_list("data", flat=True).first()


def revision_read(*, actor: Actor | None, revision_id: str) -> Revision:
    authorize(actor, "content.read_drafts")
    return revision_get(revision_id=revision_id)


def revision_get(*, revision_id: str) -> Revision:
    """The revision a restore addresses (no read check: the restore checks its own permission)."""
    revision = (
        Revision.objects.select_related("entry", "entry__collection", "collection")
        .filter(pk=revision_id)
        .first()
    )
    if revision is None:
        raise NotFound(f"No revision {revision_id}.")
    return revision


def byline_list(
    *,
    actor: Actor | None,
    search: str | None = None,
    kind: str | None = None,
    cursor: str | None = None,
    limit: int = 50,
) -> Page[Byline]:
    """Bylines by name; ``search`` keeps those whose name or slug contains it (any case), ``kind`` the guests
    (``guest``) or those linked to a user (``linked``)."""
    authorize(actor, "content.read")
    keys = [SortKey("display_name"), SortKey("id")]
    bylines = Byline.objects.all()
    search = (search or "").strip()
    if search:
        bylines = bylines.filter(Q(display_name__icontains=search) | Q(slug__icontains=search))
    if kind == "guest":
        bylines = bylines.filter(is_guest=True)
    elif kind == "linked":
        bylines = bylines.filter(user__isnull=False)
    # A cursor is bound to its filters, so a page of one search cannot continue another.
    scope = f"bylines:{kind or ''}:{search}" if kind or search else "bylines"
    return keyset_page(bylines, keys=keys, cursor=cursor, limit=limit, scope=scope)


def byline_read(*, actor: Actor | None, byline_id: str) -> Byline:
    authorize(actor, "content.read")
    return byline_get(byline_id=byline_id)


def byline_get(*, byline_id: str) -> Byline:
    """The byline a write addresses (no read check: the write checks its own permission)."""
    byline = Byline.objects.filter(pk=byline_id).first()
    if byline is None:
        raise NotFound(f"No byline {byline_id}.")
    return byline
