"""The studio's pages under /_cms/admin/ (docs/studio.md), beside the sign-in pages of apps.accounts."""

from django.urls import path

from apps.studio.views import bulk, dashboard, editor, editor_actions, entries, media

app_name = "studio"

urlpatterns = [
    path("", dashboard.dashboard, name="dashboard"),
    path("content/<slug:collection>/", entries.entry_list_page, name="entries"),
    path("content/<slug:collection>/trash/", entries.entry_trash_page, name="entries-trash"),
    path("content/<slug:collection>/bulk", bulk.entries_bulk, name="entries-bulk"),
    # After the trash: "trash/" is the list's, not an entry's address.
    path("content/<slug:collection>/new", editor.entry_new, name="entry-new"),
    path("content/<slug:collection>/<str:entry_id>/", editor.entry_edit, name="entry-edit"),
    path(
        "content/<slug:collection>/<str:entry_id>/<slug:action>",
        editor_actions.entry_action,
        name="entry-action",
    ),
    path("media/", media.media_library, name="media"),
]
