"""A collection's entries (filtered, sorted, searched, a page at a time) and its trash.

The query string speaks the REST list's language (``status``, ``orderBy``, ``order``, ``locale``, ``terms[name]``,
``cursor``), checked by the same input model, plus ``byline`` and ``q`` (the full-text search). Each page costs the
same number of queries whatever its size: one for the entries (their titles read as one key of the data, never the
data), one for their bylines, and the filters' choices."""

from __future__ import annotations

from django.conf import settings
from django.db.models import Q
from django.urls import reverse

from apps.accounts.permissions import can
from apps.content.inputs import EntryListQuery
from apps.content.selectors import byline_list, can_read_drafts, entry_list, sortable_fields, trash_list
from apps.core.errors import CmsError
from apps.core.shapes import validate
from apps.schema.selectors import collection_for_read, title_field
from apps.search.selectors import search
from apps.studio.access import studio_page
from apps.studio.listing import list_rows
from apps.studio.rendering import render_studio
from apps.taxonomy.selectors import entry_filter, taxonomies_for_collection, term_list

PAGE_SIZE = 50
# The search selector answers at most 50 hits a page.
SEARCH_PAGE_SIZE = 50
CHOICES_SHOWN = 100
STATUSES = (("draft", "Draft"), ("published", "Published"), ("scheduled", "Scheduled"))
SYSTEM_SORTS = (
    ("updatedAt", "Last updated"),
    ("createdAt", "Created"),
    ("publishedAt", "Published"),
    ("slug", "Slug"),
)
DEFAULT_SORT = "updatedAt"
# Parameters of the studio's own, beside those of the REST list.
STUDIO_PARAMS = ("q", "byline")


def i18n_on() -> bool:
    return len(settings.CMS_LOCALES) > 1


def _sorts(collection, key: str | None) -> list[tuple[str, str]]:
    sorts = list(SYSTEM_SORTS)
    if key and key in sortable_fields(collection):
        sorts.insert(0, (key, "Title"))
    return sorts


def _query(request) -> dict:
    """The REST list's parameters that were given (empty choices of the filter form are no filter)."""
    given = {
        name: value
        for name, value in request.GET.items()
        if name not in STUDIO_PARAMS and value.strip() != ""
    }
    given.setdefault("orderBy", DEFAULT_SORT)
    return given


def _url(request, **changes) -> str:
    """This page's address with some parameters changed (None drops one)."""
    params = request.GET.copy()
    for name, value in changes.items():
        params.pop(name, None)
        if value is not None:
            params[name] = value
    encoded = params.urlencode()
    return f"{request.path}?{encoded}" if encoded else request.path


def _filter_choices(request, collection) -> dict:
    """The choices of the filter form: terms of each attached taxonomy, bylines, locales."""
    actor = request.actor
    taxonomies = []
    for taxonomy in taxonomies_for_collection(collection):
        terms = term_list(actor=actor, taxonomy=taxonomy.name, limit=CHOICES_SHOWN).items
        chosen = request.GET.get(f"terms[{taxonomy.name}]", "")
        taxonomies.append(
            {"name": taxonomy.name, "param": f"terms[{taxonomy.name}]", "terms": terms, "chosen": chosen}
        )
    return {
        "taxonomies": taxonomies,
        "bylines": byline_list(actor=actor, limit=CHOICES_SHOWN).items,
        "locales": settings.CMS_LOCALES if i18n_on() else [],
    }


def _search_page(request, collection, query: EntryListQuery, text: str, *, where, byline, project):
    """A page of search hits, best first, shown as list rows; the list's filters narrow the page."""
    actor = request.actor
    hits = search(
        actor=actor,
        query=text,
        collections=[collection.slug],
        status="draft" if can_read_drafts(actor) else "published",
        locale=query.locale,
        cursor=query.cursor,
        limit=SEARCH_PAGE_SIZE,
    )
    ids = [hit.id for hit in hits.results]
    found = Q(pk__in=ids) if where is None else where & Q(pk__in=ids)
    seen = entry_list(
        collection=collection,
        actor=actor,
        where=found,
        status=query.status,
        locale=query.locale,
        byline_id=byline,
        limit=max(len(ids), 1),
        project=project,
    )
    rank = {entry_id: position for position, entry_id in enumerate(ids)}
    seen.items.sort(key=lambda row: rank[row.id])
    return seen, hits.next_cursor


