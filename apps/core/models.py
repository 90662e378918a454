"""Abstract bases for domain models: a ULID primary key generated in Python, and creation/update timestamps."""

from django.db import models

from apps.core.ids import new_id


class UlidModel(models.Model):
    id = models.CharField(primary_key=True, max_length=26, default=new_id, editable=False)

    class Meta:
        abstract = True


class TimestampedModel(UlidModel):
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True
