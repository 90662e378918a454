"""The safe HTTP client: SSRF attempts refused, the checked address pinned, limits, redirects, retries, TLS."""

import datetime
import gzip
import ipaddress
import json
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from apps.core import safehttp
from apps.core.safehttp import (
    BlockedDestination,
    FetchFailed,
    FetchTimeout,
    ResponseTooLarge,
    blocked_reason,
    fetch,
    open_stream,
)


class Handler(BaseHTTPRequestHandler):
    """Routes for the tests: /ok, /bytes, /stream, /gzip, /redirect, /slow, /flaky, /headers."""

    counts: dict[str, int] = {}
    lock = threading.Lock()

    def log_message(self, *args):
        """Requests are not logged: test output stays readable."""

    def do_GET(self):
        url = urlsplit(self.path)
        query = {name: values[0] for name, values in parse_qs(url.query).items()}
        with self.lock:
            self.counts[url.path] = self.counts.get(url.path, 0) + 1
            count = self.counts[url.path]
        if url.path == "/ok":
            self.reply(b"hello")
        elif url.path == "/bytes":
            self.reply(b"x" * int(query["size"]))
        elif url.path == "/stream":
            # No Content-Length: the body ends when the connection closes, so only counting can stop it.
            self.send_response(200)
            self.end_headers()
            for _ in range(int(query["chunks"])):
                self.wfile.write(b"y" * 65536)
        elif url.path == "/gzip":
            body = gzip.compress(b"\0" * int(query["size"]))
            self.reply(body, headers={"Content-Encoding": "gzip"})
        elif url.path == "/redirect":
            self.send_response(int(query.get("status", 302)))
            self.send_header("Location", query["to"])
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif url.path == "/slow":
            time.sleep(float(query["seconds"]))
            self.reply(b"late")
        elif url.path == "/flaky":
            if count <= int(query["failures"]):
                time.sleep(2.5)
            self.reply(f"attempt {count}".encode())
        elif url.path == "/headers":
            self.reply(json.dumps(dict(self.headers.items())).encode())
        else:
            self.reply(b"missing", status=404)

    do_POST = do_GET

    def reply(self, body, status=200, headers=None):
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        """Not reported: clients that give up (timeouts, size limits) close their end, as the tests intend."""


def serve(context=None):
    server = Server(("127.0.0.1", 0), Handler)
    if context is not None:
        server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    return server


@pytest.fixture
def server():
    Handler.counts = {}
    running = serve()
    yield f"http://127.0.0.1:{running.server_address[1]}"
    running.shutdown()
    running.server_close()


@pytest.fixture
def local_allowed(settings):
    """The test-only setting that lets the client reach our local server."""
    settings.CMS_SAFEHTTP_ALLOW_HOSTS = ["127.0.0.1"]


@pytest.fixture
def no_waiting(monkeypatch):
    waits = []
    monkeypatch.setattr(safehttp, "sleep", waits.append)
    return waits


# --- addresses and URLs that are refused -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://127.0.0.1/", "loopback"),
        ("http://localhost/", "loopback"),
        ("http://[::1]/", "loopback"),
        ("http://169.254.169.254/latest/meta-data/", "link-local"),
        ("http://[fe80::1]/", "link-local"),
        ("http://10.0.0.1/", "private-network"),
        ("http://172.16.5.4/", "private-network"),
        ("http://192.168.1.1/", "private-network"),
        ("http://[fd00::1]/", "private-network"),
        ("http://100.64.0.1/", "shared (carrier-grade NAT)"),
        ("http://0.0.0.0/", "unspecified"),
        ("http://[::]/", "unspecified"),
        ("http://224.0.0.1/", "multicast"),
        ("http://240.0.0.1/", "reserved"),
        ("http://2130706433/", "loopback"),  # decimal 127.0.0.1
        ("http://0177.0.0.1/", "loopback"),  # octal
        ("http://0x7f.0.0.1/", "loopback"),  # hexadecimal
        ("http://0x7f000001/", "loopback"),
        ("http://127.1/", "loopback"),
        ("http://017700000001/", "loopback"),
        ("http://[::ffff:127.0.0.1]/", "IPv4-mapped form of a loopback"),
        ("http://[::ffff:169.254.169.254]/", "IPv4-mapped form of a link-local"),
        ("http://[64:ff9b::7f00:1]/", "NAT64 form of a loopback"),
        ("http://[64:ff9b::a9fe:a9fe]/", "NAT64 form of a link-local"),
        ("http://[64:ff9b:1::1]/", "local-use NAT64"),
        ("http://[2002:7f00:1::]/", "6to4 form of a loopback"),
        ("http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", "Teredo"),  # client 127.0.0.1 (bits inverted)
        ("http://[::127.0.0.1]/", "IPv4-compatible form of a loopback"),
    ],
)
def test_internal_addresses_are_refused(url, reason):
    with pytest.raises(BlockedDestination, match="is not fetched") as refused:
        fetch(url)
    assert reason in str(refused.value)


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "ftp://example.com/",
        "gopher://example.com/",
        "//example.com/",
        "https://user:pw@example.com/",
    ],
)
def test_only_plain_http_and_https_urls_are_fetched(url):
    with pytest.raises(BlockedDestination):
        fetch(url)


