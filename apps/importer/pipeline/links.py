"""The links phase: what could only be resolved once every item was in. Entries get the reusable blocks and the
featured images whose items came after theirs in the file, and the menus are built."""

from __future__ import annotations

from django.db import transaction

from apps.content.models import Entry
from apps.importer import services
from apps.importer.models import ImportRecord
from apps.importer.pipeline.menus import Menus
from apps.importer.pipeline.sections import Sections
from apps.importer.pipeline.state import RunState


class Links:
    def __init__(self, state: RunState, sections: Sections, menus: Menus) -> None:
        self.state = state
        self.sections = sections
        self.menus = menus

    def run(self) -> None:
        state = self.state
        with transaction.atomic():
            self._link_pending()
            state.flush()
        if state.options.get("includeMenus", True):
            with transaction.atomic():
                self.menus.build()
                state.flush()

    def _link_pending(self) -> None:
        state = self.state
        waiting = ImportRecord.objects.filter(site=state.site, kind="entry", payload__sectionRefs=True)
        for record in waiting:
            entry = Entry.objects.filter(pk=record.target_id, deleted_at__isnull=True).first()
            if entry is None or "content" not in entry.data:
                continue
            content, pending = self.sections.resolve(entry.data["content"])
            if content != entry.data["content"]:
                services.write_imported_entry(entry, {"content": content})
            if not pending:
                record.payload = {k: v for k, v in record.payload.items() if k != "sectionRefs"}
                record.save(update_fields=["payload", "updated_at"])
        waiting = ImportRecord.objects.filter(site=state.site, kind="entry", payload__featuredPending=True)
        for record in waiting:
            entry = Entry.objects.filter(pk=record.target_id, deleted_at__isnull=True).first()
            if entry is None or entry.data.get("featured_image"):
                continue
            image = state.featured_image(record.payload["featuredImage"])
            if image:
                services.write_imported_entry(entry, {"featured_image": image})
                record.payload = {k: v for k, v in record.payload.items() if k != "featuredPending"}
                record.save(update_fields=["payload", "updated_at"])
