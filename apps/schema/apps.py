from django.apps import AppConfig


class SchemaConfig(AppConfig):
    name = "apps.schema"
    label = "schema"
    verbose_name = "Schema"

    def ready(self) -> None:
        from apps.accounts import permissions
        from apps.accounts.models import Role
        from apps.core.db.request_scalars import register_request_scalar
        from apps.schema import selectors

        register_request_scalar(selectors.REQUEST_SCALAR, selectors.version_token_expression)

        permissions.register(
            {
                "schema.read": permissions.Rule("schema:read", Role.EDITOR),
                "schema.write": permissions.Rule("schema:write", Role.ADMIN),
            }
        )
        # Anonymous reads exist only while a collection is public (issue 22).
        permissions.register_public_site(selectors.site_is_public)
