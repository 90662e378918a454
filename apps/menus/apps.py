from django.apps import AppConfig


class MenusConfig(AppConfig):
    name = "apps.menus"
    label = "menus"
    verbose_name = "Menus"

    def ready(self) -> None:
        from apps.accounts import permissions
        from apps.accounts.models import Role

        Rule = permissions.Rule
        permissions.register(
            {
                # SPEC §5: content:read lists menus. Changing the site's navigation is an editor's job.
                # Anonymous readers while a collection is public (issue 22): a site renders its navigation.
                "menus.read": Rule("content:read", Role.SUBSCRIBER, anonymous=True),
                "menus.write": Rule("content:write", Role.EDITOR),
            }
        )
