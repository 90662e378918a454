"""The one HTTP client for fetching anything from a URL someone gave us (import probes, media downloads, APIs).

A URL from a user can point at this server's own network: the cloud metadata service at 169.254.169.254, a
database on 10.0.0.5, an admin port on localhost. Every fetch therefore goes through ``fetch`` (whole body) or
``open_stream`` (body in chunks, for downloads), which:

- accept only ``http`` and ``https`` URLs without credentials in them;
- resolve the host name once and check every address it resolves to: loopback, private, link-local, multicast,
  reserved, unspecified and shared (CGNAT, 100.64.0.0/10) addresses are refused, also when hidden in IPv6
  (IPv4-mapped ``::ffff:a.b.c.d``, NAT64 ``64:ff9b::/96``, 6to4 ``2002::/16``, Teredo ``2001::/32``) and in the
  numeric host forms ``inet_aton`` accepts (``2130706433``, ``0177.0.0.1``, ``0x7f.1``);
- connect to the address that was checked, never resolving again (a second lookup could answer differently: DNS
  rebinding), while TLS (SNI and certificate verification) and the ``Host`` header still use the host name;
- follow redirects themselves, checking each new URL the same way and dropping ``Authorization`` and ``Cookie``
  when a redirect leaves the original host;
- bound the connect and read time, the total time, and the body size (read as a stream, stopped past the limit);
- retry GET and HEAD with exponential backoff when the network times out (SPEC §7: "network timeout: retried
  with backoff").

Built on urllib3's connection pools, which take the address to connect to separately from the TLS server name.
``settings.CMS_SAFEHTTP_ALLOW_HOSTS`` (hosts, addresses or networks) lets tests reach a local server; it is not read
from the environment. A caller may allow more for its own fetches with ``allow`` (webhook deliveries pass the
operator's ``CMS_WEBHOOK_ALLOWED_HOSTS``); there an entry may also be ``host:port``, allowing that port only. ``settings.CMS_SAFEHTTP_CA_BUNDLE`` names extra trusted certificates (tests, private CAs).
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin

import urllib3
from django.conf import settings
from urllib3.exceptions import (
    ConnectTimeoutError,
    HTTPError,
    NewConnectionError,
    ProtocolError,
    ReadTimeoutError,
    SSLError,
)
from urllib3.util import Timeout, parse_url

__all__ = [
    "BlockedAddress",
    "BlockedDestination",
    "FetchFailed",
    "FetchTimeout",
    "Response",
    "ResponseTooLarge",
    "SafeHttpError",
    "StreamedResponse",
    "blocked_reason",
    "check_url",
    "fetch",
    "open_stream",
    "resolve_host",
]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

DEFAULT_MAX_BYTES = 10 * 1024 * 1024
REDIRECTS = (301, 302, 303, 307, 308)
RETRYABLE_METHODS = ("GET", "HEAD")
USER_AGENT = "CMS-Importer/1.0 (self-hosted content management service)"
_SHARED = ipaddress.ip_network("100.64.0.0/10")  # RFC 6598 carrier-grade NAT
_NAT64 = ipaddress.ip_network("64:ff9b::/96")  # RFC 6052 well-known prefix
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")  # RFC 8215 local-use prefix
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")
_NUMERIC_PART = re.compile(r"^(?:0x[0-9a-f]*|0[0-7]*|[1-9][0-9]*)$", re.IGNORECASE)


class SafeHttpError(Exception):
    """A fetch that could not be done safely or did not succeed."""


class BlockedDestination(SafeHttpError):
    """The URL, or an address its host resolves to, is not one we may fetch from."""


class BlockedAddress(BlockedDestination):
    """The host is (or resolves to) a loopback, private, link-local or otherwise non-public address."""


class ResponseTooLarge(SafeHttpError):
    """The body is larger than the limit."""


class FetchTimeout(SafeHttpError):
    """The server did not answer in time (after the retries)."""


class FetchFailed(SafeHttpError):
    """The network failed otherwise: no route, refused connection, TLS failure, too many redirects."""


@dataclass
class Response:
    url: str
    status: int
    headers: Mapping[str, str]
    content: bytes

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    def text(self, encoding: str | None = None) -> str:
        charset = encoding or _charset(self.headers.get("content-type", "")) or "utf-8"
        return self.content.decode(charset, errors="replace")

    def json(self) -> Any:
        return json.loads(self.content)


@dataclass
class StreamedResponse:
    """A response whose body is read in chunks with ``iter_bytes()`` (the size and time limits still apply)."""

    url: str
    status: int
    headers: Mapping[str, str]
    _raw: Any = field(repr=False)
    _max_bytes: int = field(repr=False)
    _deadline: float = field(repr=False)

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    def iter_bytes(self, chunk_size: int = 64 * 1024) -> Iterator[bytes]:
        received = 0
        try:
            for chunk in self._raw.stream(chunk_size, decode_content=True):
                received += len(chunk)
                if received > self._max_bytes:
                    raise ResponseTooLarge(
                        f"The response from {self.url} is larger than {self._max_bytes} bytes."
                    )
                if time.monotonic() > self._deadline:
                    raise FetchTimeout(f"Reading {self.url} took longer than allowed.")
                yield chunk
        except ReadTimeoutError as error:
            raise FetchTimeout(f"{self.url} stopped sending data.") from error
        except (ProtocolError, SSLError) as error:
            raise FetchFailed(f"The connection to {self.url} failed while reading: {error}") from error

    def read(self) -> bytes:
        return b"".join(self.iter_bytes())


# The seams tests use: name resolution and waiting between retries.
def resolve_host(host: str, port: int) -> list[IPAddress]:
    """Every address ``host`` resolves to, in the resolver's order."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as error:
        raise FetchFailed(f"The host {host} could not be resolved.") from error
    addresses: list[IPAddress] = []
    for info in infos:
        address = ipaddress.ip_address(info[4][0].split("%", 1)[0])
        if address not in addresses:
            addresses.append(address)
    return addresses


