"""Plugins and audit events as every face shows them (SPEC §4.6): each shape once, with the function that builds it."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from apps.core.shapes import JsonObject, Timestamp, TypedDict
from apps.core.timefmt import iso
from apps.plugins.models import AuditEvent
from apps.plugins.selectors import PluginView


class ContributionsOut(TypedDict):
    blockTypes: Annotated[list[str], Field(description="Portable Text block types.")]
    mcpTools: Annotated[list[str], Field(description="Tool server tools.")]
    importSources: Annotated[list[str], Field(description="Import source ids.")]
    hooks: Annotated[list[str], Field(description="Hooks it receives.")]


class PluginOut(TypedDict):
    id: str
    name: str
    version: str
    description: str
    enabled: Annotated[bool, Field(description="Disabled plugins contribute nothing until enabled again.")]
    contributions: ContributionsOut
    updatedAt: Annotated[Timestamp | None, Field(description="Last enabled or disabled; null if never.")]


class PluginListOut(TypedDict):
    items: list[PluginOut]


class AuditEventOut(TypedDict):
    id: str
    at: str
    action: Annotated[
        str,
        Field(
            description="content.create, content.update, content.publish, content.unpublish, content.delete, "
            "media.upload, media.update or media.delete."
        ),
    ]
    detail: Annotated[str, Field(description="The precise change: trash, restore, schedule, …")]
    objectType: str
    objectId: str
    summary: Annotated[
        JsonObject, Field(description="The object as it was: collection and slug, or filename.")
    ]
    actorId: str | None
    actorLabel: Annotated[str, Field(description="The user's email, or 'system'.")]
    via: Annotated[str, Field(description="token, session or system.")]


def present_plugin(view: PluginView) -> PluginOut:
    entry = view.entry
    return {
        "id": entry.id,
        "name": entry.plugin.name,
        "version": entry.plugin.version,
        "description": entry.plugin.description,
        "enabled": view.enabled,
        "contributions": {
            "blockTypes": [block_type.name for block_type in entry.block_types],
            "mcpTools": [tool.name for tool in entry.mcp_tools],
            "importSources": [source.id for source in entry.import_sources],
            "hooks": sorted(entry.hooks),
        },
        "updatedAt": iso(view.state.updated_at) if view.state is not None else None,
    }


def present_plugins(views: list[PluginView]) -> PluginListOut:
    return {"items": [present_plugin(view) for view in views]}


def present_audit_event(event: AuditEvent) -> AuditEventOut:
    return {
        "id": event.pk,
        "at": iso(event.at),
        "action": event.action,
        "detail": event.detail,
        "objectType": event.object_type,
        "objectId": event.object_id,
        "summary": event.summary,
        "actorId": event.actor_id,
        "actorLabel": event.actor_label,
        "via": event.via,
    }
