"""Writes to entries: create, update, the lifecycle of SPEC §3, revisions, bylines, translations, scheduling.

Every function checks permission (scope and role via ``authorize``, own-versus-anyone once it holds the entry) and the
state (``states.check``), then writes in one transaction: the row, its revision, and the ``entry_changed`` event that
keeps derived data (search) in step.

The package is split where the seams are: ``entries`` (create, update, delete; one row or many), ``lifecycle``
(publish … restore, and the worker's scheduled publishing), ``revisions``, ``bylines``, and ``shared`` (field values,
slugs, the locked row write). Callers import from here, so the split is nobody's business but this package's.
"""

from apps.content.services.bylines import byline_create, byline_delete, byline_update, byline_values
from apps.content.services.entries import (
    entry_create,
    entry_create_many,
    entry_delete_permanently,
    entry_duplicate,
    entry_update,
)
from apps.content.services.lifecycle import (
    due_refusals,
    entry_discard_draft,
    entry_publish,
    entry_restore,
    entry_schedule,
    entry_trash,
    entry_unpublish,
    entry_unschedule,
    publish_due,
)
from apps.content.services.revisions import REVISIONS_KEPT, revision_restore
from apps.content.services.richtext import portable_text_from_html
from apps.content.services.shared import VALUE_CONTEXT, WRITABLE_STATUSES, free_slug, validate_data

__all__ = [
    "REVISIONS_KEPT",
    "VALUE_CONTEXT",
    "WRITABLE_STATUSES",
    "byline_create",
    "byline_delete",
    "byline_update",
    "byline_values",
    "due_refusals",
    "entry_create",
    "entry_create_many",
    "entry_delete_permanently",
    "entry_discard_draft",
    "entry_duplicate",
    "entry_publish",
    "entry_restore",
    "entry_schedule",
    "entry_trash",
    "entry_unpublish",
    "entry_unschedule",
    "entry_update",
    "free_slug",
    "portable_text_from_html",
    "publish_due",
    "revision_restore",
    "validate_data",
]