sleep: Callable[[float], None] = time.sleep


def blocked_reason(address: IPAddress) -> str | None:
    """Why we may not connect to this address, or None when it is a public one."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded: ipaddress.IPv4Address | None = None
        form = ""
        if address.ipv4_mapped is not None:
            embedded, form = address.ipv4_mapped, "IPv4-mapped"
        elif address in _NAT64:
            embedded, form = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF), "NAT64"
        elif address in _NAT64_LOCAL:
            return "a local-use NAT64 address"
        elif address.sixtofour is not None:
            embedded, form = address.sixtofour, "6to4"
        elif address.teredo is not None:
            server, client = address.teredo
            reason = blocked_reason(server) or blocked_reason(client)
            if reason:
                return f"a Teredo address wrapping {reason}"
        elif address in _IPV4_COMPATIBLE and int(address) > 1:
            embedded, form = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF), "IPv4-compatible"
        if embedded is not None:
            reason = blocked_reason(embedded)
            if reason:
                return f"an {form} form of {reason}" if form[0] in "AEIOU" else f"a {form} form of {reason}"
    checks = (
        ("is_unspecified", "an unspecified address"),
        ("is_loopback", "a loopback address"),
        ("is_link_local", "a link-local address (cloud metadata services live here)"),
        ("is_multicast", "a multicast address"),
        ("is_reserved", "a reserved address"),
        ("is_private", "a private-network address"),
    )
    for attribute, reason in checks:
        if getattr(address, attribute):
            return f"{reason} ({address})"
    if isinstance(address, ipaddress.IPv4Address) and address in _SHARED:
        return f"a shared (carrier-grade NAT) address ({address})"
    if not address.is_global:
        return f"an address that is not publicly routable ({address})"
    return None


def fetch(
    url: str,
    *,
    method: str = "GET",
    headers: Mapping[str, str] | None = None,
    body: bytes | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    connect_timeout: float = 5.0,
    read_timeout: float = 20.0,
    total_timeout: float = 120.0,
    max_redirects: int = 5,
    retries: int = 2,
    backoff: float = 0.5,
    allow: tuple[str, ...] = (),
) -> Response:
    """Fetch a URL safely and return the whole response (any status; check ``ok``)."""
    method = method.upper()
    attempts = 1 + (retries if method in RETRYABLE_METHODS else 0)
    for attempt in range(attempts):
        try:
            with open_stream(
                url,
                method=method,
                headers=headers,
                body=body,
                max_bytes=max_bytes,
                connect_timeout=connect_timeout,
                read_timeout=read_timeout,
                total_timeout=total_timeout,
                max_redirects=max_redirects,
                retries=0,
                allow=allow,
            ) as response:
                content = response.read()
                return Response(response.url, response.status, response.headers, content)
        except FetchTimeout:
            if attempt + 1 == attempts:
                raise
            sleep(backoff * 2**attempt)
    raise FetchTimeout(f"{url} did not answer in time.")  # not reached: the loop returns or raises


@contextlib.contextmanager
def open_stream(
    url: str,
    *,
    method: str = "GET",
    headers: Mapping[str, str] | None = None,
    body: bytes | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    connect_timeout: float = 5.0,
    read_timeout: float = 20.0,
    total_timeout: float = 300.0,
    max_redirects: int = 5,
    retries: int = 2,
    backoff: float = 0.5,
    allow: tuple[str, ...] = (),
    kept: KeptConnections | None = None,
) -> Iterator[StreamedResponse]:
    """Open a URL safely; the body is read from the yielded response in chunks. Retries cover getting the
    response's headers (a body cut off half-way cannot be resumed here). With ``kept``, the connection comes from and
    goes back to those kept open (keep-alive) when the answer was read to its end."""
    method = method.upper()
    attempts = 1 + (retries if method in RETRYABLE_METHODS else 0)
    pools: list[urllib3.HTTPConnectionPool] = []
    for attempt in range(attempts):
        try:
            raw, final_url = _request(
                url,
                pools=pools,
                kept=kept,
                method=method,
                headers=dict(headers or {}),
                body=body,
                timeout=Timeout(connect=connect_timeout, read=read_timeout),
                deadline=time.monotonic() + total_timeout,
                max_redirects=max_redirects,
                allow=allow,
            )
            break
        except FetchTimeout:
            _close(pools)
            if attempt + 1 == attempts:
                raise
            sleep(backoff * 2**attempt)
        except SafeHttpError:
            _close(pools)
            raise
    try:
        length = raw.headers.get("content-length", "")
        if length.strip().isdigit() and int(length) > max_bytes:
            raise ResponseTooLarge(
                f"The response from {final_url} is {int(length)} bytes; the limit is {max_bytes}."
            )
        yield StreamedResponse(
            final_url, raw.status, raw.headers, raw, max_bytes, time.monotonic() + total_timeout
        )
    finally:
        if kept is None or raw.length_remaining or not raw.isclosed():
            # An answer left unread (or one without a length) would be read by the next request on the connection.
            raw.close()
        raw.release_conn()
        _close(pools)


def _close(pools: list[urllib3.HTTPConnectionPool]) -> None:
    while pools:
        pools.pop().close()


class KeptConnections:
    """Connections kept open across requests (HTTP keep-alive), one pool per destination address, for a caller that
    sends many requests to few hosts (the webhook worker's pass). Every request is still checked (its host resolved
    and its addresses judged) before it takes a connection: a pool is keyed by the address checked, so a host that
    now resolves elsewhere gets a new one. Thread-safe; close it when done."""

    def __init__(self, per_host: int = 8):
        self.per_host = per_host
        self._pools: dict[tuple, urllib3.HTTPConnectionPool] = {}
        self._lock = threading.Lock()

    def pool(
        self, key: tuple, make: Callable[[int], urllib3.HTTPConnectionPool]
    ) -> urllib3.HTTPConnectionPool:
        with self._lock:
            found = self._pools.get(key)
            if found is None:
                found = self._pools[key] = make(self.per_host)
            return found

    def close(self) -> None:
        with self._lock:
            pools, self._pools = list(self._pools.values()), {}
        for pool in pools:
            pool.close()

    def __enter__(self) -> KeptConnections:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


# --- one request, its redirects, and the checks ------------------------------------------------------------------


@dataclass(frozen=True)
class _Target:
    scheme: str
    host: str  # the host name (or address literal) as the URL gives it, for TLS and the Host header
    port: int
    path: str
    address: IPAddress  # where we connect

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        default = 443 if self.scheme == "https" else 80
        return host if self.port == default else f"{host}:{self.port}"


def check_url(url: str, *, allow: tuple[str, ...] = ()) -> _Target:
    """Check a URL and its host's addresses; returns where to connect. Raises BlockedDestination."""
    try:
        parsed = parse_url(url.strip())
    except (ValueError, HTTPError) as error:
        raise BlockedDestination(f"{url!r} is not a valid URL.") from error
    scheme = (parsed.scheme or "").lower()
    if scheme not in ("http", "https"):
        raise BlockedDestination(
            f"Only http and https URLs can be fetched, not {scheme or 'a URL without one'}."
        )
    if parsed.auth:
        raise BlockedDestination(
            "URLs with a user name or password in them are not fetched; send credentials in a header."
        )
    host = (parsed.host or "").strip("[]").rstrip(".").lower()
    if not host:
        raise BlockedDestination(f"{url!r} has no host.")
    port = parsed.port or (443 if scheme == "https" else 80)
    literal = _address_literal(host)
    addresses = [literal] if literal is not None else resolve_host(_idna(host), port)
    if not addresses:
        raise FetchFailed(f"The host {host} has no addresses.")
    allowed = _allowed(allow)
    if host not in allowed["hosts"] and (host, port) not in allowed["host_ports"]:
        for address in addresses:
            reason = blocked_reason(address)
            if reason and not any(address in network for network in allowed["networks"]):
                raise BlockedAddress(f"{host} is not fetched: it resolves to {reason}.")
    return _Target(scheme, host, port, parsed.request_uri or "/", addresses[0])


