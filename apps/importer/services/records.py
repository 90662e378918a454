"""The importer's own rows, one at a time (the pipeline writes its records per batch), and the imported entries it
changes after their import (featured images, section references, rewritten URLs)."""

from __future__ import annotations

from typing import Any

from apps.accounts.permissions import Actor
from apps.content import services as content_services
from apps.content.models import Entry, Status
from apps.importer.models import ImportRecord


def record_get(site: str, kind: str, source_id: Any) -> ImportRecord | None:
    return ImportRecord.objects.filter(site=site, kind=kind, source_id=str(source_id)).first()


def record_put(site: str, kind: str, source_id: Any, **values: Any) -> ImportRecord:
    record, _ = ImportRecord.objects.update_or_create(
        site=site, kind=kind, source_id=str(source_id), defaults=values
    )
    return record


def write_imported_entry(entry: Entry, data: dict[str, Any]) -> None:
    """Change fields of an imported entry; a published one stays published with the change (unless an editor has
    unpublished draft changes waiting, which the import leaves alone)."""
    system = Actor.system()
    republish = entry.status == Status.PUBLISHED and entry.data == entry.live_data
    content_services.entry_update(
        actor=system, entry=entry, data=data, status=Status.PUBLISHED if republish else None
    )
