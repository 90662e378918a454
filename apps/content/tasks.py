"""Scheduled publishing as tasks: one delayed task per scheduled time, and a periodic sweep behind it."""

from __future__ import annotations

from django_tasks import task

from apps.background.queues import PUBLISHING


def any_due() -> bool:
    from apps.content.services import lifecycle

    return lifecycle.any_due()


@task(queue_name=PUBLISHING)
def publish_scheduled() -> int:
    """Publish every scheduled entry that is due. Enqueued for each entry's time when it is scheduled (so it goes
    live within a poll of its time) and every half minute as a sweep (a lost task, a clock moved); running it twice
    publishes nothing twice (``publish_due``)."""
    from apps.content.services import publish_due

    return len(publish_due())
