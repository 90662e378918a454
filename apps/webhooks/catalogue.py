"""The event types webhooks can subscribe to: each name once, with what it means (docs/webhooks.md lists them).

A subscription names event types exactly, or a whole group with ``<group>.*`` (``entry.*``, ``schema.field.*``), or
every event with ``*``. The names are stable: receivers switch on them.
"""

from __future__ import annotations

from fnmatch import fnmatchcase

EVENT_TYPES: dict[str, str] = {
    "entry.created": "An entry was created (also each entry an import creates).",
    "entry.updated": "An entry's working copy, draft discard, revision restore or translation sync changed it.",
    "entry.published": "An entry was published (or republished).",
    "entry.unpublished": "A published entry went back to draft.",
    "entry.scheduled": "An entry was scheduled for publication.",
    "entry.unscheduled": "An entry's scheduled publication was cancelled.",
    "entry.trashed": "An entry was moved to the trash.",
    "entry.restored": "An entry was restored from the trash.",
    "entry.deleted": "An entry was deleted for good.",
    "media.created": "A media item was uploaded or created.",
    "media.updated": "A media item's details (alt text, caption, …) changed.",
    "media.deleted": "A media item was deleted.",
    "schema.collection.created": "A collection was created.",
    "schema.collection.updated": "A collection's definition changed.",
    "schema.collection.deleted": "A collection was deleted.",
    "schema.field.created": "A field was added to a collection.",
    "schema.field.updated": "A field's definition changed.",
    "schema.field.deleted": "A field was removed from a collection.",
    "taxonomy.created": "A taxonomy was created.",
    "taxonomy.updated": "A taxonomy changed.",
    "taxonomy.deleted": "A taxonomy was deleted.",
    "term.created": "A term was created.",
    "term.updated": "A term changed.",
    "term.deleted": "A term was deleted.",
    "menu.created": "A menu was created.",
    "menu.updated": "A menu or its items changed.",
    "menu.deleted": "A menu was deleted.",
    "section.created": "A reusable section was created.",
    "section.updated": "A reusable section changed.",
    "section.deleted": "A reusable section was deleted.",
    "widget.created": "A widget was added to a widget area.",
    "widget.updated": "A widget changed.",
    "widget.deleted": "A widget was deleted.",
    "widget.area.created": "A widget area was created.",
    "widget.area.updated": "A widget area changed (its label, description or the order of its widgets).",
    "widget.area.deleted": "A widget area was deleted with its widgets.",
    "settings.updated": "The site settings changed.",
    "import.completed": "An import job completed.",
    "import.failed": "An import job failed.",
}

# The groups a subscription may name with ``<group>.*``: every prefix of a name, up to its last dot.
GROUPS = frozenset(
    ".".join(parts[:length])
    for parts in (name.split(".") for name in EVENT_TYPES)
    for length in range(1, len(parts))
)
ALL = "*"


def pattern_problem(pattern: str) -> str | None:
    """Why ``pattern`` is not a valid subscription, or None."""
    if pattern == ALL or pattern in EVENT_TYPES:
        return None
    if pattern.endswith(".*") and pattern[:-2] in GROUPS:
        return None
    groups = ", ".join(f"{group}.*" for group in sorted(GROUPS))
    return f"Unknown event type '{pattern}'; use a name from docs/webhooks.md, a group ({groups}) or '*'."


def matches(patterns: list[str] | tuple[str, ...], event_type: str) -> bool:
    return any(fnmatchcase(event_type, pattern) for pattern in patterns)
