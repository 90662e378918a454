from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "apps.webhooks"
    label = "webhooks"
    verbose_name = "Webhooks"

    def ready(self) -> None:
        from apps.accounts import permissions
        from apps.accounts.models import Role
        from apps.background import registry
        from apps.core import events
        from apps.webhooks import receivers, tasks

        # Endpoints see every change and hold signing secrets: configuration, for admins.
        permissions.register({"webhooks.manage": permissions.Rule("admin", Role.ADMIN)})
        registry.periodic(tasks.deliver_webhooks, every=1, needed=tasks.work_waiting)
        connections = (
            (events.entry_changed, receivers.on_entry_changed),
            (events.entries_created, receivers.on_entries_created),
            (events.entry_deleting, receivers.on_entry_deleting),
            (events.media_changed, receivers.on_media_changed),
            (events.collection_changed, receivers.on_collection_changed),
            (events.collection_deleting, receivers.on_collection_deleting),
            (events.field_saved, receivers.on_field_saved),
            (events.field_removing, receivers.on_field_removing),
            (events.taxonomy_changed, receivers.on_taxonomy_changed),
            (events.term_changed, receivers.on_term_changed),
            (events.menu_changed, receivers.on_menu_changed),
            (events.section_changed, receivers.on_section_changed),
            (events.widget_changed, receivers.on_widget_changed),
            (events.widget_area_changed, receivers.on_widget_area_changed),
            (events.settings_changed, receivers.on_settings_changed),
            (events.import_finished, receivers.on_import_finished),
        )
        for signal, receiver in connections:
            signal.connect(receiver, dispatch_uid=f"webhooks.{receiver.__name__}")