@studio_page
def entry_list_page(request, collection: str):
    found = collection_for_read(slug=collection)
    key = title_field(found)
    actor = request.actor
    project = [key] if key else []
    text = request.GET.get("q", "").strip()
    byline = request.GET.get("byline", "").strip() or None
    given = _query(request)
    sorts = _sorts(found, key)
    error, status, rows, next_cursor = None, 200, [], None
    try:
        query = validate(EntryListQuery, given, what="parameter")
        where = entry_filter(collection=found, filters=query.terms)
        if text:
            seen, next_cursor = _search_page(
                request, found, query, text, where=where, byline=byline, project=project
            )
        else:
            seen = entry_list(
                collection=found,
                actor=actor,
                where=where,
                status=query.status,
                order_by=query.orderBy,
                order=query.order,
                locale=query.locale,
                byline_id=byline,
                cursor=query.cursor,
                limit=PAGE_SIZE,
                project=project,
            )
            next_cursor = seen.next_cursor
        rows = list_rows(seen, title_key=key, actor=actor)
    except CmsError as exc:
        error = exc.message
        if exc.details:
            error = " ".join(f"{name}: {message}" for name, message in exc.details.items())
        status = exc.status
    order_by, order = given.get("orderBy", DEFAULT_SORT), given.get("order", "desc")
    headers = {}
    for name in (key if key in dict(sorts) else None, "updatedAt"):
        if name is None:
            continue
        current = name == order_by
        flipped = "asc" if current and order == "desc" else "desc"
        headers[name] = {
            "url": _url(request, orderBy=name, order=flipped, cursor=None),
            "aria_sort": ("descending" if order == "desc" else "ascending") if current else "",
        }
    context = {
        "collection": found,
        "rows": rows,
        "error": error,
        "i18n": i18n_on(),
        "searchable": found.supports_feature("search"),
        "text": text,
        "filtered": bool(text or byline or set(given) - {"orderBy", "order", "cursor"}),
        "byline": byline or "",
        "status_filter": given.get("status", ""),
        "locale_filter": given.get("locale", ""),
        "statuses": STATUSES,
        "sorts": sorts,
        "order_by": order_by,
        "order": order,
        "title_sort": headers.get(key) if key else None,
        "updated_sort": headers["updatedAt"],
        "next_url": _url(request, cursor=next_cursor) if next_cursor else None,
        "first_url": _url(request, cursor=None) if request.GET.get("cursor") else None,
        "bulk_url": reverse("studio:entries-bulk", args=[found.slug]),
        "trash_url": reverse("studio:entries-trash", args=[found.slug]),
        "new_url": reverse("studio:entry-new", args=[found.slug]),
        "back": request.get_full_path(),
        "may_create": can(actor, "content.create"),
        "may_publish": can(actor, "content.publish"),
        "may_trash": can(actor, "content.delete"),
        **_filter_choices(request, found),
    }
    return render_studio(
        request, "studio/entries/list.html", context, section=f"collection:{found.slug}", status=status
    )


@studio_page
def entry_trash_page(request, collection: str):
    found = collection_for_read(slug=collection)
    key = title_field(found)
    actor = request.actor
    error, status, rows, next_cursor = None, 200, [], None
    try:
        seen = trash_list(
            actor=actor,
            collection=found,
            cursor=request.GET.get("cursor") or None,
            limit=PAGE_SIZE,
            project=[key] if key else [],
        )
        rows, next_cursor = list_rows(seen, title_key=key, actor=actor), seen.next_cursor
    except CmsError as exc:
        error, status = exc.message, exc.status
    context = {
        "collection": found,
        "rows": rows,
        "error": error,
        "i18n": i18n_on(),
        "next_url": _url(request, cursor=next_cursor) if next_cursor else None,
        "first_url": _url(request, cursor=None) if request.GET.get("cursor") else None,
        "bulk_url": reverse("studio:entries-bulk", args=[found.slug]),
        "list_url": reverse("studio:entries", args=[found.slug]),
        "back": request.get_full_path(),
        "may_restore": can(actor, "content.delete"),
        "may_delete": can(actor, "content.delete_permanent"),
    }
    return render_studio(
        request, "studio/entries/trash.html", context, section=f"collection:{found.slug}", status=status
    )
