from django.apps import AppConfig


class BackgroundConfig(AppConfig):
    name = "apps.background"
    label = "background"
    verbose_name = "Background work"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from apps.background import observe, registry, tasks

        observe.register()

        registry.periodic(tasks.recover_orphans, every=15, needed=tasks.orphans_possible)
        registry.periodic(tasks.prune_task_results, every=3600, needed=tasks.results_expired)
