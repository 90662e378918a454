from django.apps import AppConfig


class SiteConfig(AppConfig):
    name = "apps.site"
    label = "site"
    verbose_name = "Site"

    def ready(self) -> None:
        from apps.accounts import permissions
        from apps.accounts.models import Role

        Rule = permissions.Rule
        permissions.register(
            {
                # Front ends read widgets, sections and settings with content:read; editors arrange the site.
                # Anonymous readers too while a collection is public (issue 22): a site renders with them. The
                # settings' answer holds only what a page shows (title, tagline, address, logo …), no configuration.
                "widgets.read": Rule("content:read", Role.SUBSCRIBER, anonymous=True),
                "widgets.write": Rule("content:write", Role.EDITOR),
                "sections.read": Rule("content:read", Role.SUBSCRIBER, anonymous=True),
                "sections.write": Rule("content:write", Role.EDITOR),
                "settings.read": Rule("content:read", Role.SUBSCRIBER, anonymous=True),
                # Site settings are configuration: the admin scope and role.
                "settings.write": Rule("admin", Role.ADMIN),
            }
        )