def _request(
    url: str,
    *,
    pools: list[urllib3.HTTPConnectionPool],
    method: str,
    headers: dict[str, str],
    body: bytes | None,
    timeout: Timeout,
    deadline: float,
    max_redirects: int,
    allow: tuple[str, ...] = (),
    kept: KeptConnections | None = None,
) -> tuple[Any, str]:
    headers = {"User-Agent": USER_AGENT, "Accept-Encoding": "gzip, deflate", **headers}
    first_host = None
    for _ in range(max_redirects + 1):
        if time.monotonic() > deadline:
            raise FetchTimeout(f"Fetching {url} took longer than allowed.")
        target = check_url(url, allow=allow)
        first_host = first_host or target.host
        if target.host != first_host:
            # A redirect to another host must not carry our credentials along.
            headers = {
                name: value
                for name, value in headers.items()
                if name.lower() not in ("authorization", "cookie")
            }
        raw = _send(target, method, headers, body, timeout, pools, kept)
        location = raw.headers.get("location")
        if raw.status not in REDIRECTS or not location:
            return raw, url
        raw.drain_conn()
        raw.release_conn()
        url = urljoin(url, location)
        if raw.status == 303 or (raw.status in (301, 302) and method == "POST"):
            method, body = ("HEAD" if method == "HEAD" else "GET"), None
    raise FetchFailed(f"More than {max_redirects} redirects fetching {url}.")


