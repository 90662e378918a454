"""Django admin for plugins (enable and disable through the plugin service) and the audit log (read-only)."""

from __future__ import annotations

from django.contrib import admin

from apps.accounts.permissions import Actor
from apps.plugins import registry, services
from apps.plugins.models import AuditEvent, PluginState


@admin.register(PluginState)
class PluginStateAdmin(admin.ModelAdmin):
    """One row per plugin whose state was ever changed; installed plugins without a row are enabled."""

    list_display = ("plugin_id", "installed", "enabled", "updated_at", "updated_by")
    readonly_fields = ("plugin_id", "enabled", "updated_at", "updated_by")
    actions = ["enable", "disable"]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(boolean=True)
    def installed(self, state: PluginState) -> bool:
        return registry.get(state.plugin_id) is not None

    def _set(self, request, queryset, enabled: bool) -> None:
        actor = Actor.for_session(request.user)
        for state in queryset:
            if registry.get(state.plugin_id) is not None:
                services.plugin_set_enabled(actor=actor, plugin_id=state.plugin_id, enabled=enabled)

    @admin.action(description="Enable selected plugins")
    def enable(self, request, queryset):
        self._set(request, queryset, True)

    @admin.action(description="Disable selected plugins")
    def disable(self, request, queryset):
        self._set(request, queryset, False)


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    list_display = ("at", "action", "detail", "object_type", "object_id", "actor_label", "via")
    list_filter = ("action", "object_type", "via")
    search_fields = ("object_id", "actor_label")
    date_hierarchy = "at"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
