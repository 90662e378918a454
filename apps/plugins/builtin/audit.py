"""The audit log: who created, changed, published, unpublished or deleted which entry, and who uploaded, changed or
deleted which media item, recorded in the same transaction as the change (``GET /_cms/api/audit-log``, and read-only
in the Django admin). Disabling the plugin stops the recording; the log already written stays readable.
"""

from __future__ import annotations

from apps.core.db.bulk import bulk_insert
from apps.core.timefmt import now
from apps.plugins.base import Plugin
from apps.plugins.models import AuditEvent


def _actor_fields(actor) -> dict:
    user = getattr(actor, "user", None)
    via = getattr(actor, "via", "system")
    return {"actor": user, "actor_label": user.email if user is not None else via, "via": via}


def _event(hook: str, *, object_type: str, object_id: str, detail: str, summary: dict, actor) -> AuditEvent:
    return AuditEvent(
        at=now(),
        action=hook,
        detail=detail,
        object_type=object_type,
        object_id=object_id,
        summary=summary,
        **_actor_fields(actor),
    )


def _entry_event(hook: str, *, entry, action: str, actor, **_) -> AuditEvent:
    summary = {"collection": entry.collection.slug, "slug": entry.slug, "status": entry.status}
    return _event(hook, object_type="entry", object_id=entry.pk, detail=action, summary=summary, actor=actor)


def _entry_hook(hook: str):
    def record(**payload) -> None:
        _entry_event(hook, **payload).save(force_insert=True)

    return record


def _entry_batch_hook(hook: str):
    def record(payloads: list[dict]) -> None:
        # One INSERT for an import's batch rather than one per entry.
        bulk_insert([_entry_event(hook, **payload) for payload in payloads])

    return record


def _media_hook(hook: str):
    def record(*, media, action: str, actor, deduplicated: bool = False, **_) -> None:
        if deduplicated:
            return  # nothing was stored: the existing item was returned
        summary = {"filename": media.filename, "mimeType": media.mime_type}
        _event(
            hook, object_type="media", object_id=media.pk, detail=action, summary=summary, actor=actor
        ).save(force_insert=True)

    return record


class AuditLogPlugin(Plugin):
    id = "audit-log"
    name = "Audit log"
    version = "1.0.0"
    description = "Records who changed which entry or media item, and how."

    def hooks(self):
        entry_hooks = (
            "content.create",
            "content.update",
            "content.publish",
            "content.unpublish",
            "content.delete",
        )
        media_hooks = ("media.upload", "media.update", "media.delete")
        return {
            **{hook: _entry_hook(hook) for hook in entry_hooks},
            **{hook: _media_hook(hook) for hook in media_hooks},
        }

    def batch_hooks(self):
        return {"content.create": _entry_batch_hook("content.create")}


plugin = AuditLogPlugin
