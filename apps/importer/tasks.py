"""Import jobs as tasks on the ``imports`` queue (long bulk work, in a thread of its own in every worker)."""

from __future__ import annotations

from django_tasks import task

from apps.background.queues import IMPORTS, enqueue


def job_waiting() -> bool:
    from apps.importer.models import JOB_LEASE

    return JOB_LEASE.any_claimable()


@task(queue_name=IMPORTS)
def import_jobs() -> int:
    """Run one slice of import work: go on with the job this worker holds, else take the oldest waiting job (or one
    whose worker died). Enqueued when a job is queued, again after each slice while there is more, and by the sweep
    behind it; the job's lease, not the task, says who runs it."""
    from apps.importer import jobs

    handled = jobs.run_queued()
    if handled and (jobs.holding() or job_waiting()):
        enqueue(import_jobs)
    return handled
