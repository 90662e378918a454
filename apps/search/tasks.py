"""Search rebuild jobs as tasks, on the queue of long bulk work (imports), where they hold up nothing urgent."""

from __future__ import annotations

from django_tasks import task

from apps.background.queues import IMPORTS


def rebuild_waiting() -> bool:
    from apps.search.models import REBUILD_JOB_LEASE

    return REBUILD_JOB_LEASE.any_claimable()


@task(queue_name=IMPORTS)
def search_rebuild_jobs() -> int:
    """Run the waiting rebuild (or take over one whose worker died); enqueued when a rebuild is asked for, and by
    the sweep behind it."""
    from apps.search.services import search_rebuild_jobs_run

    return search_rebuild_jobs_run()
