from django.apps import AppConfig


class ContentConfig(AppConfig):
    name = "apps.content"
    label = "content"
    verbose_name = "Content"

    def ready(self) -> None:
        from apps.accounts import permissions
        from apps.accounts.models import Role
        from apps.background import registry
        from apps.content import receivers, tasks
        from apps.core import events

        Rule = permissions.Rule
        permissions.register(
            {
                # Reading published entries; drafts, trash, revisions and compare need "content.read_drafts".
                # Anonymous readers (issue 22): published entries of public collections only (the selector says).
                "content.read": Rule("content:read", Role.SUBSCRIBER, anonymous=True),
                "content.read_drafts": Rule("content:read", Role.CONTRIBUTOR),
                "content.create": Rule("content:write", Role.CONTRIBUTOR),
                "content.update": Rule("content:write", Role.CONTRIBUTOR, any_role=Role.EDITOR),
                "content.publish": Rule("content:write", Role.AUTHOR, any_role=Role.EDITOR),
                "content.delete": Rule("content:write", Role.CONTRIBUTOR, any_role=Role.EDITOR),
                "content.delete_permanent": Rule("content:write", Role.ADMIN),
                "bylines.manage": Rule("content:write", Role.EDITOR),
                # Where a media item is used: the entries listed include drafts, hence the drafts reader's role.
                "media.usages": Rule("content:read", Role.CONTRIBUTOR),
                # Converting pasted HTML to Portable Text writes nothing, but only those who write content paste.
                "content.convert": Rule("content:write", Role.CONTRIBUTOR),
            }
        )
        events.field_saved.connect(receivers.on_field_saved, dispatch_uid="content.field_saved")
        events.field_type_changing.connect(
            receivers.on_field_type_changing, dispatch_uid="content.field_type"
        )
        events.field_removing.connect(receivers.on_field_removing, dispatch_uid="content.field_removing")
        events.collection_deleting.connect(
            receivers.on_collection_deleting, dispatch_uid="content.collection_deleting"
        )
        registry.periodic(tasks.publish_scheduled, every=30, needed=tasks.any_due)
