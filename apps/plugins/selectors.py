"""Reads of plugins (what is installed, with its stored state) and of the audit log.

The reads a face answers (``plugin_list``, ``plugin_read``, ``audit_list``) check their operation themselves;
``plugin_get`` shows the result of a write, which its service authorized."""

from __future__ import annotations

from dataclasses import dataclass

from apps.accounts.permissions import Actor, authorize
from apps.core.errors import NotFound
from apps.core.pagination import Page, SortKey, keyset_page
from apps.plugins import registry
from apps.plugins.models import AuditEvent, PluginState

AUDIT_ORDER = (SortKey("at", descending=True, kind="datetime"), SortKey("id", descending=True))


@dataclass
class PluginView:
    entry: registry.Installed
    state: PluginState | None

    @property
    def enabled(self) -> bool:
        return self.state.enabled if self.state is not None else True


def plugin_list(*, actor: Actor | None) -> list[PluginView]:
    authorize(actor, "plugins.manage")
    states = {state.plugin_id: state for state in PluginState.objects.all()}
    return [PluginView(entry, states.get(entry.id)) for entry in registry.installed()]


def plugin_read(*, actor: Actor | None, plugin_id: str) -> PluginView:
    authorize(actor, "plugins.manage")
    return plugin_get(plugin_id=plugin_id)


def plugin_get(*, plugin_id: str) -> PluginView:
    entry = registry.get(plugin_id)
    if entry is None:
        known = ", ".join(item.id for item in registry.installed()) or "none"
        raise NotFound(f"No plugin '{plugin_id}' is installed; installed: {known}.")
    return PluginView(entry, PluginState.objects.filter(plugin_id=plugin_id).first())


def editor_block_types() -> list[dict]:
    """The block types enabled plugins contribute, as the rich-text editor needs them to offer an insert menu and a
    form: name, title, description and the declared JSON Schema of their fields. Like the validator's list of known
    types, this is schema, not content: any signed-in studio page may show it."""
    return [
        {
            "name": block_type.name,
            "title": (block_type.schema or {}).get("title") or block_type.name,
            "description": block_type.description,
            "plugin": entry.id,
            "schema": block_type.schema or {"type": "object", "properties": {}},
        }
        for entry in registry.active()
        for block_type in entry.block_types
    ]


def audit_list(
    *,
    actor: Actor | None,
    action: str | None = None,
    object_type: str | None = None,
    object_id: str | None = None,
    actor_id: str | None = None,
    cursor: str | None = None,
    limit: int = 50,
) -> Page[AuditEvent]:
    """Newest first, optionally narrowed to one action, one object or one actor."""
    authorize(actor, "audit.read")
    events = AuditEvent.objects.all()
    filters = {"action": action, "object_type": object_type, "object_id": object_id, "actor_id": actor_id}
    events = events.filter(**{name: value for name, value in filters.items() if value})
    return keyset_page(events, keys=AUDIT_ORDER, cursor=cursor, limit=limit, scope="audit")
