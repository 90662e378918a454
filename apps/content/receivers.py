"""How entries follow schema changes (events from apps/schema, sent inside the schema change's transaction).

- A field is saved: its generated indexes are created, replaced or dropped to match (a sort index for sortable types,
  on the working copy and on the published version; a unique index when the field is unique).
- A field's type changes: every stored value is converted by the new type, or the change is refused naming entries.
- A field is removed: its value is removed from every entry, and its indexes dropped.
- A collection is deleted: refused while it has entries unless forced; otherwise its indexes are dropped (the rows go
  with the collection's foreign keys).
"""

from __future__ import annotations

from django.db import IntegrityError, transaction

from apps.content.models import Entry
from apps.content.services import VALUE_CONTEXT
from apps.core.db.indexes import index_backend
from apps.core.errors import SchemaError
from apps.schema.field_types import FIELD_TYPES, FieldValueError
from apps.schema.models import Collection, Field

TABLE = Entry._meta.db_table
SAMPLE = 10


def index_names(field: Field) -> dict[str, str]:
    suffix = field.pk.lower()
    return {"data": f"cms_sd_{suffix}", "live_data": f"cms_sl_{suffix}", "unique": f"cms_uq_{suffix}"}


def _drop_indexes(field: Field) -> None:
    backend = index_backend()
    for name in index_names(field).values():
        backend.drop_index(name)


def sync_indexes(collection: Collection, field: Field, previous: dict | None) -> None:
    backend = index_backend()
    names = index_names(field)
    field_type = FIELD_TYPES[field.type]
    type_changed = previous is None or previous["type"] != field.type
    if type_changed:
        for column in ("data", "live_data"):
            backend.drop_index(names[column])
            if field_type.sortable:
                backend.create_sort_index(
                    name=names[column],
                    table=TABLE,
                    json_column=column,
                    key=field.slug,
                    numeric=field_type.numeric,
                    scope_column="collection_id",
                    scope=collection.pk,
                )
    unique_before = bool(previous and previous["unique"]) and not type_changed
    if field.unique and not unique_before:
        backend.drop_index(names["unique"])
        _refuse_duplicates(collection, field)
        try:
            with transaction.atomic():
                backend.create_unique_index(
                    name=names["unique"],
                    table=TABLE,
                    json_column="data",
                    key=field.slug,
                    scope_column="collection_id",
                    scope=collection.pk,
                    per_column="locale",
                )
        except IntegrityError:
            raise SchemaError(
                f"Existing entries repeat values of '{field.slug}'; it cannot be made unique."
            ) from None
    elif not field.unique:
        backend.drop_index(names["unique"])


def _refuse_duplicates(collection: Collection, field: Field) -> None:
    seen: dict[tuple[str, str], str] = {}
    clashes: dict[str, str] = {}
    rows = Entry.objects.filter(collection=collection, deleted_at__isnull=True).values_list(
        "pk", "locale", "data"
    )
    for entry_id, locale, data in rows.iterator(chunk_size=1000):
        if field.slug not in data:
            continue
        key = (locale, repr(data[field.slug]))
        if key in seen:
            clashes[entry_id] = f"Has the same {field.slug} as entry {seen[key]} ({data[field.slug]!r})."
            if len(clashes) >= SAMPLE:
                break
        else:
            seen[key] = entry_id
    if clashes:
        raise SchemaError(
            f"'{field.slug}' cannot be unique: entries of '{collection.slug}' share values. Change them first.",
            details=clashes,
        )


def on_field_saved(sender, *, collection: Collection, field: Field, previous: dict | None, **kwargs) -> None:
    sync_indexes(collection, field, previous)


def on_field_type_changing(
    sender, *, collection: Collection, field: Field, previous_type: str, **kwargs
) -> None:
    """Convert every stored value (working copies and published versions, trash included) to the new type."""
    field_type = FIELD_TYPES[field.type]
    failures: dict[str, str] = {}
    updates: list[Entry] = []
    rows = Entry.objects.filter(collection=collection).only("id", "data", "live_data")
    for entry in rows.iterator(chunk_size=500):
        changed = False
        for column in ("data", "live_data"):
            values = getattr(entry, column)
            if not values or field.slug not in values or values[field.slug] is None:
                continue
            try:
                converted = field_type.normalize(
                    values[field.slug],
                    validation=field.validation or {},
                    options=field.options or {},
                    context=VALUE_CONTEXT,
                )
            except FieldValueError as exc:
                failures.setdefault(
                    entry.pk, f"{values[field.slug]!r} cannot become {field.type}: {exc.message}"
                )
                continue
            if converted != values[field.slug]:
                setattr(entry, column, {**values, field.slug: converted})
                changed = True
        if changed:
            updates.append(entry)
        if len(failures) >= SAMPLE:
            break
    if failures:
        raise SchemaError(
            f"Cannot change '{field.slug}' from {previous_type} to {field.type}: some stored values do not convert.",
            details=failures,
        )
    Entry.objects.bulk_update(updates, ["data", "live_data"], batch_size=500)


def on_field_removing(sender, *, collection: Collection, field: Field, **kwargs) -> None:
    _drop_indexes(field)
    index_backend().remove_json_key(
        table=TABLE,
        columns=("data", "live_data"),
        key=field.slug,
        scope_column="collection_id",
        scope=collection.pk,
    )


def on_collection_deleting(sender, *, collection: Collection, force: bool, **kwargs) -> None:
    count = Entry.objects.filter(collection=collection).count()
    if count and not force:
        raise SchemaError(
            f"The collection '{collection.slug}' has {count} entr{'y' if count == 1 else 'ies'} (trash included); "
            "delete them first or pass force=true to delete the collection with its entries.",
            details={"entries": count},
        )
    for field in collection.fields.all():
        _drop_indexes(field)
