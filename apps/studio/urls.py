"""The studio's pages under /_cms/admin/ (docs/studio.md), beside the sign-in pages of apps.accounts."""

from django.urls import path

from apps.studio.views import (
    bulk,
    dashboard,
    editor,
    editor_actions,
    entries,
    media,
    pickers,
    revisions,
)

app_name = "studio"

ENTRY = "content/<slug:collection>/<str:entry_id>/"

urlpatterns = [
    path("", dashboard.dashboard, name="dashboard"),
    path("content/<slug:collection>/", entries.entry_list_page, name="entries"),
    path("content/<slug:collection>/trash/", entries.entry_trash_page, name="entries-trash"),
    path("content/<slug:collection>/bulk", bulk.entries_bulk, name="entries-bulk"),
    # After the trash: "trash/" is the list's, not an entry's address.
    path("content/<slug:collection>/new", editor.entry_new, name="entry-new"),
    path(ENTRY, editor.entry_edit, name="entry-edit"),
    path(f"{ENTRY}revisions/", revisions.revisions_page, name="entry-revisions"),
    path(f"{ENTRY}revisions/<str:revision_id>/", revisions.revision_page, name="entry-revision"),
    path(
        f"{ENTRY}revisions/<str:revision_id>/restore",
        revisions.revision_restore_page,
        name="entry-revision-restore",
    ),
    path(f"{ENTRY}compare", revisions.compare_page, name="entry-compare"),
    path(
        f"{ENTRY}<slug:action>",
        editor_actions.entry_action,
        name="entry-action",
    ),
    path("media/", media.media_library, name="media"),
    path("pick/media", pickers.pick_media, name="pick-media"),
    path("pick/media/upload", pickers.pick_media_upload, name="pick-media-upload"),
    path("pick/entries", pickers.pick_entries, name="pick-entries"),
]
