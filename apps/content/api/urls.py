from django.urls import path

from apps.content.api.views import (
    BylineViewSet,
    EntryViewSet,
    MediaUsagesView,
    PortableTextViewSet,
    RevisionViewSet,
)

ENTRY = "content/<str:collection>/<str:ref>"


def entry_action(method: str, action: str):
    return EntryViewSet.as_view({method: action})


urlpatterns = [
    path("content/<str:collection>", EntryViewSet.as_view({"get": "list", "post": "create"})),
    # Before the entry route: a GET of …/trash is the trash, not an entry whose slug is "trash" (fetch that one by id).
    path("content/<str:collection>/trash", entry_action("get", "trash")),
    path(
        ENTRY,
        EntryViewSet.as_view(
            {"get": "retrieve", "patch": "partial_update", "put": "update", "delete": "destroy"}
        ),
    ),
    path(f"{ENTRY}/publish", entry_action("post", "publish")),
    path(f"{ENTRY}/unpublish", entry_action("post", "unpublish")),
    path(f"{ENTRY}/schedule", EntryViewSet.as_view({"post": "schedule", "delete": "unschedule"})),
    path(f"{ENTRY}/discard-draft", entry_action("post", "discard_draft")),
    path(f"{ENTRY}/compare", entry_action("get", "compare")),
    path(f"{ENTRY}/restore", entry_action("post", "restore")),
    path(f"{ENTRY}/permanent", entry_action("delete", "permanent")),
    path(f"{ENTRY}/duplicate", entry_action("post", "duplicate")),
    path(f"{ENTRY}/translations", entry_action("get", "translations")),
    path(f"{ENTRY}/revisions", entry_action("get", "revisions")),
    path("revisions/<str:pk>", RevisionViewSet.as_view({"get": "retrieve"})),
    path("revisions/<str:pk>/restore", RevisionViewSet.as_view({"post": "restore"})),
    # Content knows the entries, so it answers where a media item is used (media sits below content).
    path("media/<str:pk>/usages", MediaUsagesView.as_view()),
    path("portable-text/from-html", PortableTextViewSet.as_view({"post": "from_html"})),
    path("bylines", BylineViewSet.as_view({"get": "list", "post": "create"})),
    path(
        "bylines/<str:pk>",
        BylineViewSet.as_view({"get": "retrieve", "patch": "partial_update", "delete": "destroy"}),
    ),
]
