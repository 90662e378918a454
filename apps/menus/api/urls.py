from django.urls import path

from apps.menus.api.views import MenuItemViewSet, MenuViewSet

urlpatterns = [
    path("menus", MenuViewSet.as_view({"get": "list", "post": "create"})),
    path(
        "menus/<str:name>",
        MenuViewSet.as_view(
            {"get": "retrieve", "put": "update", "patch": "partial_update", "delete": "destroy"}
        ),
    ),
    path("menus/<str:name>/reorder", MenuViewSet.as_view({"post": "reorder"})),
    path("menus/<str:name>/items", MenuItemViewSet.as_view({"post": "create"})),
    path(
        "menus/<str:name>/items/<str:pk>",
        MenuItemViewSet.as_view({"put": "update", "patch": "partial_update", "delete": "destroy"}),
    ),
]
