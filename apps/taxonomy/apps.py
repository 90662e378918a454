from django.apps import AppConfig


class TaxonomyConfig(AppConfig):
    name = "apps.taxonomy"
    label = "taxonomy"
    verbose_name = "Taxonomies"

    def ready(self) -> None:
        from apps.accounts import permissions
        from apps.accounts.models import Role
        from apps.taxonomy import selectors  # noqa: F401 (registers the terms read with every entry)

        Rule = permissions.Rule
        permissions.register(
            {
                # SPEC §5: content:read lists taxonomy terms, content:write creates them.
                # Anonymous readers while a collection is public (issue 22): a site renders its terms.
                "taxonomies.read": Rule("content:read", Role.SUBSCRIBER, anonymous=True),
                # A taxonomy's definition (which collections it applies to) is structure, like the schema.
                "taxonomies.write": Rule("schema:write", Role.ADMIN),
                "terms.create": Rule("content:write", Role.AUTHOR),
                "terms.manage": Rule("content:write", Role.EDITOR),
            }
        )
