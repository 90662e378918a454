from django.urls import path

from apps.webhooks.api.views import DeliveryViewSet, WebhookViewSet

DETAIL = {"get": "retrieve", "put": "update", "patch": "partial_update", "delete": "destroy"}

urlpatterns = [
    path("webhooks", WebhookViewSet.as_view({"get": "list", "post": "create"})),
    path("webhooks/deliveries/<str:pk>/redeliver", DeliveryViewSet.as_view({"post": "redeliver"})),
    path("webhooks/<str:pk>", WebhookViewSet.as_view(DETAIL)),
    path("webhooks/<str:pk>/rotate-secret", WebhookViewSet.as_view({"post": "rotate_secret"})),
    path("webhooks/<str:pk>/deliveries", WebhookViewSet.as_view({"get": "deliveries"})),
]
