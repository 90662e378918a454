from django.urls import path

from apps.media.api.renditions import RenditionViewSet
from apps.media.api.views import MediaFileView, MediaViewSet

urlpatterns = [
    path("media", MediaViewSet.as_view({"get": "list", "post": "create"})),
    # Keys contain slashes (2026/01/…); `path:` takes them whole, and the view validates them.
    path("media/file/<path:key>", MediaFileView.as_view(), name="media-file"),
    path("media/<str:pk>/render", RenditionViewSet.as_view({"get": "render"}), name="media-render"),
    path(
        "media/<str:pk>/render/<str:preset>",
        RenditionViewSet.as_view({"get": "preset"}),
        name="media-render-preset",
    ),
    path("media/<str:pk>/render-url", RenditionViewSet.as_view({"post": "sign"}), name="media-render-url"),
    path(
        "media/<str:pk>",
        MediaViewSet.as_view({"get": "retrieve", "patch": "partial_update", "delete": "destroy"}),
    ),
]
