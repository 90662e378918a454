"""ASGI entry point: for uvicorn workers, where the async MCP view runs without a thread hop."""

import os

from django.core.asgi import get_asgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cms_project.settings")

application = get_asgi_application()
# Import the URL map and every view while the worker starts, not during the first request it is sent.
get_resolver().url_patterns  # noqa: B018