def test_names_resolving_to_internal_addresses_are_refused_if_any_address_is(monkeypatch):
    answers = {
        "internal.example.test": ["10.1.2.3"],
        "mixed.example.test": ["93.184.215.14", "192.168.0.10"],
        "rebind.example.test": ["93.184.215.14", "::1"],
    }
    monkeypatch.setattr(
        safehttp, "resolve_host", lambda host, port: [ipaddress.ip_address(a) for a in answers[host]]
    )
    for host in answers:
        with pytest.raises(BlockedDestination, match=host):
            fetch(f"http://{host}/")


def test_public_addresses_pass_the_check():
    for address in (
        "93.184.215.14",
        "2606:2800:21f:cb07:6820:80da:af6b:8b2c",
        "2002:5db8:d70e::1",
        "64:ff9b::5db8:d70e",
    ):
        reason = blocked_reason(ipaddress.ip_address(address))
        assert (
            reason is None or "NAT64" in reason or "reserved" in reason
        )  # NAT64's prefix is itself reserved
    assert blocked_reason(ipaddress.ip_address("8.8.8.8")) is None


def test_the_local_test_server_is_reachable_only_through_the_setting(server, settings):
    with pytest.raises(BlockedDestination):
        fetch(f"{server}/ok")
    settings.CMS_SAFEHTTP_ALLOW_HOSTS = ["127.0.0.1"]
    response = fetch(f"{server}/ok")
    assert (response.status, response.content, response.ok) == (200, b"hello", True)


# --- pinning, redirects ------------------------------------------------------------------------------------------


def test_the_checked_address_is_used_without_resolving_again(server, local_allowed, monkeypatch):
    lookups = []

    def resolve(host, port):
        lookups.append(host)
        return [ipaddress.ip_address("127.0.0.1")]

    monkeypatch.setattr(safehttp, "resolve_host", resolve)
    port = urlsplit(server).port
    response = fetch(f"http://pinned.example.test:{port}/headers")
    # The name only our resolver knows was looked up once, and the request still carried it as Host.
    assert lookups == ["pinned.example.test"]
    assert response.json()["Host"] == f"pinned.example.test:{port}"


def test_every_redirect_is_checked(server, local_allowed):
    with pytest.raises(BlockedDestination, match="link-local"):
        fetch(f"{server}/redirect?to=http://169.254.169.254/latest/meta-data/")
    with pytest.raises(BlockedDestination, match="private-network"):
        fetch(f"{server}/redirect?status=307&to=http://10.0.0.8/admin")
    with pytest.raises(BlockedDestination, match="loopback"):
        fetch(f"{server}/redirect?to=http://[::ffff:7f00:1]/")


def test_redirects_are_followed_within_limits(server, local_allowed):
    response = fetch(f"{server}/redirect?to=/redirect%3Fto%3D/ok")
    assert (response.status, response.content, response.url) == (200, b"hello", f"{server}/ok")
    with pytest.raises(FetchFailed, match="redirects"):
        fetch(f"{server}/redirect?to=/redirect%3Fto%3D/ok", max_redirects=1)


