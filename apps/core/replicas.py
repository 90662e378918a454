"""Read replicas: which database a query reads from (issue 24; docs/operations.md "Read replicas and PgBouncer").

With ``DATABASE_REPLICA_URL`` set, settings add a second alias, ``replica``, install ``ReplicaRouter`` and put
``ReplicaMiddleware`` right after the request context. Without it neither is installed and nothing here runs, except
``read_alias()`` in the compiled hot reads, which then answers ``"default"`` after one context-variable lookup.

The rule (docs/decisions.md "Read replicas: who reads from where"):

- A request may read from the replica when it is a ``GET``, ``HEAD`` or ``OPTIONS`` under the API prefix (or the
  sitemap), outside the sign-in and OAuth endpoints and the health check, and its client is not *pinned*.
- Every unsafe request runs on the primary, and afterwards pins its client to the primary for
  ``CMS_REPLICA_PIN_SECONDS``: a browser session by a short-lived signed cookie, a bearer credential by a cache key
  derived from a hash of its ``Authorization`` header. A pinned client's reads go to the primary, so it sees its own
  writes even when the replica lags. Anonymous clients are never pinned: they cannot write content.
- Within a request allowed the replica, every write goes to the primary, and so does every read after the request's
  first write or inside a transaction (a service's read-then-write, ``select_for_update``): the router checks.
- Outside requests (workers, management commands, migrations) everything uses the primary; migrations run there only.
"""

from __future__ import annotations

import hashlib
import logging
import time
from contextlib import contextmanager
from contextvars import ContextVar

from django.conf import settings
from django.core.cache import cache
from django.core.checks import Warning as CheckWarning
from django.core.checks import register
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections

logger = logging.getLogger("cms.replicas")

REPLICA = "replica"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
PIN_COOKIE = "cms_primary"
_PIN_SALT = "cms.replicas.pin"

# The alias reads of the current request may use; "default" outside a request allowed the replica.
_reads: ContextVar[str] = ContextVar("cms_read_alias", default=DEFAULT_DB_ALIAS)
# Until when (this process's monotonic clock) the replica is skipped after failing to connect; tests step the clock.
_down_until = 0.0
_clock = time.monotonic


def read_alias() -> str:
    """Where a read should go now: the replica only inside a request allowed it and outside any transaction."""
    alias = _reads.get()
    if alias == DEFAULT_DB_ALIAS or connections[DEFAULT_DB_ALIAS].in_atomic_block:
        return DEFAULT_DB_ALIAS
    return alias


def read_connection():
    """The connection a raw SQL read uses now: the one the router would pick for a model (search's queries)."""
    return connections[read_alias()]


def reading_replica() -> bool:
    return read_alias() != DEFAULT_DB_ALIAS


def replica_usable() -> bool:
    """The replica is configured and connected, or connects now. One that cannot is skipped for
    ``CMS_REPLICA_RETRY_SECONDS``: reads go to the primary meanwhile, with one warning per interval."""
    global _down_until
    if REPLICA not in settings.DATABASES or _clock() < _down_until:
        return False
    replica = connections[REPLICA]
    try:
        # Django checks a persistent connection at its first query of a request: here, before relying on it (our
        # backend's check costs no round trip on a quiet connection), so a dead one is replaced or skipped now.
        replica.close_if_health_check_failed()
        replica.ensure_connection()
    except DatabaseError as exc:
        _down_until = _clock() + settings.CMS_REPLICA_RETRY_SECONDS
        logger.warning(
            "read replica unreachable, reads go to the primary for %s s: %s",
            settings.CMS_REPLICA_RETRY_SECONDS,
            str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__,
        )
        return False
    return True


@contextmanager
def replica_reads():
    """Reads in this block may use the replica, if it answers (a request allowed it; the WSGI fast path uses it)."""
    token = _reads.set(REPLICA if replica_usable() else DEFAULT_DB_ALIAS)
    try:
        yield
    finally:
        _reads.reset(token)


@contextmanager
def primary_reads():
    """Reads in this block go to the primary (a credential unknown to the replica is looked up again there)."""
    token = _reads.set(DEFAULT_DB_ALIAS)
    try:
        yield
    finally:
        _reads.reset(token)


