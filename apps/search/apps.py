from django.apps import AppConfig


class SearchConfig(AppConfig):
    name = "apps.search"
    label = "search"
    verbose_name = "Search"

    def ready(self) -> None:
        from apps.accounts import permissions
        from apps.accounts.models import Role
        from apps.background import registry
        from apps.core import events
        from apps.search import receivers, tasks

        Rule = permissions.Rule
        permissions.register(
            {
                # SPEC §5: content:read searches content; drafts need content.read_drafts as in content lists.
                # Anonymous readers while a collection is public (issue 22): published entries of public collections.
                "search.read": Rule("content:read", Role.SUBSCRIBER, anonymous=True),
                "search.stats": Rule("content:read", Role.EDITOR),
                "search.rebuild": Rule("admin", Role.ADMIN),
            }
        )
        registry.periodic(tasks.search_rebuild_jobs, every=10, needed=tasks.rebuild_waiting)
        events.entry_changed.connect(receivers.on_entry_changed, dispatch_uid="search.entry_changed")
        events.entries_created.connect(receivers.on_entries_created, dispatch_uid="search.entries_created")
        events.entry_deleting.connect(receivers.on_entry_deleting, dispatch_uid="search.entry_deleting")
        events.collection_search_changed.connect(
            receivers.on_collection_search_changed, dispatch_uid="search.collection_search_changed"
        )
        events.field_saved.connect(receivers.on_field_saved, dispatch_uid="search.field_saved")
        events.field_removing.connect(receivers.on_field_removing, dispatch_uid="search.field_removing")
        events.collection_deleting.connect(
            receivers.on_collection_deleting, dispatch_uid="search.collection_deleting"
        )
