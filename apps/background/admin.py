"""The operators' view of background work in the Django admin: the worker processes, with the state of every queue
above them (django_tasks_db's own admin lists the task records, filterable by queue and status). With the RQ
backend the same page reads Redis: RQ's queues and registries, and the RQ workers registered there."""

from __future__ import annotations

import redis
from django.contrib import admin

from apps.background import rqbroker, selectors
from apps.background.models import WorkerBeat


@admin.register(WorkerBeat)
class WorkerBeatAdmin(admin.ModelAdmin):
    change_list_template = "admin/background/workerbeat/change_list.html"
    list_display = ("host", "pid", "queue_list", "started_at", "seen_at", "finished", "failed")
    ordering = ("-seen_at",)
    actions = None  # rows come and go with the processes; nothing to do to them here

    @admin.display(description="queues")
    def queue_list(self, beat: WorkerBeat) -> str:
        return ", ".join(beat.queues)

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def changelist_view(self, request, extra_context=None):
        context = {**(extra_context or {}), "rq": rqbroker.in_use()}
        try:
            workers = selectors.live_workers()
            context.update(
                queues=selectors.queue_states(),
                unserved=selectors.unserved_queues(workers),
                live_workers=len(workers),
                rq_workers=workers if context["rq"] else [],
            )
        except redis.RedisError:
            context["broker_down"] = True
        return super().changelist_view(request, context)
