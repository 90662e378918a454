from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "apps.accounts"
    label = "accounts"
    verbose_name = "Accounts"

    def ready(self) -> None:
        # Registers the OpenAPI security schemes of our authentication classes.
        from apps.accounts.api import schema  # noqa: F401