def _send(
    target: _Target,
    method: str,
    headers: dict[str, str],
    body: bytes | None,
    timeout: Timeout,
    pools: list[urllib3.HTTPConnectionPool],
    kept: KeptConnections | None = None,
) -> Any:
    address = str(target.address)

    def make(size: int) -> urllib3.HTTPConnectionPool:
        if target.scheme == "https":
            bundle = getattr(settings, "CMS_SAFEHTTP_CA_BUNDLE", None)
            return urllib3.HTTPSConnectionPool(
                address,
                target.port,
                timeout=timeout,
                retries=False,
                cert_reqs="CERT_REQUIRED",
                ca_certs=bundle,
                server_hostname=target.host,
                assert_hostname=target.host,
                maxsize=size,
            )
        return urllib3.HTTPConnectionPool(address, target.port, timeout=timeout, retries=False, maxsize=size)

    if kept is None:
        pool = make(1)
        pools.append(pool)
    else:
        pool = kept.pool((target.scheme, address, target.port, target.host), make)
    try:
        return pool.urlopen(
            method,
            target.path,
            body=body,
            headers={**headers, "Host": target.host_header},
            redirect=False,
            retries=False,
            preload_content=False,
            decode_content=True,
            assert_same_host=False,
            release_conn=False,
            timeout=timeout,
        )
    except NewConnectionError as error:
        # Checked before ConnectTimeoutError, which urllib3 makes its base class.
        raise FetchFailed(f"Could not connect to {target.host}: {error.__cause__ or error}") from error
    except ConnectTimeoutError as error:
        raise FetchTimeout(f"Connecting to {target.host} timed out.") from error
    except ReadTimeoutError as error:
        raise FetchTimeout(f"{target.host} did not answer in time.") from error
    except urllib3.exceptions.MaxRetryError as error:
        reason = error.reason
        if isinstance(reason, (ConnectTimeoutError, ReadTimeoutError)):
            raise FetchTimeout(f"{target.host} did not answer in time.") from error
        raise FetchFailed(f"Could not fetch from {target.host}: {reason}") from error
    except HTTPError as error:
        raise FetchFailed(f"Could not fetch from {target.host}: {error}") from error


