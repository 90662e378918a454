"""WSGI entry point: gunicorn's sync and gthread workers serve the REST API from here."""

import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cms_project.settings")

django_application = get_wsgi_application()

# Renditions already stored (apps/media/fastpath.py) and conditional reads of a public entry whose copy is current
# (apps/delivery/fastpath.py) are answered before Django's request cycle; the rest is Django.
from apps.core.metrics import AnswersBeforeDjango  # noqa: E402 (needs the apps loaded above)
from apps.delivery.fastpath import PublicEntryFastPath  # noqa: E402
from apps.media.fastpath import RenditionFastPath  # noqa: E402

# Outermost, so that the answers of the fast paths are counted too when metrics are on (Django's own are counted by
# apps.core.middleware.MetricsMiddleware).
public_entries = PublicEntryFastPath(RenditionFastPath(django_application))
application = AnswersBeforeDjango(public_entries)
# Import the URL map and every view while the worker starts, not during the first request it is sent.
get_resolver().url_patterns  # noqa: B018
