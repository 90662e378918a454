from django.urls import path

from apps.delivery.api.views import PreviewSecretView, PreviewView, RedirectViewSet, ResolveView

urlpatterns = [
    path("redirects", RedirectViewSet.as_view({"get": "list", "post": "create"})),
    path(
        "redirects/<str:pk>",
        RedirectViewSet.as_view({"get": "retrieve", "patch": "partial_update", "delete": "destroy"}),
    ),
    path("resolve", ResolveView.as_view()),
    path("content/<str:collection>/<str:ref>/preview", PreviewView.as_view()),
    path("preview-secret", PreviewSecretView.as_view()),
]
