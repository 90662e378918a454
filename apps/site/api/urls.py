from django.urls import path

from apps.site.api.views import SectionViewSet, SettingsView, WidgetAreaViewSet, WidgetViewSet

DETAIL = {"get": "retrieve", "put": "update", "patch": "partial_update", "delete": "destroy"}

urlpatterns = [
    path("widget-areas", WidgetAreaViewSet.as_view({"get": "list", "post": "create"})),
    path("widget-areas/<str:name>", WidgetAreaViewSet.as_view(DETAIL)),
    path("widget-areas/<str:name>/reorder", WidgetAreaViewSet.as_view({"post": "reorder"})),
    path("widget-areas/<str:name>/widgets", WidgetViewSet.as_view({"post": "create", "put": "replace"})),
    path(
        "widget-areas/<str:name>/widgets/<str:pk>",
        WidgetViewSet.as_view({"put": "update", "patch": "partial_update", "delete": "destroy"}),
    ),
    path("sections", SectionViewSet.as_view({"get": "list", "post": "create"})),
    path("sections/<str:slug>", SectionViewSet.as_view(DETAIL)),
    path("settings", SettingsView.as_view(), name="settings"),
]