def _address_literal(host: str) -> IPAddress | None:
    """The address a numeric host stands for: IPv4 and IPv6 literals, and the legacy IPv4 forms inet_aton takes
    (one to four parts, each decimal, octal with a leading 0, or hexadecimal with 0x), which resolvers accept too."""
    with contextlib.suppress(ValueError):
        return ipaddress.ip_address(host.split("%", 1)[0])
    parts = host.split(".")
    if not 1 <= len(parts) <= 4 or not all(_NUMERIC_PART.match(part) for part in parts):
        return None
    numbers = [
        int(part[2:] or "0", 16)
        if part.lower().startswith("0x")
        else int(part, 8)
        if part.startswith("0")
        else int(part)
        for part in parts
    ]
    # a, a.b (b: 24 bits), a.b.c (c: 16 bits), a.b.c.d: the last part fills the remaining bytes.
    value = 0
    for number in numbers[:-1]:
        if number > 255:
            raise BlockedDestination(f"{host} is not a valid address.")
        value = value * 256 + number
    last_bits = 8 * (5 - len(numbers))
    if numbers[-1] >= 2**last_bits:
        raise BlockedDestination(f"{host} is not a valid address.")
    return ipaddress.IPv4Address((value << last_bits) | numbers[-1])


def _idna(host: str) -> str:
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError as error:
        raise BlockedDestination(f"{host} is not a valid host name.") from error


_HOST_PORT = re.compile(r"^\[?([^\[\]]+?)\]?:(\d{1,5})$")


def _allowed(extra: tuple[str, ...] = ()) -> dict[str, Any]:
    hosts: set[str] = set()
    host_ports: set[tuple[str, int]] = set()
    networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
    for entry in (*(getattr(settings, "CMS_SAFEHTTP_ALLOW_HOSTS", ()) or ()), *extra):
        entry = entry.strip().lower()
        try:
            networks.append(ipaddress.ip_network(entry.strip("[]"), strict=False))
            continue
        except ValueError:
            pass
        # host:port, [v6 address]:port; a bare IPv6 address was taken as a network above.
        match = _HOST_PORT.match(entry)
        if (match and entry.count(":") == 1) or (match and entry.startswith("[")):
            host_ports.add((match.group(1).rstrip("."), int(match.group(2))))
        else:
            hosts.add(entry.rstrip("."))
    return {"hosts": hosts, "host_ports": host_ports, "networks": networks}


def _charset(content_type: str) -> str | None:
    match = re.search(r"charset=\"?([\w.:-]+)", content_type, re.IGNORECASE)
    return match.group(1) if match else None
