"""Gunicorn's own log lines in the application's JSON format (``apps.core.logging.JsonFormatter``), so that one parser
reads everything a node writes (issue 24, "One log format").

Its error log (start, workers booted, killed or timed out) becomes ``{"ts", "level", "logger": "gunicorn.error",
"msg"}``. Its access log, when ``GUNICORN_ACCESS_LOG`` turns it on (cms_project/gunicorn.conf.py), becomes one line per
request with the keys of the application's own ``cms.request`` line: ``request_id`` (the ``X-Request-ID`` the
application answered, which is the client's when well-formed), ``method``, ``path`` (without the query string, which
may carry a preview token), ``status`` and ``duration_ms``, plus ``remote_addr`` and ``bytes``. Unlike the
application's line it also covers the answers given before Django (apps/*/fastpath.py) and requests Django never saw.
"""

from __future__ import annotations

from gunicorn import glogging

from apps.core.logging import JsonFormatter


class JsonLogger(glogging.Logger):
    def setup(self, cfg) -> None:
        super().setup(cfg)
        formatter = JsonFormatter()
        for log in (self.error_log, self.access_log):
            for handler in log.handlers:
                handler.setFormatter(formatter)

    def access(self, resp, req, environ, request_time) -> None:
        if not self.access_log_enabled:
            return
        status = resp.status
        if isinstance(status, str):
            status = status.split(None, 1)[0]
        request_id = next((value for name, value in resp.headers if name.lower() == "x-request-id"), None)
        method = environ.get("REQUEST_METHOD")
        path = environ.get("PATH_INFO")
        try:
            self.access_log.info(
                "%s %s %s",
                method,
                path,
                status,
                extra={
                    "request_id": request_id,
                    "method": method,
                    "path": path,
                    "status": int(status) if str(status).isdigit() else status,
                    "duration_ms": round(request_time.total_seconds() * 1000, 2),
                    "remote_addr": environ.get("REMOTE_ADDR"),
                    "bytes": getattr(resp, "sent", None),
                },
            )
        except Exception:
            self.exception("access log line failed")
