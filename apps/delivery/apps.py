from django.apps import AppConfig


class DeliveryConfig(AppConfig):
    name = "apps.delivery"
    label = "delivery"
    verbose_name = "Delivery"

    def ready(self) -> None:
        from apps.accounts import permissions
        from apps.accounts.models import Role
        from apps.core import events
        from apps.delivery import receivers

        Rule = permissions.Rule
        permissions.register(
            {
                # What a path of the front end shows. Until collections can be public (issue 22's public reads), the
                # read of published content; the one rule to change when they can.
                "delivery.resolve": Rule("content:read", Role.SUBSCRIBER),
                # The sitemap lists only published entries of public collections: nothing a visitor cannot see.
                "delivery.sitemap": Rule(scope=None, public=True),
                "redirects.read": Rule("content:read", Role.CONTRIBUTOR),
                "redirects.write": Rule("content:write", Role.EDITOR),
                # Minting a preview token shows the working copy to whoever holds it: as reading drafts.
                "content.preview": Rule("content:read", Role.CONTRIBUTOR),
                # Reading with a preview token: the signed token is the credential, checked by
                # delivery.selectors.entry_preview_read (one entry, its working copy, until it expires).
                "content.preview_read": Rule(scope=None, public=True),
                # Saving a new preview secret revokes every token issued so far.
                "preview.revoke": Rule("admin", Role.ADMIN),
            }
        )
        events.entry_changed.connect(receivers.on_entry_changed, dispatch_uid="delivery.entry_changed")
        events.collection_url_changed.connect(
            receivers.on_collection_url_changed, dispatch_uid="delivery.collection_url_changed"
        )
