"""The media phase (when ``includeMedia`` is set): every attachment downloaded and stored through the media service
(``services.media_import``), then the old URLs in imported content replaced by the new ones."""

from __future__ import annotations

from typing import Any

from apps.core import metrics
from apps.importer import services
from apps.importer.models import ImportRecord
from apps.importer.pipeline.state import MAX_LISTED, RunState


def run(state: RunState) -> None:
    attachments = [
        {"id": record.source_id, "url": record.payload.get("url")}
        for record in ImportRecord.objects.filter(site=state.site, kind="attachment").order_by("source_id")
        if record.payload.get("url")
    ]

    def downloaded(event: dict[str, Any]) -> None:
        # The job's answer shows the downloads going on (each can take seconds), and its lease is renewed.
        if state.renewal_due():
            state.media = {"current": event["current"], "total": event["total"]}
            state.save()

    result = services.media_import(
        actor=state.system, attachments=attachments, site=state.site, progress=downloaded
    )
    state.media = {"imported": result["imported"], "failed": result["failed"][:MAX_LISTED]}
    state.counters["media"] = result["imported"]
    metrics.imported("media", result["imported"])
    if result["urlMap"]:
        rewritten = services.rewrite_urls(
            actor=state.system, url_map=result["urlMap"], progress=state.keep_alive
        )
        state.media["urlsRewritten"] = rewritten["urlsReplaced"]
