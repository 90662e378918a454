from django.urls import path
from rest_framework.routers import SimpleRouter

from apps.accounts.api.user_views import UserViewSet
from apps.accounts.api.views import ApiTokenViewSet

router = SimpleRouter(trailing_slash=False)
router.register("admin/api-tokens", ApiTokenViewSet, basename="api-token")

urlpatterns = [
    *router.urls,
    path("admin/users", UserViewSet.as_view({"get": "list"})),
    path("admin/users/<str:pk>", UserViewSet.as_view({"get": "retrieve", "patch": "partial_update"})),
    path("admin/users/<str:pk>/enable", UserViewSet.as_view({"post": "enable"})),
    path("admin/users/<str:pk>/disable", UserViewSet.as_view({"post": "disable"})),
]
