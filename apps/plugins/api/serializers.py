"""Plugin and audit-log shapes on the wire (SPEC §4.6), their presenters and OpenAPI documentation."""

from __future__ import annotations

from rest_framework import serializers

from apps.core.api.serializers import cursor_field, limit_field
from apps.core.timefmt import iso
from apps.plugins.models import AuditEvent
from apps.plugins.selectors import PluginView


class ContributionsOut(serializers.Serializer):
    blockTypes = serializers.ListField(child=serializers.CharField(), help_text="Portable Text block types.")
    mcpTools = serializers.ListField(child=serializers.CharField(), help_text="Tool server tools.")
    importSources = serializers.ListField(child=serializers.CharField(), help_text="Import source ids.")
    hooks = serializers.ListField(child=serializers.CharField(), help_text="Hooks it receives.")


class PluginOut(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField()
    version = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    enabled = serializers.BooleanField(help_text="Disabled plugins contribute nothing until enabled again.")
    contributions = ContributionsOut()
    updatedAt = serializers.DateTimeField(
        allow_null=True, help_text="Last enabled or disabled; null if never."
    )


class PluginListOut(serializers.Serializer):
    items = PluginOut(many=True)


class AuditListQuery(serializers.Serializer):
    cursor = cursor_field()
    limit = limit_field(default=50)
    action = serializers.CharField(
        required=False, max_length=64, help_text="e.g. content.publish, media.delete."
    )
    objectType = serializers.ChoiceField(choices=["entry", "media"], required=False)
    objectId = serializers.CharField(required=False, max_length=64)
    actorId = serializers.CharField(required=False, max_length=26)


class AuditEventOut(serializers.Serializer):
    id = serializers.CharField()
    at = serializers.DateTimeField()
    action = serializers.CharField(
        help_text="content.create, content.update, content.publish, content.unpublish, "
        "content.delete, media.upload, media.update or media.delete."
    )
    detail = serializers.CharField(
        allow_blank=True, help_text="The precise change: trash, restore, schedule, …"
    )
    objectType = serializers.CharField()
    objectId = serializers.CharField()
    summary = serializers.DictField(help_text="The object as it was: collection and slug, or filename.")
    actorId = serializers.CharField(allow_null=True)
    actorLabel = serializers.CharField(help_text="The user's email, or 'system'.")
    via = serializers.CharField(help_text="token, session or system.")


def present_plugin(view: PluginView) -> dict:
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


def present_audit_event(event: AuditEvent) -> dict:
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
