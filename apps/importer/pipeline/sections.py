"""Reusable blocks (``wp_block`` items) become sections, and the references to them in other items' content get the
section's id: at once when the block came first, in the links phase otherwise."""

from __future__ import annotations

from typing import Any

import orjson

from apps.core.errors import CmsError
from apps.core.slugs import free_slug, slugify
from apps.importer.items import JSON_DUMPS, ImportItem
from apps.importer.models import ImportRecord
from apps.importer.pipeline.state import RunState, checksum, reason
from apps.site import services as site_services
from apps.site.models import Section, SectionSource


class Sections:
    def __init__(self, state: RunState) -> None:
        self.state = state

    def write(self, item: ImportItem, record: ImportRecord | None) -> None:
        state = self.state
        fingerprint = checksum(item)
        section = Section.objects.filter(pk=record.target_id).first() if record else None
        if section is not None and record.checksum == fingerprint:
            state.counters["sectionsUnchanged"] += 1
            return
        title = item.title or f"Reusable block {item.source_id}"
        content = item.content if item.content is not None else []
        if item.content_problem:
            state.warn(
                item.content_problem["code"],
                f"Reusable block {item.source_id} '{item.title}': {item.content_problem['message']}",
                sourceId=item.source_id,
            )
        outcome = state.row(lambda: self._save(item, section, title, content))
        if isinstance(outcome, CmsError):
            state.failure(item, reason(outcome))
            return
        section = outcome
        state.put("section", item.source_id, target_id=section.pk, checksum=fingerprint)
        state.sections[str(item.source_id)] = section.pk

    def _save(self, item: ImportItem, section: Section | None, title: str, content: Any) -> Section:
        state = self.state
        if section is None:
            section = site_services.section_create(
                actor=state.system,
                title=title,
                slug=free_slug(Section.objects.all(), slugify(item.slug or title) or "section"),
                content=content,
                source=SectionSource.IMPORT,
            )
            state.counters["sections"] += 1
        else:
            section = site_services.section_update(
                actor=state.system, section=section, changes={"title": title, "content": content}
            )
            state.counters["sectionsUpdated"] += 1
        return section

    def section_id(self, ref: Any) -> str | None:
        state = self.state
        key = str(ref)
        if key not in state.sections:
            record = state.get("section", key)
            if record is None:
                return None
            state.sections[key] = record.target_id
        return state.sections[key]

    def resolve(self, blocks: Any) -> tuple[Any, bool]:
        """Blocks with ``sectionId`` added to reusable-block references; whether any reference is still open."""
        # Most posts reference no reusable block, and orjson finds that out far faster than a walk in Python (the walk
        # copied every post's tree). A string that merely equals the type's name only costs the walk.
        if b'"sectionReference"' not in orjson.dumps(blocks, **JSON_DUMPS):
            return blocks, False
        pending = False

        def walk(value: Any) -> Any:
            nonlocal pending
            if isinstance(value, list):
                return [walk(item) for item in value]
            if isinstance(value, dict):
                if value.get("_type") == "sectionReference" and value.get("ref") is not None:
                    section_id = self.section_id(value["ref"])
                    if section_id is None:
                        pending = True
                        return value
                    return {**value, "sectionId": section_id}
                return {key: walk(item) for key, item in value.items()}
            return value

        return walk(blocks), pending
