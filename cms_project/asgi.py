"""ASGI entry point: for uvicorn workers, where the async MCP view runs without a thread hop."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cms_project.settings")

application = get_asgi_application()
