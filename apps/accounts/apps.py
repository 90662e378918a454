from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "apps.accounts"
    label = "accounts"
    verbose_name = "Accounts"

    def ready(self) -> None:
        # Registers the OpenAPI security schemes of our authentication classes.
        from apps.accounts import permissions
        from apps.accounts.api import schema  # noqa: F401
        from apps.accounts.models import Role

        # Managing users (SPEC §4.8 /admin/users) is the admins' job, with an admin-scoped credential.
        permissions.register({"users.manage": permissions.Rule("admin", Role.ADMIN)})
