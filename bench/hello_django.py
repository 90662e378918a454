"""The framework floor: the smallest Django project, one view answering the baseline's constant JSON body, served by
the same gunicorn configuration as the CMS. Its ratio to the bare WSGI app shows what Django's request cycle alone
costs on this machine, the part of every CMS request no code of ours can remove."""

import secrets

import django
from django.conf import settings
from django.http import HttpResponse
from django.urls import path

from bench.hello_wsgi import BODY

settings.configure(
    DEBUG=False,
    SECRET_KEY=secrets.token_hex(32),
    ALLOWED_HOSTS=["*"],
    ROOT_URLCONF=__name__,
    MIDDLEWARE=[],
    INSTALLED_APPS=[],
    DATABASES={},
)
django.setup()


def hello(request):
    return HttpResponse(BODY, content_type="application/json")


urlpatterns = [path("", hello)]

from django.core.wsgi import get_wsgi_application  # noqa: E402 (needs the settings above)

application = get_wsgi_application()