def test_credentials_do_not_follow_a_redirect_to_another_host(server, settings, monkeypatch):
    settings.CMS_SAFEHTTP_ALLOW_HOSTS = ["127.0.0.1"]
    monkeypatch.setattr(safehttp, "resolve_host", lambda host, port: [ipaddress.ip_address("127.0.0.1")])
    port = urlsplit(server).port
    same = fetch(f"{server}/redirect?to=/headers", headers={"Authorization": "Bearer secret"}).json()
    other = fetch(
        f"{server}/redirect?to=http://other.example.test:{port}/headers",
        headers={"Authorization": "Bearer secret", "Cookie": "a=b", "Accept": "application/json"},
    ).json()
    assert same["Authorization"] == "Bearer secret"
    assert "Authorization" not in other and "Cookie" not in other and other["Accept"] == "application/json"


# --- size and time limits, retries ---------------------------------------------------------------------------------


def test_a_declared_size_over_the_limit_is_refused_before_reading(server, local_allowed):
    assert len(fetch(f"{server}/bytes?size=1000", max_bytes=1000).content) == 1000
    with pytest.raises(ResponseTooLarge, match="2000 bytes"):
        fetch(f"{server}/bytes?size=2000", max_bytes=1000)


def test_an_undeclared_size_is_counted_and_cut_off(server, local_allowed):
    with pytest.raises(ResponseTooLarge):
        fetch(f"{server}/stream?chunks=40", max_bytes=1024 * 1024)
    with open_stream(f"{server}/stream?chunks=4", max_bytes=1024 * 1024) as response:
        assert sum(len(chunk) for chunk in response.iter_bytes()) == 4 * 65536


def test_compressed_bodies_count_their_decompressed_size(server, local_allowed):
    assert fetch(f"{server}/gzip?size=1000", max_bytes=1000).content == b"\0" * 1000
    with pytest.raises(ResponseTooLarge):
        fetch(f"{server}/gzip?size=5000000", max_bytes=1024 * 1024)


def test_a_server_that_does_not_answer_times_out_after_the_retries(server, local_allowed, no_waiting):
    with pytest.raises(FetchTimeout):
        fetch(f"{server}/slow?seconds=2", read_timeout=0.2, retries=2, backoff=0.5)
    assert Handler.counts["/slow"] == 3
    assert no_waiting == [0.5, 1.0]


def test_network_timeouts_are_retried_with_backoff(server, local_allowed, no_waiting):
    response = fetch(f"{server}/flaky?failures=2", read_timeout=0.6, retries=3, backoff=0.25)
    assert response.content == b"attempt 3"
    assert no_waiting == [0.25, 0.5]


def test_requests_that_change_things_are_not_retried(server, local_allowed, no_waiting):
    with pytest.raises(FetchTimeout):
        fetch(f"{server}/slow?seconds=2", method="POST", body=b"{}", read_timeout=0.2)
    assert no_waiting == []


def test_unreachable_hosts_fail_clearly(local_allowed):
    with pytest.raises(FetchFailed):
        fetch("http://127.0.0.1:9/", retries=0)  # the discard port: nothing listens


# --- TLS with a pinned address -------------------------------------------------------------------------------------


@pytest.fixture
def tls_server(tmp_path):
    """An HTTPS server with a certificate for tls.example.test, signed by a CA of our own."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    certificate = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "tls.example.test")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("tls.example.test")]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    (tmp_path / "ca.pem").write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    (tmp_path / "server.pem").write_bytes(
        certificate.public_bytes(serialization.Encoding.PEM)
        + key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tmp_path / "server.pem")
    names = []
    context.sni_callback = lambda connection, name, context: names.append(name)
    Handler.counts = {}
    running = serve(context)
    yield running.server_address[1], tmp_path / "ca.pem", names
    running.shutdown()
    running.server_close()


def test_tls_uses_the_host_name_while_connecting_to_the_checked_address(tls_server, settings, monkeypatch):
    port, ca_bundle, server_names = tls_server
    settings.CMS_SAFEHTTP_ALLOW_HOSTS = ["127.0.0.1"]
    settings.CMS_SAFEHTTP_CA_BUNDLE = str(ca_bundle)
    monkeypatch.setattr(safehttp, "resolve_host", lambda host, port: [ipaddress.ip_address("127.0.0.1")])
    response = fetch(f"https://tls.example.test:{port}/headers")
    assert response.json()["Host"] == f"tls.example.test:{port}"
    assert server_names == ["tls.example.test"]
    # The same server by its address does not match the certificate: verification is on.
    with pytest.raises(FetchFailed):
        fetch(f"https://127.0.0.1:{port}/ok", retries=0)
