from django.apps import AppConfig


class StudioConfig(AppConfig):
    name = "apps.studio"
    label = "studio"
    verbose_name = "Studio"

    def ready(self) -> None:
        from apps.accounts import permissions
        from apps.accounts.models import Role

        # Who may open the studio at all: the roles that may write content (docs/studio.md). What each page then
        # shows and allows comes from the operations of the services it calls, never from this rule.
        permissions.register({"studio.use": permissions.Rule("content:write", Role.CONTRIBUTOR)})
