"""Requests to the WSGI application gunicorn serves (its fast paths in front of Django, then Django), for the tests of
what is answered before Django's request cycle."""

from __future__ import annotations

from wsgiref.util import setup_testing_defaults

from django.core.signals import request_finished, request_started
from django.db import close_old_connections


def wsgi_call(path: str, query: str = "", **headers):
    """A request to the WSGI application that gunicorn serves (the fast path, then Django)."""
    from cms_project.wsgi import application

    environ = {"PATH_INFO": path, "QUERY_STRING": query, "REQUEST_METHOD": "GET", **headers}
    setup_testing_defaults(environ)
    answer = {}

    def start_response(status, response_headers):
        answer["status"], answer["headers"] = status, dict(response_headers)

    # As Django's test client does: the test's database connection stays open across the request.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        body = b"".join(application(environ, start_response))
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
    return answer["status"], answer["headers"], body
