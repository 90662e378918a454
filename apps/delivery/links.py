"""Internal links in Portable Text, resolved to the front end's addresses on output.

An editor links to another entry with the mark definition ``{_type: "internalLink", _key, reference: "<entry id>"}``
(the target's id, so the link survives slug changes). The stored text never holds an address; answers that ask for
it (``GET /resolve`` always, ``GET …/content/:collection/:id?resolveLinks=true`` and the ``content_get`` tool's
``resolveLinks``) get each such definition with ``href``: the target's path under its collection's URL pattern when
the target is published and has one, else null. One query for all the links of an answer; list pages do not
resolve links (they splice the stored JSON unparsed)."""

from __future__ import annotations

from typing import Any

import orjson

from apps.content.models import Entry, Status
from apps.schema.addresses import entry_path
from apps.schema.models import Collection
from apps.schema.selectors import collections_for_read

LINK_TYPE = "internalLink"


def _definitions(blocks: Any):
    """Every internal-link mark definition of a Portable Text value (blocks nested in columns, captions … too)."""
    if isinstance(blocks, list):
        for block in blocks:
            yield from _definitions(block)
    elif isinstance(blocks, dict):
        for definition in blocks.get("markDefs") or []:
            if isinstance(definition, dict) and definition.get("_type") == LINK_TYPE:
                yield definition
        for value in blocks.values():
            if isinstance(value, (list, dict)):
                yield from _definitions(value)


def _addresses(ids: set[str]) -> dict[str, str]:
    patterns = {collection.pk: collection.url_pattern for collection in collections_for_read()}
    rows = Entry.objects.filter(pk__in=ids, status=Status.PUBLISHED, deleted_at__isnull=True).values_list(
        "pk", "collection_id", "slug", "locale"
    )
    return {
        pk: entry_path(patterns[collection], slug=slug, locale=locale, id=pk)
        for pk, collection, slug, locale in rows
        if patterns.get(collection)
    }


def links_resolved(items: list[dict], collection: Collection) -> list[dict]:
    """``items`` (presented entries) with the internal links of their portableText fields given ``href``."""
    fields = [field.slug for field in collection.fields.all() if field.type == "portableText"]
    if not fields or not items:
        return items
    # Presented data may be stored JSON spliced in unparsed (orjson.Fragment): parse it once here.
    items = orjson.loads(orjson.dumps(items))
    found = [
        definition
        for item in items
        for key in ("data", "liveData")
        if isinstance(item.get(key), dict)
        for slug in fields
        for definition in _definitions(item[key].get(slug))
    ]
    wanted = {definition["reference"] for definition in found if isinstance(definition.get("reference"), str)}
    addresses = _addresses(wanted) if wanted else {}
    for definition in found:
        definition["href"] = addresses.get(definition.get("reference"))
    return items
