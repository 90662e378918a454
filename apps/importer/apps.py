from django.apps import AppConfig


class ImporterConfig(AppConfig):
    name = "apps.importer"
    label = "importer"
    verbose_name = "Import"

    def ready(self) -> None:
        from apps.accounts import permissions
        from apps.accounts.models import Role
        from apps.background import registry
        from apps.core import readiness
        from apps.importer import checks, jobs, tasks  # noqa: F401  (checks registers itself)
        from apps.importer.storage import ALIAS
        from apps.media.storage import storage_readiness

        permissions.register(
            {
                # An import writes collections, fields, taxonomies, menus, sections, bylines and media, and fetches
                # URLs given by the caller: the admin scope and role (docs/decisions.md).
                "import.run": permissions.Rule("admin", Role.ADMIN),
            }
        )
        registry.periodic(tasks.import_jobs, every=10, needed=tasks.job_waiting)
        registry.on_stop("import_jobs", jobs.release_held)
        readiness.register("importStorage", storage_readiness(ALIAS, "import"))
