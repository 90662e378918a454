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
                "widgets.read": Rule("content:read", Role.SUBSCRIBER),
                "widgets.write": Rule("content:write", Role.EDITOR),
                "sections.read": Rule("content:read", Role.SUBSCRIBER),
                "sections.write": Rule("content:write", Role.EDITOR),
                "settings.read": Rule("content:read", Role.SUBSCRIBER),
                # Site settings are configuration: the admin scope and role.
                "settings.write": Rule("admin", Role.ADMIN),
            }
        )
