"""The baseline: a bare WSGI app answering a constant JSON body, served by the same gunicorn configuration as the CMS.
Every benchmark figure is reported as a ratio to it, measured in the same run (the machines are shared and noisy)."""

BODY = b'{"success":true,"data":{"hello":"world"}}'
HEADERS = [("Content-Type", "application/json"), ("Content-Length", str(len(BODY)))]


def app(environ, start_response):
    start_response("200 OK", HEADERS)
    return [BODY]
