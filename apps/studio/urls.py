"""The studio's pages under /_cms/admin/ (docs/studio.md), beside the sign-in pages of apps.accounts."""

from django.urls import path

from apps.studio.views import dashboard, entries, media, portable_text

app_name = "studio"

urlpatterns = [
    path("", dashboard.dashboard, name="dashboard"),
    path("content/<slug:collection>/", entries.entry_list_page, name="entries"),
    path("media/", media.media_library, name="media"),
    path(
        "portable-text-check/<slug:collection>/<str:entry>/<slug:field>/",
        portable_text.portable_text_check,
        name="portable-text-check",
    ),
]
