from django.apps import AppConfig


class PluginsConfig(AppConfig):
    name = "apps.plugins"
    label = "plugins"
    verbose_name = "Plugins"

    def ready(self) -> None:
        from django.conf import settings
        from django.core.signals import request_started
        from django_tasks.signals import task_started

        from apps.accounts import permissions
        from apps.accounts.models import Role
        from apps.background import registry as background
        from apps.core import events
        from apps.plugins import receivers, registry, tasks

        Rule = permissions.Rule
        permissions.register(
            {
                "plugins.manage": Rule("admin", Role.ADMIN),
                "audit.read": Rule("admin", Role.ADMIN),
            }
        )
        registry.load(settings.CMS_PLUGINS)
        # Enabled flags are read again by each request and each task (another process may have changed them).
        request_started.connect(registry.invalidate, dispatch_uid="plugins.invalidate")
        task_started.connect(registry.invalidate, dispatch_uid="plugins.invalidate_task")
        background.periodic(tasks.prune_audit_log, every=3600, needed=tasks.audit_expired)
        events.entry_changed.connect(receivers.on_entry_changed, dispatch_uid="plugins.entry_changed")
        events.entries_created.connect(receivers.on_entries_created, dispatch_uid="plugins.entries_created")
        events.entry_deleting.connect(receivers.on_entry_deleting, dispatch_uid="plugins.entry_deleting")
        events.media_changed.connect(receivers.on_media_changed, dispatch_uid="plugins.media_changed")
