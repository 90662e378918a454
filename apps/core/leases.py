"""Leases on the jobs ``manage.py worker`` runs (import jobs, search rebuild jobs): which worker a running job is.

A worker that runs a job renews a timestamp on its row as it goes. A worker killed outright cannot say it stopped,
so a running job whose timestamp is older than the lease is taken to be a dead worker's: any worker may take it
over, and nothing waits on it as if it were still running. Every change of hands is a conditional UPDATE on the
state and the timestamp the taker read, so of two workers reaching for the same job exactly one gets it, and a
worker that was too slow (its lease expired, another took the job) finds out at its next renewal and stops.

The timestamp is the last renewal, not the expiry: the lease's length is a setting read when it is checked, so a
deployment that lengthens it does not leave older jobs with their old, shorter leases.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q

from apps.core.timefmt import now


class LeaseLost(Exception):
    """The job was taken over by another worker (this one's lease had expired): stop without writing to it."""


@dataclass(frozen=True)
class Lease:
    """How one kind of job is leased: its model, the setting giving the lease's length in seconds, the timestamp
    its worker renews, and the states of a job waiting for a worker and of one being run."""

    model: type[models.Model]
    setting: str
    field: str = "updated_at"
    waiting: str = "queued"
    running: str = "running"

    def seconds(self) -> float:
        # Read at use: tests and deployments change the setting without recreating the lease.
        return getattr(settings, self.setting)

    def _cutoff(self) -> datetime:
        return now() - timedelta(seconds=self.seconds())

    def expired(self, job: models.Model) -> bool:
        """A running job whose worker has not renewed its lease for longer than the lease: that worker is gone."""
        renewed = getattr(job, self.field)
        return job.state == self.running and (renewed is None or renewed <= self._cutoff())

    def live(self) -> Q:
        """Running jobs whose worker is still there."""
        return Q(state=self.running, **{f"{self.field}__gt": self._cutoff()})

    def claimable(self) -> Q:
        """Jobs a worker may take: waiting ones, and running ones whose lease expired."""
        return (
            Q(state=self.waiting)
            | Q(state=self.running, **{f"{self.field}__lte": self._cutoff()})
            | Q(state=self.running, **{f"{self.field}__isnull": True})
        )

    def any_claimable(self) -> bool:
        """Whether a worker has a job to take (the periodic sweep's cheap check before it enqueues a run)."""
        return self.model.objects.filter(self.claimable()).exists()

    def take(self, pk: Any) -> datetime | None:
        """Take this job if a worker may (``claimable``): answers the lease's timestamp, or None."""
        stamp = now()
        taken = self.model.objects.filter(self.claimable(), pk=pk).update(
            state=self.running, **{self.field: stamp}
        )
        return stamp if taken else None

    def claim(self, *, order_by: str = "created_at", **changes: Any) -> tuple[Any, datetime] | None:
        """Take the oldest job a worker may take: it becomes running under a fresh lease, with ``changes`` applied.
        Answers its primary key and the lease's timestamp (to renew and release with), or None when there is none."""
        for job in self.model.objects.filter(self.claimable()).order_by(order_by)[:5]:
            stamp = now()
            taken = self.model.objects.filter(
                pk=job.pk, state=job.state, **{self.field: getattr(job, self.field)}
            ).update(state=self.running, **{self.field: stamp}, **changes)
            if taken:
                return job.pk, stamp
        return None

    def renew(self, pk: Any, stamp: datetime | None = None, **changes: Any) -> datetime | None:
        """Renew the lease (and apply ``changes``) while the job is still held under ``stamp`` (any running job
        when None). Answers the new timestamp, or None when another worker has taken the job over."""
        held = Q(pk=pk, state=self.running)
        if stamp is not None:
            held &= Q(**{self.field: stamp})
        renewed = now()
        if not self.model.objects.filter(held).update(**{self.field: renewed}, **changes):
            return None
        return renewed

    def release(self, pk: Any, stamp: datetime, **changes: Any) -> bool:
        """End the lease still held under ``stamp``: apply ``changes`` (a new state at least). False when another
        worker has taken the job over meanwhile, and nothing was written."""
        changes.setdefault(self.field, now())
        return bool(
            self.model.objects.filter(pk=pk, state=self.running, **{self.field: stamp}).update(**changes)
        )
