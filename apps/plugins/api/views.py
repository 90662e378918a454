"""``/_cms/api/plugins…`` (SPEC §4.6): installed plugins, enabling and disabling them; ``/_cms/api/audit-log``: what
the audit-log plugin recorded. Admins only."""

from __future__ import annotations

from apps.accounts.permissions import actor_from_request
from apps.core.api.views import CmsViewSet, endpoint, ok
from apps.core.shapes import paged
from apps.plugins import selectors, services
from apps.plugins.inputs import AuditListIn
from apps.plugins.presenters import (
    AuditEventOut,
    PluginListOut,
    PluginOut,
    present_audit_event,
    present_plugin,
    present_plugins,
)


class PluginViewSet(CmsViewSet):
    @endpoint("plugins.manage", response=PluginListOut, summary="List installed plugins")
    def list(self, request):
        """Every plugin named in the CMS_PLUGINS setting, with what it contributes and whether it is enabled."""
        return ok(present_plugins(selectors.plugin_list(actor=actor_from_request(request))))

    @endpoint("plugins.manage", response=PluginOut, summary="Get a plugin")
    def retrieve(self, request, pk: str):
        return ok(present_plugin(selectors.plugin_read(actor=actor_from_request(request), plugin_id=pk)))

    @endpoint("plugins.manage", response=PluginOut, summary="Enable a plugin")
    def enable(self, request, pk: str):
        services.plugin_set_enabled(actor=actor_from_request(request), plugin_id=pk, enabled=True)
        return ok(present_plugin(selectors.plugin_get(plugin_id=pk)))

    @endpoint("plugins.manage", response=PluginOut, summary="Disable a plugin")
    def disable(self, request, pk: str):
        """Its block types, tools, import sources and hooks stop at once, in every process."""
        services.plugin_set_enabled(actor=actor_from_request(request), plugin_id=pk, enabled=False)
        return ok(present_plugin(selectors.plugin_get(plugin_id=pk)))


class AuditLogViewSet(CmsViewSet):
    @endpoint("audit.read", query=AuditListIn, response=paged(AuditEventOut), summary="Read the audit log")
    def list(self, request):
        """Newest first. Recorded by the audit-log plugin while it is enabled."""
        page = selectors.audit_list(
            actor=actor_from_request(request),
            action=self.query.get("action"),
            object_type=self.query.get("objectType"),
            object_id=self.query.get("objectId"),
            actor_id=self.query.get("actorId"),
            cursor=self.query.get("cursor"),
            limit=self.query["limit"],
        )
        return ok(page.to_data(present_audit_event))
