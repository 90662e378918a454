from django.urls import path

from apps.importer.api.views import ImportJobViewSet, ImportViewSet

urlpatterns = [
    path("import/probe", ImportViewSet.as_view({"post": "probe"})),
    path("import/blogplatform/analyze", ImportViewSet.as_view({"post": "analyze"})),
    path("import/blogplatform/prepare", ImportViewSet.as_view({"post": "prepare"})),
    path("import/blogplatform/execute", ImportViewSet.as_view({"post": "execute"})),
    path("import/blogplatform/media", ImportViewSet.as_view({"post": "media"})),
    path("import/blogplatform/rewrite-urls", ImportViewSet.as_view({"post": "rewrite_urls"})),
    path("import/jobs/<str:pk>", ImportJobViewSet.as_view({"get": "retrieve"})),
    path("import/jobs/<str:pk>/resume", ImportJobViewSet.as_view({"post": "resume"})),
]
