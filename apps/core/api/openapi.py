"""The OpenAPI document, generated once per process: it depends on the code only, and generating it takes a while."""

from __future__ import annotations

from functools import cache

from drf_spectacular.generators import SchemaGenerator
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView


@cache
def openapi_document() -> dict:
    return SchemaGenerator().get_schema(request=None, public=True)


class OpenApiView(APIView):
    authentication_classes = []
    permission_classes = [AllowAny]
    renderer_classes = [JSONRenderer]
    schema = None

    def get(self, request):
        return Response(openapi_document(), headers={"Cache-Control": "public, max-age=300"})
