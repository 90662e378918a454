"""Webhook deliveries as tasks on the ``webhooks`` queue.

The outbox rows are the truth (an event, then one delivery per endpoint with its attempts and lease); the task only
works through what is due. A content write adds no task: the sweep's check (two indexed reads each second per
worker) finds new events, so the write path costs exactly the outbox INSERT and nothing more.
"""

from __future__ import annotations

from django.conf import settings
from django_tasks import task

from apps.background.queues import WEBHOOKS, enqueue


def work_waiting() -> bool:
    from apps.webhooks import delivery

    return delivery.work_waiting()


@task(queue_name=WEBHOOKS)
def deliver_webhooks() -> int:
    """Fan new events out and send one batch of due deliveries; while a full batch went out, enqueue the next."""
    from apps.webhooks import delivery

    sent = delivery.run_pass()
    if sent >= settings.CMS_WEBHOOK_BATCH_SIZE:
        enqueue(deliver_webhooks)
    return sent
