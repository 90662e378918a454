"""The studio's pages under /_cms/admin/ (docs/studio.md), beside the sign-in pages of apps.accounts."""

from django.urls import path

from apps.studio.views import bulk, dashboard, entries, media

app_name = "studio"

urlpatterns = [
    path("", dashboard.dashboard, name="dashboard"),
    path("content/<slug:collection>/", entries.entry_list_page, name="entries"),
    path("content/<slug:collection>/trash/", entries.entry_trash_page, name="entries-trash"),
    path("content/<slug:collection>/bulk", bulk.entries_bulk, name="entries-bulk"),
    path("media/", media.media_library, name="media"),
]
