from django.db import models


class WorkerBeat(models.Model):
    """One running ``manage.py worker`` process: which queues it serves and when it last said it was alive.

    A worker killed outright cannot say it stopped; its row simply goes stale, and after CMS_WORKER_DEAD_SECONDS the
    tasks it was running go back to their queues (``tasks.recover_orphans``)."""

    worker_id = models.CharField(max_length=64, primary_key=True)
    host = models.CharField(max_length=255)
    pid = models.IntegerField()
    queues = models.JSONField(default=list)
    started_at = models.DateTimeField()
    seen_at = models.DateTimeField(db_index=True)
    # Tasks finished by this process since it started, and how many of them failed.
    finished = models.IntegerField(default=0)
    failed = models.IntegerField(default=0)

    class Meta:
        ordering = ["-seen_at"]
        verbose_name = "worker process"
        verbose_name_plural = "worker processes"

    def __str__(self) -> str:
        return f"{self.host}:{self.pid}"
