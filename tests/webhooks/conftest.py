"""Fixtures of the webhook tests: a real HTTP receiver on 127.0.0.1, an independent signature check written from the
Standard Webhooks specification (not with the library the server signs with), a clock the tests move, and the
worker's pass run the way ``manage.py worker`` runs it."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import sys
import threading
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from io import StringIO

import pytest
from django.core.management import call_command

from apps.core import timefmt
from apps.webhooks import delivery
from apps.webhooks.tasks import deliver_webhooks


class Receiver:
    """A threaded HTTP server recording every POST (headers and body). ``status`` is what it answers; ``hang()``
    makes it hold requests without answering until ``release()``; ``stop()`` and ``start()`` take it down and up
    again on the same port."""

    def __init__(self):
        self.requests: list[tuple[dict[str, str], bytes]] = []
        # The client side of the TCP connection each request came on: fewer than requests when kept alive.
        self.connections: list[tuple[str, int]] = []
        self.status = 204
        self.answer = b""
        self.arrived = threading.Event()
        self._go = threading.Event()
        self._go.set()
        self.port = 0
        self.server: ThreadingHTTPServer | None = None

    def start(self) -> None:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            # As receivers behind any web server do: connections stay open for the next request.
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                receiver.connections.append(self.client_address)
                receiver.requests.append(({k.lower(): v for k, v in self.headers.items()}, body))
                receiver.arrived.set()
                # Bounded so a test that forgets release() cannot hang the suite.
                receiver._go.wait(timeout=10)
                try:
                    self.send_response(receiver.status)
                    self.send_header("Content-Length", str(len(receiver.answer)))
                    self.end_headers()
                    self.wfile.write(receiver.answer)
                except OSError:
                    pass  # the client gave up waiting

        class Server(ThreadingHTTPServer):
            def handle_error(self, request, client_address):
                # A sender closing a kept-alive connection between requests is normal, not an error to print.
                if not isinstance(sys.exc_info()[1], ConnectionError):
                    super().handle_error(request, client_address)

        self.server = Server(("127.0.0.1", self.port), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        if self.server is not None:
            self.release()
            self.server.shutdown()
            self.server.server_close()
            self.server = None

    def hang(self) -> None:
        self._go.clear()

    def release(self) -> None:
        self._go.set()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks"

    def payloads(self) -> list[dict]:
        return [json.loads(body) for _, body in self.requests]


@pytest.fixture
def receiver(settings):
    settings.CMS_WEBHOOK_ALLOWED_HOSTS = ["127.0.0.1"]
    found = Receiver()
    found.start()
    yield found
    found.stop()


def signature_valid(secret: str, headers: dict[str, str], body: bytes) -> bool:
    """The Standard Webhooks check, by hand: HMAC-SHA256 keyed with the base64 part of ``whsec_…`` over
    ``<webhook-id>.<webhook-timestamp>.<body>``, base64, compared with each ``v1,`` signature in the header."""
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{headers['webhook-id']}.{headers['webhook-timestamp']}.".encode() + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    offered = [
        part.split(",", 1)[1] for part in headers["webhook-signature"].split(" ") if part.startswith("v1,")
    ]
    return any(hmac.compare_digest(expected, candidate) for candidate in offered)


class Clock:
    def __init__(self):
        self.now = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock(monkeypatch):
    found = Clock()
    monkeypatch.setattr(timefmt, "now", found)
    return found


@pytest.fixture
def fixed_jitter(monkeypatch):
    monkeypatch.setattr(delivery, "jitter", lambda: 1.0)


def run_worker() -> int:
    """One run of the webhooks task, in this thread (``manage.py worker`` runs the same task from its queue)."""
    return deliver_webhooks.call()


def run_worker_command() -> str:
    out = StringIO()
    call_command("worker", "--once", stdout=out)
    return out.getvalue()


def create_endpoint(api, url: str, **values) -> dict:
    response = api.post("/_cms/api/webhooks", {"url": url, **values}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["data"]
