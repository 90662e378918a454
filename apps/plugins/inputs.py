"""What the plugin and audit-log operations take (SPEC §4.6): one model per operation."""

from __future__ import annotations

from apps.core.shapes import Field, Input, Str, choice, cursor_param, limit_param

ObjectType = choice("entry", "media")


class AuditListIn(Input):
    cursor: Str = cursor_param()
    limit: int = limit_param(50)
    action: Str = Field(None, max_length=64, description="e.g. content.publish, media.delete.")
    objectType: ObjectType = None
    objectId: Str = Field(None, max_length=64)
    actorId: Str = Field(None, max_length=26)
