"""WSGI entry point: gunicorn's sync and gthread workers serve the REST API from here."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cms_project.settings")

application = get_wsgi_application()
