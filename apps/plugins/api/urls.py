from django.urls import path

from apps.plugins.api.views import AuditLogViewSet, PluginViewSet

urlpatterns = [
    path("plugins", PluginViewSet.as_view({"get": "list"})),
    path("plugins/<str:pk>", PluginViewSet.as_view({"get": "retrieve"})),
    path("plugins/<str:pk>/enable", PluginViewSet.as_view({"post": "enable"})),
    path("plugins/<str:pk>/disable", PluginViewSet.as_view({"post": "disable"})),
    path("audit-log", AuditLogViewSet.as_view({"get": "list"})),
]
