"""URL map (ARCHITECTURE §1): the REST API under /_cms/api/, the Django admin for operators under /django-admin/."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularSwaggerView

from apps.core.api.health import HealthView
from apps.core.api.openapi import OpenApiView

api_patterns = [
    path("health", HealthView.as_view(), name="health"),
    path("openapi.json", OpenApiView.as_view(), name="openapi"),
    path("docs", SpectacularSwaggerView.as_view(url_name="openapi"), name="api-docs"),
    path("", include("apps.accounts.api.urls")),
    path("", include("apps.media.api.urls")),
    path("", include("apps.schema.api.urls")),
    path("", include("apps.content.api.urls")),
    path("", include("apps.taxonomy.api.urls")),
    path("", include("apps.menus.api.urls")),
    path("", include("apps.site.api.urls")),
    path("", include("apps.plugins.api.urls")),
]

urlpatterns = [
    path("_cms/api/", include(api_patterns)),
    path("django-admin/", admin.site.urls),
]

handler400 = "apps.core.api.exceptions.handler400"
handler403 = "apps.core.api.exceptions.handler403"
handler404 = "apps.core.api.exceptions.handler404"
handler500 = "apps.core.api.exceptions.handler500"
