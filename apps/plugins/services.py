"""Enabling and disabling plugins. The state is a database row, so every process sees the change at its next
request (apps/plugins/registry.py)."""

from __future__ import annotations

from django.db import transaction

from apps.accounts.permissions import Actor, authorize
from apps.core.errors import NotFound
from apps.plugins import registry
from apps.plugins.models import PluginState


@transaction.atomic
def plugin_set_enabled(*, actor: Actor, plugin_id: str, enabled: bool) -> PluginState:
    authorize(actor, "plugins.manage")
    if registry.get(plugin_id) is None:
        known = ", ".join(entry.id for entry in registry.installed()) or "none"
        raise NotFound(f"No plugin '{plugin_id}' is installed; installed: {known}.")
    state, _ = PluginState.objects.select_for_update().get_or_create(plugin_id=plugin_id)
    state.enabled = enabled
    state.updated_by = actor.user
    state.save()
    registry.changed_on_commit()
    return state
