"""URL map (ARCHITECTURE §1): the REST API under /_cms/api/, the sign-in pages under /_cms/admin/, the OAuth
authorization endpoint and discovery documents (SPEC §5), and the Django admin for operators under /django-admin/."""

from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularSwaggerView

from apps.accounts import discovery, pages
from apps.core.api.health import HealthView, ReadinessView
from apps.core.api.metrics import metrics_endpoint
from apps.core.api.openapi import OpenApiView
from apps.delivery.api.views import SitemapView
from apps.mcp.views import mcp_endpoint

api_patterns = [
    path("health", HealthView.as_view(), name="health"),
    path("health/ready", ReadinessView.as_view(), name="health-ready"),
    path("openapi.json", OpenApiView.as_view(), name="openapi"),
    path("docs", SpectacularSwaggerView.as_view(url_name="openapi"), name="api-docs"),
    # The hot paths first: Django tries the patterns in order and records every one tried before the match.
    path("", include("apps.content.api.urls")),
    path("", include("apps.search.api.urls")),
    path("mcp", mcp_endpoint, name="mcp"),
    path("", include("apps.media.api.urls")),
    path("", include("apps.accounts.api.urls")),
    path("", include("apps.schema.api.urls")),
    path("", include("apps.taxonomy.api.urls")),
    path("", include("apps.menus.api.urls")),
    path("", include("apps.site.api.urls")),
    path("", include("apps.plugins.api.urls")),
    path("", include("apps.importer.api.urls")),
    path("", include("apps.webhooks.api.urls")),
    path("", include("apps.delivery.api.urls")),
]


urlpatterns = [
    path("_cms/api/", include(api_patterns)),
    # Prometheus text format; 404 unless CMS_METRICS_TOKEN is set (docs/operations.md).
    path("_cms/metrics", metrics_endpoint, name="metrics"),
    path("_cms/admin/", include("apps.accounts.urls")),
    path("_cms/admin/", include("apps.studio.urls")),
    path("_cms/oauth/authorize", pages.AuthorizeView.as_view(), name="oauth-authorize"),
    path(".well-known/oauth-protected-resource", discovery.protected_resource_metadata),
    path(".well-known/oauth-protected-resource/_cms/api/mcp", discovery.protected_resource_metadata),
    path("_cms/.well-known/oauth-authorization-server", discovery.authorization_server_metadata),
    path(".well-known/oauth-authorization-server/_cms", discovery.authorization_server_metadata),
    # The Django admin signs people in on our page and answers 403 to signed-in non-admins.
    path("django-admin/login/", pages.operators_console_login),
    path("django-admin/", admin.site.urls),
    # Browsers ask for /favicon.ico on pages that name no icon (the operators' console, the API's HTML pages).
    path("sitemap.xml", SitemapView.as_view(), name="sitemap"),
    path("favicon.ico", RedirectView.as_view(url=static("cms/favicon.svg"), permanent=True)),
]

handler400 = "apps.core.api.exceptions.handler400"
handler403 = "apps.core.api.exceptions.handler403"
handler404 = "apps.core.api.exceptions.handler404"
handler500 = "apps.core.api.exceptions.handler500"
