"""Navigation menus and their items, ordered and nested (SPEC §2.7).

An item links somewhere by type: ``custom`` (its own ``url``), ``content`` (an entry: ``reference_collection`` is the
collection's slug, ``reference_id`` the entry's id) or ``taxonomy`` (a term: the taxonomy's name and the term's id).
References are resolved when the menu is read, so a renamed entry shows its new slug and a deleted one is flagged
rather than silently dropped. Items form a forest through ``parent``; siblings are ordered by ``sort_order``.
"""

from __future__ import annotations

from django.db import models

from apps.core.models import TimestampedModel


class Menu(TimestampedModel):
    name = models.CharField(max_length=63, unique=True)
    label = models.CharField(max_length=200)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class ItemType(models.TextChoices):
    CUSTOM = "custom"
    CONTENT = "content"
    TAXONOMY = "taxonomy"


class MenuItem(TimestampedModel):
    menu = models.ForeignKey(Menu, on_delete=models.CASCADE, related_name="items")
    # Deleting an item moves its children up first (services); SET_NULL only guards rows changed outside them.
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="children"
    )
    type = models.CharField(max_length=16, choices=ItemType.choices)
    label = models.CharField(max_length=200, blank=True)
    url = models.CharField(max_length=2000, blank=True)
    reference_collection = models.CharField(max_length=63, blank=True)
    reference_id = models.CharField(max_length=26, blank=True)
    sort_order = models.IntegerField(default=0)

    class Meta:
        ordering = ["menu", "sort_order", "created_at"]
        indexes = [models.Index(fields=["menu", "sort_order"], name="menus_item_order")]

    def __str__(self) -> str:
        return self.label or f"{self.type} item"
