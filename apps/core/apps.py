from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "apps.core"
    label = "core"
    verbose_name = "Core"

    def ready(self) -> None:
        from apps.core import readiness, replicas

        readiness.register_core_checks()
        readiness.register("replica", replicas.readiness_check)
