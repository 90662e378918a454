"""Plugin state (enabled or not, per plugin id) and the audit log kept by the built-in audit plugin.

A plugin listed in ``CMS_PLUGINS`` without a state row is enabled: installing it is the decision to use it; disabling
writes the row. Audit events name the actor by id and by label, so they stay readable after the user is deleted.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from apps.core.models import UlidModel


class PluginState(models.Model):
    plugin_id = models.CharField(primary_key=True, max_length=63)
    enabled = models.BooleanField(default=True)
    updated_at = models.DateTimeField(auto_now=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    def __str__(self) -> str:
        return f"{self.plugin_id}: {'enabled' if self.enabled else 'disabled'}"


class AuditEvent(UlidModel):
    at = models.DateTimeField()
    # The hook that recorded it: content.publish, media.delete, …
    action = models.CharField(max_length=64)
    # What the change was in detail (the domain event's action: trash, restore, upload, …).
    detail = models.CharField(max_length=64, blank=True)
    object_type = models.CharField(max_length=32)
    object_id = models.CharField(max_length=64)
    # A readable summary of the object at the time: collection and slug of an entry, filename of a media item.
    summary = models.JSONField(default=dict, blank=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    actor_label = models.CharField(max_length=254)
    via = models.CharField(max_length=16)

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [
            models.Index(fields=["at", "id"], name="plugins_audit_at"),
            models.Index(fields=["object_type", "object_id", "at"], name="plugins_audit_object"),
        ]

    def __str__(self) -> str:
        return f"{self.action} {self.object_type} {self.object_id} by {self.actor_label}"
