"""The product's URLs plus a few test-only endpoints that fail on purpose, to check the error envelope end to end."""

from django.db import OperationalError
from django.urls import include, path
from rest_framework import serializers

from apps.core.api.views import CmsAPIView, endpoint, ok
from apps.core.errors import Conflict
from cms_project.urls import handler400, handler403, handler404, handler500
from cms_project.urls import urlpatterns as product_urls

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]


class EchoIn(serializers.Serializer):
    name = serializers.CharField(max_length=5)


class BoomView(CmsAPIView):
    @endpoint("signed_in", error_code="CONTENT_LIST_ERROR")
    def get(self, request):
        raise RuntimeError("secret internals: /srv/app/config.py line 12")


class ConflictView(CmsAPIView):
    @endpoint("signed_in")
    def get(self, request):
        raise Conflict("The entry changed since you read it; reload and retry.", details={"currentRev": "3"})


class DatabaseDownView(CmsAPIView):
    @endpoint("signed_in")
    def get(self, request):
        raise OperationalError("connection refused")


class EchoView(CmsAPIView):
    @endpoint("signed_in", body=EchoIn)
    def post(self, request):
        return ok(self.body)


urlpatterns = [
    path("_cms/api/test/boom", BoomView.as_view()),
    path("_cms/api/test/conflict", ConflictView.as_view()),
    path("_cms/api/test/db-down", DatabaseDownView.as_view()),
    path("_cms/api/test/echo", EchoView.as_view()),
    path("", include(product_urls)),
]
