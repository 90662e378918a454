"""Domain events (apps/core/events.py) turned into plugin hooks (apps/plugins/base.py HOOKS)."""

from __future__ import annotations

from apps.plugins import registry

CONTENT_HOOKS = {
    "create": "content.create",
    "publish": "content.publish",
    "unpublish": "content.unpublish",
    "trash": "content.delete",
}
MEDIA_HOOKS = {
    "upload": "media.upload",
    "create": "media.upload",
    "update": "media.update",
    "delete": "media.delete",
}


def on_entry_changed(sender, *, entry, action: str, actor, **kwargs) -> None:
    # Every other action (update, schedule, restore, discard_draft, revision_restore, translation_sync) edits an
    # existing entry: content.update, with the action saying which.
    hook = CONTENT_HOOKS.get(action, "content.update")
    payload = {"entry": entry, "action": action, "actor": actor}
    if hook == "content.delete":
        payload["permanent"] = False
    registry.dispatch(hook, **payload)


def on_entries_created(sender, *, entries, actor, **kwargs) -> None:
    registry.dispatch_many(
        "content.create", [{"entry": entry, "action": "create", "actor": actor} for entry in entries]
    )


def on_entry_deleting(sender, *, entry, actor, **kwargs) -> None:
    registry.dispatch("content.delete", entry=entry, action="delete", permanent=True, actor=actor)


def on_media_changed(sender, *, media, action: str, actor, deduplicated: bool = False, **kwargs) -> None:
    payload = {"media": media, "action": action, "actor": actor}
    if action in ("upload", "create"):
        payload["deduplicated"] = deduplicated
    registry.dispatch(MEDIA_HOOKS[action], **payload)
