"""Fixtures of the import tests: a private directory for stored uploads, the shared WXR files."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.testdata import TESTDATA

WXR = TESTDATA / "wxr"
THEME_UNIT_TEST = WXR / "theme-test-data" / "themeunittestdata.wordpress.xml"
BLOCK_TEST_DATA = WXR / "theme-test-data" / "64-block-test-data.xml"
IMPORTER_DATA = WXR / "wordpress-importer" / "phpunit-data"


@pytest.fixture(autouse=True)
def import_dir(tmp_path, settings):
    """This node's import directory, where the default (local) import storage keeps uploads."""
    path = tmp_path / "imports"
    path.mkdir()
    settings.CMS_IMPORT_DIR = path
    return path


class _Handler(BaseHTTPRequestHandler):
    """Answers from ``server.routes``: path (with query) → (status, body, headers) or a callable giving that."""

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.server.requests.append(self.path)
        self.server.authorizations[self.path.split("?")[0]] = self.headers.get("Authorization")
        route = self.server.routes.get(self.path) or self.server.routes.get(self.path.split("?")[0])
        route = route or self.server.fallback
        if route is None:
            status, body, headers = 404, b"not found", {}
        else:
            status, body, headers = route(self) if callable(route) else route
        if isinstance(body, str):
            body = body.encode()
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    do_HEAD = do_GET


class LocalServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        """Clients that give up (timeouts) close their end, as some tests intend."""

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


@pytest.fixture
def web(settings):
    """A local HTTP server serving ``web.routes``, reachable through the test-only safe-HTTP allow list."""
    settings.CMS_SAFEHTTP_ALLOW_HOSTS = ["127.0.0.1"]
    server = LocalServer(("127.0.0.1", 0), _Handler)
    server.routes = {}
    server.fallback = None
    server.requests = []
    server.authorizations = {}
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