class ReplicaRouter:
    """Reads where ``read_alias()`` says, writes and migrations on the primary."""

    def db_for_read(self, model, **hints) -> str:
        return read_alias()

    def db_for_write(self, model, **hints) -> str:
        # The rest of the request reads what it wrote: a write it did is not on the replica yet.
        if _reads.get() != DEFAULT_DB_ALIAS:
            _reads.set(DEFAULT_DB_ALIAS)
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1, obj2, **hints) -> bool:
        return True  # one database and its copy

    def allow_migrate(self, db, app_label, model_name=None, **hints) -> bool:
        return db == DEFAULT_DB_ALIAS


def _client_keys(request) -> list[str]:
    """Cache keys naming the client by its bearer credential (hashed: the key never holds the secret)."""
    header = request.META.get("HTTP_AUTHORIZATION", "")
    if not header:
        return []
    return ["replica-pin:" + hashlib.sha256(header.encode()).hexdigest()[:40]]


class ReplicaMiddleware:
    """Lets the request read from the replica, or pins its client to the primary after an unsafe request."""

    def __init__(self, get_response):
        self.get_response = get_response
        api = settings.CMS_API_PREFIX + "/"
        self.prefixes = (api, "/sitemap.xml")
        self.primary_prefixes = tuple(api + path for path in ("auth/", "setup/", "oauth/", "health", "mcp"))
        self.pin_seconds = settings.CMS_REPLICA_PIN_SECONDS

    def __call__(self, request):
        if request.method in SAFE_METHODS:
            if self._may_use_replica(request):
                with replica_reads():
                    return self.get_response(request)
            return self.get_response(request)
        response = self.get_response(request)
        self._pin(request, response)
        return response

    def _may_use_replica(self, request) -> bool:
        path = request.path
        if not path.startswith(self.prefixes) or path.startswith(self.primary_prefixes):
            return False
        if PIN_COOKIE in request.COOKIES and request.get_signed_cookie(
            PIN_COOKIE, default=None, salt=_PIN_SALT, max_age=self.pin_seconds
        ):
            return False
        keys = _client_keys(request)
        if not keys:
            return True
        if cache.get(keys[0]):
            return False
        # No pin found, or none could be read: while the pin store is out, the primary answers every client.
        available = getattr(cache, "available", None)
        return available is None or available()

    def _pin(self, request, response) -> None:
        if self.pin_seconds <= 0:
            return
        for key in _client_keys(request):
            cache.set(key, 1, self.pin_seconds)
        # A browser (a session, or one just started by this request) carries its pin itself: no shared store needed.
        session_cookie = settings.SESSION_COOKIE_NAME
        if session_cookie in request.COOKIES or session_cookie in response.cookies:
            response.set_signed_cookie(
                PIN_COOKIE,
                "1",
                salt=_PIN_SALT,
                max_age=self.pin_seconds,
                secure=settings.SESSION_COOKIE_SECURE,
                httponly=True,
                samesite="Lax",
            )


def readiness_check():
    """The replica in ``/_cms/api/health/ready``, never failing it: without the replica this node still answers every
    read, from the primary, so taking it out of the load balancer would only lose capacity."""
    from apps.core.readiness import passed

    if REPLICA not in settings.DATABASES:
        return None
    try:
        with connections[REPLICA].cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception as error:
        logger.warning("readiness: read replica not reachable: %s", type(error).__name__)
        return passed("Not reachable: reads go to the primary.")
    return passed()


@register()
def pins_shared(app_configs=None, **kwargs) -> list[CheckWarning]:
    """A bearer client's pin lives in the cache: a per-process cache pins it only in the process that took its write."""
    if REPLICA not in settings.DATABASES:
        return []
    if "locmem" not in settings.CACHES["default"]["BACKEND"].lower():
        return []
    return [
        CheckWarning(
            "DATABASE_REPLICA_URL is set but the cache is per process: an API client's read right after its write "
            "may be answered by another worker from the replica, before the write reached it.",
            hint="Set REDIS_URL so every worker and node shares the pins (docs/operations.md, read replicas).",
            id="replicas.W001",
        )
    ]
